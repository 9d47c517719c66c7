"""Questions that ask what a name means, and the source sentences that define it.

A question such as "What does FiD stand for?", "What is FiD short for?", "what
is ZeRO" or "define retrieval-augmented generation" names the term it asks about. A sentence
defines a term when the text says so: the long form beside its acronym
("Fusion-in-Decoder (FiD)", "FiD (Fusion-in-Decoder)"), the term as the
subject of "is", "refers to" or "stands for", or the term introduced ("We
propose RETRO, a ..."; "a method called X"). Nothing here knows any term: the
patterns are about how definitions are written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ingest.index.names.mining import QUOTES, initialism, names_given

_ASKS = (
    re.compile(r"^what (?:does|do|did) (?P<term>.+?) (?:stand|stands) for\b", re.IGNORECASE),
    re.compile(
        r"^what (?:is|are|'s) (?P<term>.+?) (?:short|an abbreviation|an acronym) for\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"^what (?:is|are|'s) (?:the )?(?:meaning|definition|full form|long form|expansion|"
        r"full name) of (?P<term>.+)$",
        re.IGNORECASE,
    ),
    re.compile(r"^what (?:is|are) meant by (?P<term>.+)$", re.IGNORECASE),
    re.compile(r"^(?:define|definition of|meaning of|expand) (?P<term>.+)$", re.IGNORECASE),
    re.compile(r"^(?P<term>.+?) (?:stands for|meaning|definition)$", re.IGNORECASE),
    re.compile(r"^(?:what|who) (?:is|are|'s|was) (?:an? |the )?(?P<term>.+)$", re.IGNORECASE),
)
# A "what is ..." question that asks about something other than the thing itself.
# A clause that says where to look before the question proper: "In the InstructGPT paper,
# what does RLHF stand for?", "According to Reptile's authors, what is FOMAML?".
_WHERE = re.compile(r"^(?:in|according to|within|for)\b[^,?]{1,80},\s*", re.IGNORECASE)
_NOT_A_TERM = re.compile(
    r"(?<![\w-])(?:of|in|for|by|with|between|used|when|does|do|did|how|why|which|between|than|"
    r"difference|role|purpose|main|best|used|trained|proposed|reported|achieved)(?![\w-])",
    re.IGNORECASE,
)
_MAX_TERM_WORDS = 5
# Capitalised words that may stand before a name without being part of it.
_OPENERS = frozenset({"the", "a", "an", "our", "this", "its", "their", "we", "in", "with"})
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Verbs by which a sentence says what its subject is.
_COPULA = r"(?:is|are|was|stands for|refers to|denotes|means|describes|is defined as)"
# Verbs by which a paper introduces a name.
_INTRODUCE = (
    r"(?:propose|introduce|present|develop|design|call|name|dub|term|coin|refer to)(?:s|d|ed)?"
)


@dataclass(frozen=True)
class Definition:
    """How strongly a sentence defines the asked term, and the long form it gives, if any."""

    strength: int  # 3: the long form of an acronym; 2: said what it is; 0: none
    long_form: str = ""


# The kind of thing a name is, as a question may write after it ("the Adam optimizer").
_KIND = re.compile(
    r"(?:optimi[sz]ers?|models?|methods?|algorithms?|architectures?|frameworks?|datasets?"
    r"|benchmarks?|papers?|approach(?:es)?|systems?|networks?|techniques?|libraries|library)"
)


def asked_term(question: str) -> str:
    """The term a "what is / what does X stand for / define X" question asks about, as
    printed; "" for any other question."""
    text = _WHERE.sub("", " ".join(question.strip().rstrip("?!. ").split()))
    for pattern in _ASKS:
        match = pattern.match(text)
        if match is None:
            continue
        term = match.group("term").strip(" \"'\u201c\u201d\u2018\u2019`")
        term = re.sub(r"^(?:an?|the)\s+", "", term, flags=re.IGNORECASE)
        stands_for = "stand" in pattern.pattern or "short" in pattern.pattern
        too_long = len(term.split()) > _MAX_TERM_WORDS
        if term and not too_long and (stands_for or not _NOT_A_TERM.search(term)):
            return _without_kind(term)
        return ""
    return ""


def _without_kind(term: str) -> str:
    """A capitalised name without the kind of thing it is: "Adam optimizer" asks about Adam,
    "the OPT models" about OPT; "language model" stays as it is. A long form with its
    name in parentheses asks about the name: "retrieval-augmented generation (RAG)"."""
    named = re.fullmatch(r"[^()]+\(\s*([^()\s]+)\s*\)", term)
    if named and is_name(named.group(1)):
        return named.group(1)
    words = term.split()
    if len(words) == 2 and words[0][:1].isupper() and _KIND.fullmatch(words[1]):
        return words[0]
    return term


def spells(acronym: str, phrase: str) -> bool:
    """Whether `phrase` is a long form whose initials spell `acronym` ("Fusion-in-Decoder"
    for "FiD"); only a name (`is_name`) is spelled."""
    return is_name(acronym) and " " not in acronym and _initials_match(acronym, phrase)


def _initials_match(acronym: str, phrase: str) -> bool:
    """Whether the letters of `acronym` can be read, in order, from the words of
    `phrase`: each word gives its first letter and maybe more of its letters, except
    short lower-case words ("of", "from"), which may give none; the first word gives
    the first letter."""
    parts = [p for p in re.split(r"[\s\u2010-\u2015-]+", phrase) if p]
    for letters in _letter_readings(acronym):
        if not letters or not parts or len(parts) > len(letters) + 3:
            continue
        if parts[0][:1].lower() == letters[0] and _read(letters, parts):
            return True
    return False


def _letter_readings(acronym: str) -> list[list[str]]:
    """The letters an acronym is read as: as printed, and with a letter's count written
    as a digit after it ("S2ORC": Semantic Scholar Open Research Corpus)."""
    letters = [c.lower() for c in acronym if c.isalnum()]
    counted: list[str] = []
    for index, char in enumerate(letters):
        if char in "234" and index and letters[index - 1].isalpha():
            counted += [letters[index - 1]] * (int(char) - 1)
        else:
            counted.append(char)
    return [letters, counted] if counted != letters else [letters]


def _read(letters: list[str], parts: list[str]) -> bool:
    if not parts:
        return not letters
    head, rest = parts[0], parts[1:]
    if head.islower() and len(head) <= 4 and _read(letters, rest):
        return True  # a function word that gives no letter
    if not letters or head[:1].lower() != letters[0]:
        return False
    inner = head[1:].lower()
    return any(
        _in_order(letters[1:taken], inner) and _read(letters[taken:], rest)
        for taken in range(len(letters), 0, -1)
    )


def _in_order(letters: list[str], text: str) -> bool:
    position = 0
    for letter in letters:
        position = text.find(letter, position)
        if position < 0:
            return False
        position += 1
    return True


def long_form_before(sentence: str, acronym: str, flags: int = 0) -> str:
    """The long form printed just before "(acronym)", as in "Zero Redundancy Optimizer
    (ZeRO)", or ""."""
    for match in re.finditer(rf"\(\s*{re.escape(acronym)}\s*[),;]", sentence, flags):
        before = sentence[: match.start()].rstrip()
        # A long form set in quotes is read without them: "the \u2018Semantic Alignment
        # Network\u2019 (SAN)".
        quoted = (t.strip(QUOTES) for t in re.findall(r"[^\s(),;:]+", before))
        tokens = [t for t in quoted if t]
        for count in range(1, min(len(tokens), len(acronym) + 2) + 1):
            phrase = " ".join(tokens[-count:])
            if _initials_match(acronym, phrase):
                return phrase
    return ""


