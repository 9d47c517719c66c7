"""Named methods and acronyms as each paper's own text prints them: the names it
defines, introduces and uses (`name_catalog.py` keeps them in the catalog).

A paper *defines* a name when it prints it with its long form, in either
order ("Zero Redundancy Optimizer (ZeRO)", "FiD (Fusion-in-Decoder)"). It
*introduces* it when the name is its own: before the colon of its title
("RETRO: ...", "FlashAttention: ..."), defined in a sentence that presents
it ("We develop a novel solution, Zero Redundancy Optimizer (ZeRO)"), or
named so ("we refer to it as Fusion-in-Decoder"); a hyphenated or
multi-word name so introduced also gives its initials, in their case, as
a name with it as long form ("FiD" for "Fusion-in-Decoder"). Later papers define a
famous name too ("Fusion-in-Decoder (FiD) (Izacard and Grave, 2021)");
introducing tells the paper that the name is about.
It *uses* a name when its text holds a token whose case marks it as one
("ZeRO", "GPT-3", "SGDiT": a capital after the first letter, or a digit).
Names keep their printed case: "ZeRO" and "zero" are different names.

The long-form match is the one of Schwartz and Hearst (2003): every letter
and digit of the short form appears in the long form in order, the first
one at the start of a word, reading both from the right.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

_TOKEN = r"[A-Za-z][A-Za-z0-9]*(?:[-+][A-Za-z0-9]+)*"
_TOKEN_RE = re.compile(rf"(?<![\w-]){_TOKEN}(?![\w-])")
_PAREN_RE = re.compile(r"\(([^()]{1,120})\)")
_SHORT_RE = re.compile(rf"^{_TOKEN}$")
_WORD_RE = re.compile(r"[^\s()]+")
_TITLE_NAME_RE = re.compile(rf"^\s*({_TOKEN}(?:\s{_TOKEN})?)\s*:\s+\S")
_MAX_SHORT = 12
_MAX_LONG_CHARS = 100
# `names.defined`: how a paper holds a name.
USED, DEFINED, INTRODUCED = 0, 1, 2
_PRESENTING_RE = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:\w+\s+){0,3}?(?:propose|present|introduce|develop"
    r"|design|call|refer|name|dub|term|coin)\w*"
    # "a method called ..." names what follows at once; "named entity recognition" does not.
    r"|\b(?:called|named|dubbed|termed|coined)(?:\s+(?:as|the|an?|our))?\s*[\"\u201c]?\s*$",
    re.IGNORECASE,
)
_PRESENTING_VERB_RE = re.compile(
    r"\b(?:propos|present|introduc|develop|design|call|refer(?:s|red)?\s+to|nam|dub|term|coin)"
    r"\w*",
    re.IGNORECASE,
)
# Words between a presenting verb and a definition that make the definition another thing's,
# which the presented thing is for, uses, extends or is compared with. Lower case only: a
# capitalised one is a name's ("Spatial Attention Enhancement (SAE) and ...").
_RELATING_RE = re.compile(
    r"\b(?:that|which|whose|where|whereby|with|without|using|uses?|utili[sz]\w*|combin\w*"
    r"|integrat\w*|leverag\w*|incorporat\w*|employ\w*|adopt\w*|exploit\w*"
    r"|appl(?:y|ies|ied|ying)|via|by|for|in|on|upon|to|into|onto|from|over|between|against"
    r"|than|based|built|beyond|extend\w*|improv\w*|enhanc\w*|replac\w*)\b"
)
_NAMED_AS_RE = re.compile(
    r"\bwe\s+(?:call|refer\s+to|name|dub|term)\s+(?:it|this|them|(?:this|the|our)\s+"
    r"(?:\w+\s+)?(?:model|method|approach|framework|architecture|system|algorithm))"
    r"\s+(?:as\s+)?[\"\u201c]?([A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Definition:
    name: str
    long_form: str  # empty for a title's name
    source: str  # "title", "abstract" or "fulltext"
    introduced: bool = False  # presented as the paper's own


def is_name_like(token: str) -> bool:
    """Whether a token's case or digits mark it as a name: "ZeRO", "BERT", "GPT-3", "T5"."""
    if not 2 <= len(token) <= 30 or not any(c.isupper() for c in token):
        return False
    # A capital that starts a hyphenated part ("Fusion-in-Decoder") is a word's, not a name's.
    later_capital = any(c.isupper() and token[i] not in "-+" for i, c in enumerate(token[1:]))
    has_digit = any(c.isdigit() for c in token)
    return any(c.isalpha() for c in token) and (later_capital or has_digit)


