"""Repair of words the PDF text layer broke: hyphenation and lost ligatures.

A word may come out hyphenated across a line end ("repre-" / "sentation"),
split by PDFium's soft hyphen mark, with an unmapped ligature glyph
("de\ue00cned"), or with its ligature gone altogether ("e cient").
`Vocabulary`, the document's own words, decides which repairs to make.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# PDFium writes U+FFFE where a line ended in a hyphen; the line break itself is gone.
SOFT_HYPHEN = "\ufffe"
# TeX's OT1 fonts put ff, fi, fl, ffi, ffl at 0x0B-0x0F; without a ToUnicode map
# they come out as these code points, in the private use area or as C0 controls.
_GLYPH_LIGATURES = {0x0B: "ff", 0x0C: "fi", 0x0D: "fl", 0x0E: "ffi", 0x0F: "ffl"}
_PUA_LIGATURE_RE = re.compile(r"(?<=[A-Za-z])[\ue00b-\ue00f]|[\ue00b-\ue00f](?=[a-z])")
_CONTROL_LIGATURE_RE = re.compile(r"[A-Za-z]*[\x0b-\x0f][A-Za-z]+|[A-Za-z]+[\x0b-\x0f]")
_WORD_RE = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_BROKEN_WORD_RE = re.compile(r"\S*(?:\ufffe\s*|-\n)\S*")
_SOFT_BREAK_RE = re.compile(r"([\w\-]*)\ufffe\s*([^\s\ufffe]*)")


def restore_glyph_ligatures(text: str) -> tuple[str, int]:
    """Map unmapped ligature glyphs inside words back to letters."""
    count = 0

    def pua(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return _GLYPH_LIGATURES[ord(match.group(0)) - 0xE000]

    def control(match: re.Match[str]) -> str:
        nonlocal count
        word = match.group(0)
        fixed = "".join(_GLYPH_LIGATURES.get(ord(char), char) for char in word)
        if fixed.lower() in _COMMON_LIGATURE_WORDS:
            count += 1
            return fixed
        return word

    text = _PUA_LIGATURE_RE.sub(pua, text)
    return _CONTROL_LIGATURE_RE.sub(control, text), count


_COMMON_LIGATURE_WORDS = frozenset(
    [
        "first",
        "field",
        "fields",
        "figure",
        "figures",
        "final",
        "finally",
        "find",
        "finding",
        "findings",
        "fine",
        "fixed",
        "fit",
        "define",
        "defined",
        "definition",
        "specific",
        "significant",
        "significantly",
        "efficient",
        "efficiently",
        "coefficient",
        "coefficients",
        "sufficient",
        "different",
        "difference",
        "differences",
        "difficult",
        "effect",
        "effects",
        "effective",
        "effectively",
        "offer",
        "offers",
        "flow",
        "flows",
        "influence",
        "affine",
        "classifier",
        "classification",
        "confidence",
        "identify",
        "identified",
        "modified",
        "benefit",
        "benefits",
    ]
)


class Vocabulary:
    """Counts of the document's own words, whole and hyphenated, lower-cased."""

    def __init__(self, texts: list[str]) -> None:
        self.words: Counter[str] = Counter()
        self.compounds: Counter[str] = Counter()
        for text in texts:
            # Halves of broken words are no words of their own ("ran" + "dom").
            for token in _WORD_RE.findall(_BROKEN_WORD_RE.sub(" ", text)):
                lower = token.lower()
                if "-" in lower:
                    self.compounds[lower] += 1
                    self.words.update(lower.split("-"))
                else:
                    self.words[lower] += 1

    def join(self, left: str, right: str) -> bool:
        """Should `left` + hyphen break + `right` become one word (True) or keep the hyphen?"""
        head = left.rsplit("-", 1)[-1].lower()
        tail = _WORD_RE.match(right)
        core = tail.group(0).split("-", 1)[0].lower() if tail else ""
        if not head or not core:
            return False
        whole, hyphenated = self.words[head + core], self.compounds[f"{head}-{core}"]
        if whole or hyphenated:
            return whole >= hyphenated
        if "-" in left or "-" in right.strip(".,;:)"):
            return False
        if head[-1].isdigit() or right[0].isupper() or right[0].isdigit():
            return False
        # Two words the document uses on their own ("sequence" + "aligned") form a compound;
        # syllables ("repre" + "sentation") do not.
        if head in _CLOSED_PREFIXES:
            return True
        return not (len(head) > 2 and len(core) > 2 and self.words[head] and self.words[core])


# Words that usually close up with what follows ("overcome", "outperform", "moreover").
_CLOSED_PREFIXES = frozenset(
    ["over", "out", "under", "more", "per", "some", "any", "every", "where", "there", "with"]
)