def long_form_after(sentence: str, acronym: str, flags: int = 0) -> str:
    """The long form printed in parentheses just after the acronym, as in "FiD
    (Fusion-in-Decoder)", or ""."""
    match = re.search(rf"\b{re.escape(acronym)}\s*\(([^()]{{3,80}})\)", sentence, flags)
    if match is None:
        return ""
    phrase = match.group(1).strip()
    return phrase if _initials_match(acronym, phrase) else ""


def long_form_in(sentence: str, acronym: str) -> str:
    """The long form `sentence` gives for `acronym` (matched in its case when the case
    carries meaning), or ""."""
    if " " in acronym or not 1 < len(acronym) <= 12:
        return ""
    # A mixed-case name is matched in its case; capitals may be printed as small caps.
    mixed = is_name(acronym) and not acronym.isupper()
    flags = 0 if mixed else re.IGNORECASE
    return (
        long_form_before(sentence, acronym, flags)
        or long_form_after(sentence, acronym, flags)
        or long_form_apposed(sentence, acronym, flags)
    )


def long_form_apposed(sentence: str, acronym: str, flags: int = 0) -> str:
    """The long form set beside the acronym after a comma or a colon, in capitals, as in
    "we introduce S2ORC, the Semantic Scholar Open Research Corpus" or a title's "S2ORC:
    The Semantic Scholar Open Research Corpus", or ""."""
    for match in re.finditer(
        rf"(?<!\w){re.escape(acronym)}\s*[,:]\s*(?:the|a|an)?\s*", sentence, flags
    ):
        words = re.findall(r"[\w-]+", sentence[match.end() : match.end() + 120])
        capitalised = []
        for word in words:
            if not (word[:1].isupper() or word in ("of", "for", "and", "in", "on", "to")):
                break
            capitalised.append(word)
        for count in range(len(capitalised), 1, -1):
            phrase = " ".join(capitalised[:count])
            if capitalised[count - 1][:1].isupper() and _initials_match(acronym, phrase):
                return phrase
    return ""


def long_form_of(acronym: str, texts: Iterable[str]) -> str:
    """The first long form that one of `texts` gives for `acronym`, or ""."""
    return next((form for text in texts if (form := long_form_in(text, acronym))), "")


