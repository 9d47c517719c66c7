"""Questions that set two papers side by side, answered paper by paper.

"Which has more parameters, OPT-175B or PaLM?", "Do DPR and REALM take their
Wikipedia text from the same snapshot?", "Does the base Transformer of Attention
Is All You Need have more encoder layers than BERT-base?": each side is read as a
paper (a name the question's names give a paper, a title, or what a title puts
before its colon), the question is asked of each paper's own passages, and the
answer states what each paper says, with its citation, one paragraph per paper.
A search over the whole library would find one of the two, or neither: the
passages that state a paper's size rarely name the other paper.

Questions about a record (which came first, who wrote them) are the records'
(`chat/rag/records`); these are about the papers' content.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from chat.rag.answer.stating import stating_sentence
from chat.rag.extractive.answerer import compose, quoted_text
from chat.rag.extractive.notation import notation
from chat.rag.names.matches import Recognised
from chat.rag.records.questions import asked_field, paper_titled, side_paper
from chat.rag.retrieval.retrieved import Retrieved
from chat.rag.sources import Source
from ingest.index.catalog import Catalog

# Each paper's passages the answer is made from: the sentence that states a paper's number
# is often past its sixth (PaLM's 780 billion tokens, CiteSee's "lab study (N=10)").
PER_SIDE_SOURCES = 12
# The passages a count's own search adds ("BERT-large (L=24, ...)" after the passage that
# says L is the number of layers).
PER_SIDE_STATED = 4
PER_SIDE_SENTENCES = 3  # each paper's sentences an extractive answer quotes
_MOST_SIDE_WORDS = 12  # a side longer than this is a clause, not a paper's name
# The words of a side tried as a paper's name on their own, at most (each is a catalog
# lookup: a question of a thousand capitalised words costs no more than a short one).
_MOST_NAME_TRIES = 6
_MOST_RUN_WORDS = 4  # a run of capitalised words longer than this is no name
_TITLE_WORDS = 3  # a side's name of this many words is a title, not a name the papers print

# The words that say how two papers compare, not what: left out of what each is asked.
_COMPARING = re.compile(
    r"\b(?:or|and|than|more|fewer|less|larger|bigger|smaller|higher|lower|better|worse"
    r"|greater|same|different|both|the two)\b",
    re.IGNORECASE,
)
# Comparisons of counts, and of sizes or scores: each side is asked for its number.
_COUNTS = re.compile(r"\b(?:more|fewer|less|same number)\b", re.IGNORECASE)
_MOST_COUNTED = 2
# Words that end what a comparison counts ("more tokens than", "more GPUs, the ...").
_NOT_COUNTED = frozenset(
    {"than", "on", "in", "of", "for", "at", "by", "with", "to", "from", "do", "does", "did",
     "use", "uses", "used", "have", "has", "had", "or", "and", "the", "a", "an"}
)  # fmt: skip
_SIZES = re.compile(
    r"\b(?:larger|bigger|smaller|greater|higher|lower|longer|shorter|same size)\b", re.I
)
# A side's words that say nothing of which of its paper's models it is.
_NOT_KEPT = frozenset({"the", "a", "an", "of", "in", "on", "for", "to", "its", "model", "models"})
_OF_MODELS = re.compile(r"\bmodels?\b", re.IGNORECASE)
_HOW_MANY = "How many "
# The words that open a question, left out when it is asked again as "how many".
_ASKING = re.compile(
    r"^(?:(?:which|what|who|was|were|is|are|do|does|did|has|have|had|the|a|an)\s+)+", re.I
)
# Capitalised words that open a side without naming anything.
_NOT_NAMES = frozenset({"the", "a", "an", "its", "their", "which", "what", "is", "are", "do"})
# "..., X or Y?" and "Was X or Y ...?": the words either side of "or".
_EITHER = re.compile(
    r"(?:,|^(?:was|is|did|does|were|are|has|have|can|could)\b)\s*(?P<first>[^,?]+?)\s+or\s+"
    r"(?P<second>[^,?]+?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "Do X and Y use the same ...?", "Are X and Y the same size?".
_BOTH = re.compile(
    r"^(?:do|did|does|are|were|is|was|have|has|can)\s+(?P<first>.+?)\s+and\s+(?P<second>.+?)"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# "Does X have more ... than Y?", "Is X bigger than Y?".
_THAN = re.compile(
    r"^(?:do|did|does|are|were|is|was|has|have|can)\s+(?P<first>.+?)\s+than\s+"
    r"(?P<second>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Side:
    """One paper a question compares: how to call it in the answer, and the question asked
    of its passages alone."""

    paper: str
    label: str
    question: str  # what its passages are asked
    search: str = ""  # what its passages are searched for: the question less the other paper
    counted: str = ""  # what a comparison of counts counts ("encoder layers")
    kept: tuple[str, ...] = ()  # the side's words that say which of its models ("large")


def compared_sides(
    question: str, catalog: Catalog, recognise: Callable[[str], Recognised]
) -> tuple[Side, Side] | None:
    """The two papers a content question compares, each with the question to ask of it;
    None unless both sides read as papers, different ones, and the question asks for no
    record field. `recognise` reads the question's names, only once it reads as a
    comparison, and a name written on its own ("RAG" of "RAG-Sequence")."""
    if asked_field(question) is not None:
        return None
    names: Recognised | None = None
    for pattern in (_EITHER, _THAN, _BOTH):
        match = pattern.search(question)
        if match is None:
            continue
        names = names if names is not None else recognise(question)
        reader = _SideReader(catalog, names, recognise)
        first = reader.read(match["first"], whole=pattern is not _THAN)
        second = reader.read(match["second"], whole=pattern is not _BOTH)
        if first is None or second is None or first.paper == second.paper:
            continue
        phrases = (_phrase(match["first"], first), _phrase(match["second"], second))
        return (
            _side(question, first, own=phrases[0], other=phrases[1]),
            _side(question, second, own=phrases[1], other=phrases[0]),
        )
    return None


@dataclass(frozen=True)
class _Read:
    paper: str
    label: str
    written: str  # the words of the side that name the paper


def _phrase(side: str, read: _Read) -> str:
    """The words of a side that say which paper and which of its models: all of them
    ("RETRO's retrieval database"), or of a side that runs on into what is compared, up to
    the end of the word naming the paper ("BERT-large" of "BERT-large use the same ...",
    "the big Transformer of Attention Is All You Need" of "... have more layers"), or of
    the model it names ("the largest RWKV model")."""
    if not _COMPARING.search(side):
        return side
    named = re.search(rf"{re.escape(read.written)}[\w-]*", side, flags=re.IGNORECASE)
    if named is None:
        return read.written
    tail = re.match(r"(?:\s+\w+){0,2}?\s+models?\b", side[named.end() :])
    return side[: named.end() + (tail.end() if tail else 0)].strip()


def _side(question: str, read: _Read, *, own: str, other: str) -> Side:
    """One side: its question is the comparison without the other side's words, its own
    kept ("How many parameters the largest RWKV model?"), less its paper's title."""
    text = _without_words(question, other)
    if len(read.written.split()) >= _TITLE_WORDS:
        text, own = _cut_title(text, read.written), _cut_title(own, read.written)
    asked = _asked_of_each(question, _without(text))
    counts = _COUNTS.search(question)
    counted = _counted_after(question[counts.end() :]) if counts else ""
    if not counts and _SIZES.search(question) and _OF_MODELS.search(question):
        counted = "parameters"
    # A hyphenated word's head names the paper, the rest its model ("BERT-base").
    named = {w.split("-")[0].lower() for w in read.written.split()}
    kept = [
        w.lower()
        for w in re.split(r"[\s-]+", re.sub(r"(?:'s|\u2019s)\b", "", own))
        if w and w.lower() not in named | _NOT_KEPT and not _COMPARING.fullmatch(w)
    ]
    return Side(
        read.paper, read.label, asked or read.label, _less(question, other), counted, tuple(kept)
    )