def fold(text: str) -> str:
    """A long form's lookup key: lower case, hyphens and runs of spaces as one space."""
    return " ".join(re.sub(r"[-\u2010-\u2014]", " ", text.lower()).split())


# A digit inside a short form that reads as a word: "E2F", "Seq2Seq", "B4".
_DIGIT_WORDS = {"2": "to", "4": "for"}


def _long_form_start(short: str, long: str) -> int | None:
    """Where in `long` the long form of `short` starts, or None (Schwartz-Hearst)."""
    s, position = len(short) - 1, len(long) - 1
    while s >= 0:
        wanted = short[s].lower()
        if not wanted.isalnum():
            s -= 1
            continue
        while position >= 0 and (
            long[position].lower() != wanted
            or (s == 0 and position > 0 and long[position - 1].isalnum())
        ):
            position -= 1
        if position < 0:
            return None
        s -= 1
        position -= 1
    return position + 1


def _digit_words_start(short: str, long: str) -> int | None:
    """`_long_form_start` for a short form whose digit stands for a word ("E2F" for
    "Event-to-Frame", "Seq2Seq", "P4P"): the digit matches that word's first letter, and
    the long form must hold the word."""
    spelled = short[0] + "".join(_DIGIT_WORDS.get(c, c)[0] for c in short[1:])
    wanted = {_DIGIT_WORDS[c] for c in short[1:] if c in _DIGIT_WORDS}
    if not wanted:
        return None
    start = _long_form_start(spelled, long)
    if start is None:
        return None
    held = {w.lower() for w in re.split(r"[\s\-]+", long[start:])}
    return start if wanted <= held else None


def _valid_pair(short: str, long: str) -> str | None:
    """The long form of `short` at the end of `long`, trimmed, or None."""
    capitalised = _is_capitalised(short)
    if not _SHORT_RE.match(short) or not (is_short_form(short) or capitalised):
        return None
    words = _WORD_RE.findall(long)
    limit = min(len(short) + 5, 2 * len(short))
    tail = " ".join(words[-limit:])
    start = _long_form_start(short, tail)
    if start is None:
        start = _digit_words_start(short, tail)
    if start is None:
        return None
    found = _spelled_by_initials(short, tail, tail[start:].strip(_AROUND_A_LONG_FORM))
    if len(found) <= len(short) or len(found) > _MAX_LONG_CHARS or not found[0].isalnum():
        return None
    if short in found.split():
        return None  # "AI Level of Detail (AI LOD)": a longer name, not what AI stands for
    if capitalised and not _initials_spell(short, found):
        return None
    return found


# What separates a long form's words, whose first letters its short form takes: spaces and
# hyphens or dashes ("Fusion-in-Decoder").
_WORD_BREAK = r"[\s\-\u2010-\u2014]+"
# The quotes a long form may be set in, which are not the long form's: "the 'Semantic
# Alignment Network' (SAN)"; with the punctuation it may stand between.
QUOTES = "\"'\u2018\u2019\u201c\u201d"
_AROUND_A_LONG_FORM = f" ,;:-{QUOTES}"


def _spelled_by_initials(short: str, tail: str, found: str) -> str:
    """`found`, or the longer run of `tail`'s last words whose initials spell `short`
    letter for letter when `found`'s do not: matching letters from the end, Schwartz-Hearst
    reads "Proximal Policy Optimization (PPO)" as "Policy Optimization" (the "p" of
    "Optimization"), a long form that says less than the paper wrote."""
    letters = short.lower()
    if not letters.isalpha() or _initials(found) == letters:
        return found
    words = re.findall(rf"(?:(?!{_WORD_BREAK}).)+(?:{_WORD_BREAK})?", tail)
    run = "".join(words[-len(letters) :]) if len(words) >= len(letters) else ""
    return (
        run.strip(_AROUND_A_LONG_FORM)
        if len(run) > len(found) and _initials(run) == letters
        else found
    )