def _mentions(sentence: str, term: str) -> re.Match[str] | None:
    """Where `sentence` prints `term`; words of a term may be printed joined or hyphenated
    ("flash attention" as "FlashAttention" or "Flash-Attention")."""
    if is_name(term):
        return find_name(sentence, term)
    pattern = r"[\s-]?".join(re.escape(w) for w in term.split())
    return re.search(rf"(?<![\w-]){pattern}(?![\w-])", sentence, re.IGNORECASE)


def find_name(sentence: str, name: str) -> re.Match[str] | None:
    """Where `sentence` prints `name` (or its plural) as a name: in its case, or, for an
    all-capital name, capitalised ("Retro" for "RETRO"); never as the common word
    ("zero" is not "ZeRO") nor as another name ("FID" is not "FiD")."""
    # A name may be part of a compound name: "ZeRO-DP", "VeriFact-CoT".
    pattern = rf"(?<!\w){re.escape(name)}(?:e?s)?(?!\w)"
    for match in re.finditer(pattern, sentence, re.IGNORECASE):
        printed = match.group(0)
        if printed.startswith(name):
            return match
        if name.isupper() and printed[:1].isupper() and printed[1:].islower():
            return match
    return None


def is_name(term: str) -> bool:
    """A term whose case carries meaning: an acronym or a mixed-case name ("ZeRO")."""
    return any(c.isupper() for c in term[1:]) or (term.isupper() and len(term) > 1)


def defines(sentence: str, term: str) -> Definition:
    """How `sentence` defines `term` (as the question prints it)."""
    if term.split(" ", 1)[0].lower() not in sentence.lower():
        # Neither printed nor given a long form here (both need its first word, in any
        # case): only a name the sentence gives it may still define it. Most sentences an
        # answer weighs are of this kind; the patterns below cost far more.
        return _named_as(sentence, term)
    long_form = long_form_in(sentence, term)
    if long_form:
        return Definition(3, long_form)
    mention = _mentions(sentence, term)
    if mention is None:
        return _named_as(sentence, term)
    escaped = re.escape(mention.group(0))
    acronym = re.search(rf"{escaped}\s*\(([A-Z][\w-]*[A-Z][\w-]*)\)", sentence)
    if acronym and _initials_match(acronym.group(1), term):
        return Definition(3, term)  # the question gave the long form: "Fusion-in-Decoder (FiD)"
    if _says_what_it_is(sentence, escaped, mention.start()) and not _ends_a_name(
        sentence[: mention.start()]
    ):
        return Definition(2)
    return Definition(0)


def _named_as(sentence: str, term: str) -> Definition:
    """ "we refer to it as Fusion-in-Decoder" names what "FiD" stands for, unprinted."""
    if not is_name(term):
        return Definition(0)
    named = [n for n in names_given(sentence) if initialism(n) == term]
    return Definition(3, named[0]) if named else Definition(0)


def _says_what_it_is(sentence: str, escaped: str, start: int) -> bool:
    near_start = len(_WORD.findall(sentence[:start])) <= 8
    aside = r"(?:\s*\([^)]{1,80}\))?(?:\s*,[^,]{1,80},)?"
    copula = re.search(rf"{escaped}{aside}\s+{_COPULA}\s+(?:an?|the|one|defined)\b", sentence)
    apposition = re.search(rf"{escaped}{aside}\s*[,:\u2014-]\s+(?:an?|the)\s", sentence)
    introduced = re.finditer(
        rf"\b{_INTRODUCE}\s+(?:(?:it|this|our|the|an?|new|novel)\s+)*"
        rf"(?:(?P<before>[\w-]+)\s+){{0,4}}?(?P<paren>\(?){escaped}",
        sentence,
        re.IGNORECASE,
    )
    # "We propose a new simple network architecture, the Transformer, based solely on ...":
    # what is introduced, then its name set off after it.
    named_after = re.search(
        rf"\b{_INTRODUCE}\s+(?:[\w-]+\s+){{0,6}}?[\w-]+,\s+(?:the|our)\s+{escaped}\s*[,(]",
        sentence,
        re.IGNORECASE,
    )
    return (
        bool((copula or apposition) and near_start)
        or any(m["paren"] or not _names_on(m["before"]) for m in introduced)
        or named_after is not None
    )


def _ends_a_name(before: str) -> bool:
    """Whether a mention, after the text `before` it, is the last word of a longer name
    ("Fast Quiet STaR, a more efficient framework" says what Fast Quiet STaR is)."""
    words = before.split()
    return len(words) > 1 and _names_on(words[-1]) and words[-1].lower() not in _OPENERS


def _names_on(word: str | None) -> bool:
    """Whether `word`, right before a name, is the start of a longer name: "we propose Fast
    Quiet STaR" introduces Fast Quiet STaR, not STaR."""
    return word is not None and word[:1].isupper()