def _without_words(text: str, words: str) -> str:
    return re.sub(rf"(?<!\w){re.escape(words)}(?:'s|\u2019s)?(?!\w)", " ", text, flags=re.I)


def _cut_title(text: str, title: str) -> str:
    """`text` without a title and the word that attaches it ("of Attention Is All You
    Need"): its words would be asked for as though they were the question's."""
    return re.sub(
        rf"(?:\b(?:of|in|from|by)\s+)?{re.escape(title)}(?:'s|\u2019s)?", " ", text, flags=re.I
    )


def _without(text: str) -> str:
    """The question's words that compare nothing: what is asked of a side ("Which has
    vocabulary PaLM" of "Which has the larger vocabulary, PaLM or BERT?" less BERT)."""
    text = _COMPARING.sub(" ", text)
    return " ".join(re.sub(r"[,?!]", " ", text).split())


def _less(question: str, other: str) -> str:
    """The question without the other side's words, and "or", "and", "than"."""
    text = _without_words(question, other)
    return " ".join(re.sub(r"\b(?:or|and|than)\b|[,?!]", " ", text, flags=re.I).split())


def _asked_of_each(question: str, aspect: str) -> str:
    """The question each paper is asked: a comparison of counts asks each "how many"
    ("Was PaLM or OPT pre-trained on more tokens?": how many tokens each), of sizes or
    scores "how large"; any other asks what is compared ("the same snapshot")."""
    core = _ASKING.sub("", aspect).strip()
    if not core:
        return aspect
    if counts := _COUNTS.search(question):
        # What is counted first, as "how many" reads it: "How many tokens pre-trained on?"
        counted = _counted_after(question[counts.end() :])
        rest = " ".join(w for w in core.split() if w.lower() not in counted.lower().split())
        rest = re.sub(r"\b(?:the\s+)?number\s+of\b", " ", rest, flags=re.IGNORECASE)
        return _HOW_MANY + " ".join(f"{counted} {rest}".split()) + "?"
    if _SIZES.search(question) and _OF_MODELS.search(question):
        # A model's size is its number of parameters: "How many parameters largest OPT model?"
        rest = re.sub(r"\b(?:the\s+)?size\b", " ", core, flags=re.IGNORECASE)
        return _HOW_MANY + " ".join(f"parameters {rest}".split()) + "?"
    if _SIZES.search(question):
        return f"How large is {core}?"
    return aspect