def _initials(text: str) -> str:
    """The first letters of `text`'s words (at spaces and hyphens), lower case."""
    return "".join(w[0].lower() for w in re.split(_WORD_BREAK, text) if w)


def _is_capitalised(token: str) -> bool:
    """A plain capitalised word of three letters or more ("Retro"): a name set in small
    capitals reads so (`ingest/pdf/layout/words.py`), and a word may be one too."""
    return len(token) >= 3 and token[0].isupper() and token[1:].isalpha() and token[1:].islower()


def _initials_spell(short: str, long: str) -> bool:
    """Whether each word of `long` (at spaces and hyphens), two at least, gives `short` its
    next letter in order, the first word its first letter: "Retrieval-Enhanced
    Transformer" spells "Retro" (R, e, t). A capitalised word is a short form only so
    ("the capital of France (Paris)" is none)."""
    words = [w for w in re.split(_WORD_BREAK, long) if w]
    letters = short.lower()
    if len(words) < 2 or words[0][0].lower() != letters[0]:
        return False
    position = 1
    for word in words[1:]:
        position = letters.find(word[0].lower(), position)
        if position < 0:
            return False
        position += 1
    return True


def singular(name: str) -> str:
    """A name's singular: "LRCs" -> "LRC", "NeRFs" -> "NeRF"; any other name as it is.
    Papers define a name in either number ("Locally Recoverable Codes (LRCs)")."""
    stem = name[:-1]
    plural = name.endswith("s") and len(stem) >= 2 and stem[-1].isupper()
    return stem if plural and sum(c.isupper() for c in stem) >= 2 else name


def number_forms(name: str) -> list[str]:
    """The name in both numbers, as asked first: "LRC" -> ["LRC", "LRCs"]."""
    one = singular(name)
    if one != name:
        return [name, one]
    return [name, f"{name}s"] if singular(f"{name}s") == name else [name]


def is_short_form(token: str) -> bool:
    """An acronym worth keeping: 2-12 characters, a capital, not a plain capitalised word."""
    if not 2 <= len(token) <= _MAX_SHORT or not token[0].isalnum():
        return False
    capitals = sum(c.isupper() for c in token)
    return capitals >= 2 or (capitals == 1 and is_name_like(token))


def definitions_in(text: str, source: str) -> list[Definition]:
    """Every (name, long form) pair printed in `text`, either way round."""
    found = [
        Definition(name, long, source, _presents(lead))
        for name, long, lead, _start in printed_pairs(text)
    ]
    for match in _NAMED_AS_RE.finditer(text):
        name = match.group(1)
        if len(name) >= 2 and (is_name_like(name) or "-" in name):
            found.append(Definition(name, "", source, True))
    return found


def printed_pairs(text: str) -> Iterator[tuple[str, str, str, int]]:
    """Each (name, long form) pair `text` prints with a parenthesis, either way round ("Long
    Form (LF)", "LF (Long Form)"): the name, the long form, the sentence's words before the
    pair, and where the pair starts in `text` (it ends with its parenthesis)."""
    for match in _PAREN_RE.finditer(text):
        inside = match.group(1).strip()
        sentence = text[max(0, match.start() - 300) : match.start()]
        before = re.split(r"[.;:!?]\s|\n\n", sentence)[-1].rstrip()
        at = match.start() - len(sentence) + sentence.rindex(before) if before else 0
        short = re.split(r"[,;]\s*|\s+", inside, maxsplit=1)[0]
        long = _valid_pair(short, before) if before else None
        if long is not None:
            lead = _without_last_words(before, len(_WORD_RE.findall(long)))
            yield short, long, lead, at + len(lead)
            continue
        previous = _WORD_RE.findall(before)
        if previous:
            candidate = previous[-1].strip(",;:")
            long = _valid_pair(candidate, inside)
            if long is not None and long == inside.strip(" ,;:-"):
                lead = _without_last_words(before, 1)
                yield candidate, long, lead, at + len(lead)


def _without_last_words(text: str, count: int) -> str:
    """`text` up to its last `count` words."""
    starts = [m.start() for m in _WORD_RE.finditer(text)]
    return text[: starts[-count]] if 0 < count <= len(starts) else ""