def join_hyphenation(texts: list[str], vocabulary: Vocabulary, stats: Counter[str]) -> list[str]:
    """Rejoin words broken at line ends, inside lines (U+FFFE) and across pages.

    Takes the document's lines in reading order and returns them, one for one;
    a line whose only word moved up to the line before is left empty.
    """

    def soft(match: re.Match[str]) -> str:
        left, right = match.group(1), match.group(2)
        joined = vocabulary.join(left, right)
        stats["words_soft_hyphen_joined" if joined else "soft_hyphen_compounds_kept"] += 1
        return f"{left}{right}" if joined else f"{left}-{right}"

    texts = list(texts)
    for index, text in enumerate(texts):
        nxt = texts[index + 1] if index + 1 < len(texts) else None
        if nxt is not None and text.endswith(SOFT_HYPHEN):
            first, _, texts[index + 1] = nxt.partition(" ")
            text += first
        elif nxt is not None and _ends_in_word_hyphen(text) and nxt[:1].islower():
            first, _, texts[index + 1] = nxt.partition(" ")
            left = text[:-1].rsplit(" ", 1)[-1]
            joined = vocabulary.join(left, first)
            stats["words_hyphen_joined" if joined else "hyphen_compounds_kept"] += 1
            text = text[:-1] + first if joined else text + first
        if SOFT_HYPHEN in text:
            text = _SOFT_BREAK_RE.sub(soft, text)
        texts[index] = text
    return texts


def _ends_in_word_hyphen(text: str) -> bool:
    return len(text) > 2 and text.endswith("-") and text[-2].isalpha()


_SUFFIXES = ("", "s", "es", "ly", "ed", "ing", "ation", "ations", "ness", "y")
_LIGATURE_RE = re.compile("ffi|ffl|ff|fi|fl")
_TRAILING_PUNCTUATION = ".,;:)]?!'\""


@dataclass(frozen=True)
class LigatureGaps:
    """Words whose ligature vanished, leaving a gap: "e cient" -> "efficient"."""

    words: dict[str, str]  # "e cient" -> "efficient"
    tails: dict[str, list[tuple[str, str]]]  # "ciently" -> [("cient", "ly")]


def ligature_gaps(vocabulary: Vocabulary) -> LigatureGaps:
    """The gapped forms of common ligature words and of the document's own."""
    known = set(_COMMON_LIGATURE_WORDS)
    known.update(word for word in vocabulary.words if len(word) > 4 and _LIGATURE_RE.search(word))
    words: dict[str, str] = {}
    for word in known:
        for match in _LIGATURE_RE.finditer(word):
            left, right = word[: match.start()], word[match.end() :]
            # A word that starts with the ligature ("rst") is too often a real word ("less").
            if left and len(right) >= 2 and right not in _SHORT_WORDS:
                words[f"{left} {right}"] = word
    tails: dict[str, list[tuple[str, str]]] = {}
    for key in words:
        stem = key.rsplit(" ", 1)[-1]
        for suffix in _SUFFIXES:
            tails.setdefault(stem + suffix, []).append((stem, suffix))
    return LigatureGaps(words, tails)


def restore_ligature_gaps(text: str, gaps: LigatureGaps, stats: Counter[str]) -> str:
    """`text` with each gapped word ("e cient", "e ciently,") closed up again."""
    tokens = text.split()
    if gaps.tails.keys().isdisjoint(token.rstrip(_TRAILING_PUNCTUATION) for token in tokens):
        return text
    out: list[str] = []
    for token in tokens:
        bare = token.rstrip(_TRAILING_PUNCTUATION)
        word = _restore_token(bare, out[-1] if out else "", gaps)
        if word is None:
            out.append(token)
            continue
        stats["words_ligature_gap_restored"] += 1
        out[-1] = word + token[len(bare) :]
    return " ".join(out)


def _restore_token(bare: str, previous: str, gaps: LigatureGaps) -> str | None:
    """The word that `previous` + gap + `bare` once was, or None."""
    if not previous.isalpha() or previous in _SHORT_WORDS:
        return None
    for stem, suffix in gaps.tails.get(bare, ()):
        word = gaps.words.get(f"{previous} {stem}")
        if word is not None:
            return word + suffix
    return None


_SHORT_WORDS = frozenset(
    [
        "a",
        "an",
        "as",
        "at",
        "be",
        "by",
        "do",
        "go",
        "he",
        "if",
        "in",
        "is",
        "it",
        "me",
        "my",
        "no",
        "of",
        "on",
        "or",
        "so",
        "to",
        "up",
        "us",
        "we",
        "am",
        "are",
        "the",
        "and",
        "for",
        "not",
        "but",
        "can",
        "all",
        "any",
        "one",
        "out",
        "our",
        "its",
        "was",
        "has",
        "had",
        "may",
        "new",
        "two",
        "use",
        "set",
        "see",
        "way",
        "who",
        "low",
        "own",
        "per",
        "end",
        "ends",
        "via",
        "more",
        "most",
        "less",
        "than",
        "then",
        "that",
        "this",
        "they",
        "them",
    ]
)