def _counted_after(text: str) -> str:
    """The words a comparison of counts counts, after its "more" ("more encoder layers
    than", "the same number of attention heads"): up to two, to the first word that is
    not part of them."""
    words = re.sub(r"^\s*(?:of\s+)?", "", text).split()
    counted: list[str] = []
    for word in words[:_MOST_COUNTED]:
        bare = word.strip(",?.!")
        if not bare or bare.lower() in _NOT_COUNTED:
            break
        counted.append(bare)
        if bare != word:
            break
    return " ".join(counted)


class _SideReader:
    """Reads one side of a comparison as a paper."""

    def __init__(
        self, catalog: Catalog, names: Recognised, recognise: Callable[[str], Recognised]
    ) -> None:
        self.catalog = catalog
        self.names = names
        self.recognise = recognise

    def read(self, written: str, *, whole: bool) -> _Read | None:
        """The paper one side names: a title written in its case within it; the side as a
        whole name or title (`whole`); the first of the question's names it holds that
        belongs to a paper; else the first of its words that reads as a name or a title's
        head on its own ("OPT" of "OPT-175B", "Paper Plain" of "Paper Plain's study")."""
        side = re.sub(r"(?:'s|\u2019s)\b", "", written).strip()
        titled = paper_titled(side, self.catalog)
        if titled is not None and (paper := self.catalog.get_paper(titled)) is not None:
            return _Read(titled, paper.title, paper.title)
        if whole and len(side.split()) <= _MOST_SIDE_WORDS:
            found = side_paper(side, self.catalog, self.names)
            if found is not None:
                label = re.sub(r"^(?:the|a|an)\s+", "", side, flags=re.IGNORECASE)
                return _Read(found, label, label)
        # As the question writes it: "attention" in "use the same number of attention
        # heads" is not the name "Attention" read in a title.
        held = [
            (at.start(), name)
            for name in self.names.matches
            if name.own_papers and (at := re.search(rf"(?<!\w){re.escape(name.asked)}(?!\w)", side))
        ]
        if held:
            name = min(held, key=lambda pair: pair[0])[1]
            # Called as the side writes it, with its model's size ("ViT-Huge", "BERT-large").
            return _Read(name.own_papers[0], _word_of(name.asked, side), name.asked)
        for words in _name_like(side)[:_MOST_NAME_TRIES]:
            found = side_paper(words, self.catalog, self.names) or self._named(words)
            if found is not None:
                return _Read(found, _word_of(words, side), words)
        return None

    def _named(self, words: str) -> str | None:
        for match in self.recognise(words).matches:
            if match.own_papers and match.asked.lower() == words.lower():
                return match.own_papers[0]
        return None


def _word_of(name: str, side: str) -> str:
    """The side's whole word holding a name: the name with its model's size ("ViT-Huge",
    "BERT-large", "OPT-175B")."""
    word = re.search(rf"[\w-]*{re.escape(name)}[\w-]*", side)
    return word[0] if word else name