def _presents(lead: str) -> bool:
    """Whether the words before a definition present it as the paper's own ("We develop a
    novel solution, ..."). Only the words before the name and its long form count: in "We
    compare Term Frequency-Inverse Document Frequency (TF-IDF)" the "Term" is the long
    form's, not a paper terming something. What is presented is the verb's object: a
    definition after a word relating that object to something else is of the other thing
    ("We present ProtoBERT-LoRA, a framework that combines PubMedBERT with ... Low-Rank
    Adaptation (LoRA)" presents ProtoBERT-LoRA, it uses LoRA)."""
    presenting = _PRESENTING_RE.search(lead)
    if presenting is None:
        return False
    # The last presenting verb: "We refer to this setting as FSNCD and propose SHC (...)".
    verbs = list(_PRESENTING_VERB_RE.finditer(lead, presenting.start()))
    return _RELATING_RE.search(lead, verbs[-1].end() if verbs else presenting.end()) is None


def names_given(sentence: str) -> list[str]:
    """The names a sentence gives what it describes: "we refer to it as Fusion-in-Decoder"."""
    return [m.group(1) for m in _NAMED_AS_RE.finditer(sentence)]


def initialism(name: str) -> str | None:
    """The initials of a hyphenated or multi-word name, case kept: "Fusion-in-Decoder" ->
    "FiD"; None for one word, fewer than two capitals, or a name that is already short
    ("CAV-MAE" is not "CM", nor "AoD-IP" "AI")."""
    parts = [p for p in re.split(r"[-\s]+", name) if p]
    if not any(c.islower() for p in parts for c in p[1:]):
        return None
    if any(sum(c.isupper() for c in p) > 1 for p in parts):
        return None  # made of short names itself: "AoD-IP" is not "AI"
    letters = "".join(p[0] for p in parts if p[0].isalpha())
    if len(parts) < 2 or len(letters) != len(parts) or sum(c.isupper() for c in letters) < 2:
        return None
    return letters


def title_name(title: str) -> str | None:
    """The name before a title's colon, as in "RETRO: ..." or "FlashAttention: ...".

    One or two tokens; two only when one of them is marked as a name by its case.
    """
    match = _TITLE_NAME_RE.match(" ".join(title.split()))
    if match is None:
        return None
    name = match.group(1)
    parts = name.split()
    if len(parts) == 2 and not any(is_name_like(p) for p in parts):
        return None
    return name


def names_used(texts: Iterable[str]) -> Counter[str]:
    """Name-like tokens of `texts` with how often each is printed."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(t for t in _TOKEN_RE.findall(text) if is_name_like(t))
    return counts


def mine_paper(title: str, texts: Sequence[tuple[str, str]]) -> list[tuple[str, ...]]:
    """The `names` rows (without the paper id) of a paper: its title and its
    (source, text) pairs, abstract first."""
    rows: dict[tuple[str, str], tuple[str, ...]] = {}
    named = title_name(title)
    if named is not None:
        rows[(named, "")] = (named, named.lower(), "", "", str(INTRODUCED), "title")
    for source, text in texts:
        for definition in definitions_in(text, source):
            key = (definition.name, definition.long_form)
            how = str(INTRODUCED if definition.introduced else DEFINED)
            if key not in rows or how > rows[key][4]:
                long_key = fold(definition.long_form)
                rows[key] = (definition.name, definition.name.lower(), definition.long_form,
                             long_key, how, source)  # fmt: skip
            short = initialism(definition.name) if definition.introduced else None
            if short is not None and (short, definition.name) not in rows:
                rows[(short, definition.name)] = (short, short.lower(), definition.name,
                                                  fold(definition.name), how, source)  # fmt: skip
    used = names_used([title, *(text for _, text in texts)])
    result = [(*row, str(used.get(row[0], 0))) for row in rows.values()]
    defined = {name for name, _ in rows}
    result += [
        (name, name.lower(), "", "", str(USED), "text", str(count))
        for name, count in used.items()
        if name not in defined
    ]
    return result


def tokens(text: str) -> list[str]:
    """The tokens of `text` that could be names, in order, case kept."""
    return list(_TOKEN_RE.findall(text))