def _name_like(side: str) -> list[str]:
    """The side's words that may name a paper on their own, in order: runs of capitalised
    words ("Paper Plain"), each such word, and a hyphenated word's first part ("OPT" of
    "OPT-175B")."""
    words = [w.strip(".,;:()") for w in side.split()]
    found: list[str] = []
    run: list[str] = []
    for word in [*words, ""]:
        if word[:1].isupper():
            run.append(word)
            continue
        if 1 < len(run) <= _MOST_RUN_WORDS:
            found.append(" ".join(run))
        for one in run:
            found.append(one)
            if "-" in one and one.split("-")[0][:1].isupper():
                found.append(one.split("-")[0])
        run = []
    return list(dict.fromkeys(w for w in found if w and w.lower() not in _NOT_NAMES))


def stated_search(side: Side, found: Sequence[Source]) -> str:
    """What a side's passages are searched for again when it is asked for a count: the
    paper's notation for it next to the side's model ("BERT-large L="), else the number of
    it ("number of tokens PaLM pre-trained on"); empty for any other question."""
    if not side.counted or not side.question.startswith(_HOW_MANY):
        return ""
    symbols = notation(side.counted, [source.text for source in found])
    if symbols:
        return " ".join([side.label, *(f"{symbol}=" for symbol in sorted(symbols))])
    if side.counted == "parameters":  # listed with the paper's other models' sizes
        return f"{side.label} model sizes parameters"
    return f"number of {side.question.removeprefix(_HOW_MANY).rstrip('?')}"


def with_stated(found: Retrieved, stated: Retrieved) -> Retrieved:
    """A side's retrieval with the first passages its count's search found that it had
    not, after its own."""
    held = {source.chunk_id for source in found.sources}
    more = [s for s in stated.sources if s.chunk_id not in held][:PER_SIDE_STATED]
    timings = {k: v + stated.timings.get(k, 0.0) for k, v in found.timings.items()}
    return replace(found, sources=(*found.sources[:PER_SIDE_SOURCES], *more), timings=timings)


def side_by_side(sides: Sequence[Side], retrievals: Sequence[Retrieved]) -> Retrieved:
    """One retrieval made of each side's: their first passages taken in turn, numbered
    again, every candidate kept; timed as the sum of theirs."""
    taken: list[Source] = []
    for rank in range(PER_SIDE_SOURCES + PER_SIDE_STATED):
        for retrieved in retrievals:
            if rank < len(retrieved.sources):
                taken.append(retrieved.sources[rank])
    sources = tuple(replace(s, n=n) for n, s in enumerate(taken, start=1))
    idf: dict[str, float] = {}
    for retrieved in retrievals:
        for term, weight in retrieved.question_idf.items():
            idf[term] = max(idf.get(term, 0.0), weight)
    timings: dict[str, float] = {}
    for retrieved in retrievals:
        for key, value in retrieved.timings.items():
            timings[key] = timings.get(key, 0.0) + value
    return Retrieved(
        sources,
        tuple(c for r in retrievals for c in r.ranked),
        tuple(side.paper for side in sides),
        timings,
        idf,
        Recognised(),
        tuple(dict.fromkeys(t for r in retrievals for t in r.scholarly)),
    )


def side_by_side_answer(sides: Sequence[Side], retrievals: Sequence[Retrieved]) -> list[str]:
    """The extractive answer: for each paper, a paragraph opening with its name and
    quoting what its own passages say to the question asked of it; a paper none of whose
    sentences answers says so."""
    pieces: list[str] = []
    for index, (side, retrieved) in enumerate(zip(sides, retrievals, strict=True)):
        own = retrieved.sources[: PER_SIDE_SOURCES + PER_SIDE_STATED]
        sentences = compose(side.question, own, max_sentences=PER_SIDE_SENTENCES).sentences
        stating = stating_sentence(side.counted, side.kept, side.label, own)
        if stating is not None:
            # The sentence that states the side's number leads, whatever else shares words.
            rest = [s for s in sentences if s.text != stating.text]
            sentences = (stating, *rest[: PER_SIDE_SENTENCES - 1])
        gap = "\n\n" if index < len(sides) - 1 else ""
        if not sentences:
            pieces.append(f"{side.label}: nothing in its passages answers this.{gap}")
            continue
        quoted = " ".join(f"{quoted_text(s)} {s.source.citation}" for s in sentences)
        pieces.append(f"{side.label}: {quoted}{gap}")
    return pieces
