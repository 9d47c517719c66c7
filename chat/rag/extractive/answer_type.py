"""What kind of answer a question asks for, what it asks it about, and whether a sentence
holds such an answer.

"How many layers does BERT-large have?" asks for a number about BERT-large;
"Which datasets is DPR evaluated on?" for dataset names about DPR; "What does
FiD stand for?" for a long form. A sentence that prints the entity asked about
and a value of the asked kind answers better than one that only shares words
with the question. Entities are matched as papers print them: "BERT-large" is
also "BERTLARGE" and "BERT large" (small capitals lose the hyphen).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from chat.rag.extractive.nouns import asked_noun, asks_which, of_form
from chat.rag.extractive.question import BYLINE
from chat.rag.extractive.sentences import Sentence
from chat.rag.extractive.stated import SETTINGS, asked_setting, counted_symbols, states
from chat.rag.names.definitions import defines, find_name, is_name
from ingest.index.lexical.analysis import terms

# A paper that gives an entity's long form or says what it is (`defines`) is its own.
_OWN_STRENGTH = 2

NUMBER = "number"
SCORE = "score"
DATASET = "dataset"
NAME = "name"
PERSON = "person"
DATE = "date"
LONG_FORM = "long form"
DEFINITION = "definition"

# Read in this order: "what exact match score" is a score before it is a number.
_KINDS = (
    (LONG_FORM, r"\b(?:stands?|short) for\b|\babbreviat|\bacronym\b|\bfull (?:form|name)\b"),
    (
        SCORE,
        r"\b(?:accuracy|exact match|em score|f1|bleu|rouge|score|perplexity|top-\d+|recall"
        r"|precision|error rate|auc|map|mrr|ndcg|win rate)\b",
    ),
    (DATE, r"^(?:when|in what year|what year)\b|\b(?:which|what) year\b"),
    (PERSON, r"^who\b|\bwhich (?:authors?|people|researchers?)\b|\bwho (?:proposed|wrote)\b"),
    (
        NUMBER,
        r"\bhow (?:many|much|large|big|long|fast|often|far|small|high|low|deep|wide)\b"
        r"|\bwhat (?:is|was|are) the (?:[\w-]+ ){0,2}?(?:number|size|dimension|values?|default"
        r"|rate|batch size|learning rate|hidden size)\b|\b(?:learning rate|batch size|hidden size"
        r"|dimension(?:s|ality)?|number of)\b"
        r"|\bwhat (?:share|fraction|proportion|percentage|portion)\b"
        r"|\b(?:the|its|their) (?:[\w-]+ )?count\b"
        # "What temperature do they use?": a setting's value, the noun just before the verb.
        rf"|\bwhat (?:[\w-]+ ){{0,3}}?(?:{SETTINGS})s?\s+(?:do|does|did|is|are|was|were|of|for)\b",
    ),
    (DATASET, r"\b(?:which|what) (?:\w+ )?(?:datasets?|benchmarks?|corpora|corpus|tasks?)\b"),
    (
        NAME,
        r"\b(?:which|what) (?:\w+ )?(?:model|method|architecture|network|optimizer|encoder"
        r"|decoder|retriever|backbone|algorithm|system|approach|generator|reader|tokenizer"
        r"|classifier|detector|reranker|embedder)s?\b"
        r"|\b(?:built|based) (?:on|upon)\b|\binitiali[sz]ed (?:from|with)\b"
        r"|\b(?:called|named)\W*$|\bwhat (?:is|are|was|were) the names? of\b",
    ),
    (DEFINITION, r"^(?:what (?:is|are)|define|explain)\b"),
)
_PATTERNS = tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _KINDS)
# Words that open a question or ask, not names of what it is about.
_NOT_ENTITIES = frozenset(
    ["what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do",
     "did", "is", "are", "was", "were", "the", "a", "an", "in", "on", "of", "for", "and",
     "or", "to", "by", "with", "from"]
)  # fmt: skip
_JOINER = r"[-_\s]?"
_TOKEN = re.compile(r"[^\s,;:!?()\"']+")
_POSSESSIVE = re.compile(r"['\u2019]s?$")
_REFERENCE = re.compile(
    r"\[[\d,\s\u2013-]+\]|\([^()]*(?:\bet al\b|[\s,](?:19|20)\d\d[a-z]?)[^()]*\)"
)
# A value, not a subscript ("β 1", "x 2"): no single letter and space before it.
_VALUE = re.compile(
    r"(?<![\w.])(?<!(?<!\w)[^\W\d_]\s)[-+\u2212~\u2248]?\d+(?:[.,]\d+)*(?:\s?[\u00d7x]\s?10[-\u2212]?\d+)?"
    r"(?:\s?(?:%|[KMBT]\b|k\b|billion|million|thousand|[A-Za-z]{1,3}\b))?"
)
_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred"
    r"|thousand|million|billion|dozen)s?\b",
    re.IGNORECASE,
)
_POWER = re.compile(r"\b10\s?[-\u2212]\s?\d\b|\b\de[-\u2212]\d\b")
_SCORE_VALUE = re.compile(r"(?<![\w.])\d{1,3}[.,]\d{1,2}\b|\b\d{1,3}(?:\.\d+)?\s?%")
_YEAR = re.compile(r"\b(?:19[5-9]\d|20[0-3]\d)\b")
_DATASET_WORD = re.compile(r"\b(?:datasets?|benchmarks?|corpora|corpus)\b", re.IGNORECASE)
_LISTED = 2  # names from which a sentence lists datasets
_COUNTED = re.compile(r"\bhow many\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)
# What a study counts, whose number papers print as its sample size: "a lab study (N=10)".
_SAMPLED = frozenset(terms("participants users subjects people respondents workers raters"))
_SAMPLE_SIZE = frozenset({"N", "n"})
_PERSON = re.compile(r"\b[A-Z][a-z]+(?: [A-Z]\.)? [A-Z][a-z]+\b(?: et al\.?)?|\bet al\b")
# Words that set a name off after its noun: "index, i.e., the FM-Index", "a library called".
_NAMING = re.compile(r"\b(?:i\.e\.|e\.g\.|called|named|such as|namely)|[,:(]\s", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_CAPITALISED = re.compile(r"(?<![\w-])[A-Z][\w-]*[A-Z0-9][\w-]*|(?<=[a-z,] )[A-Z][a-z]{2,}")


@dataclass(frozen=True)
class AnswerType:
    """The kind of answer a question asks for ("" when it asks for none in particular),
    the entities it asks about as printed, and, once read against the sources
    (`in_sources`), the papers that introduce or define one of them: such a paper
    speaks of it as "our model", so each of its sentences is about it."""

    kind: str
    entities: tuple[str, ...]
    own_papers: frozenset[str] = frozenset()
    long_forms: tuple[str, ...] = ()
    counted: frozenset[str] = frozenset()  # the terms of what "how many" counts
    # Symbols the sources define as the number of what is counted ("L" for layers).
    symbols: frozenset[str] = frozenset()
    # The terms of the noun "which ..." asks a name of ("which library": "librari").
    noun: frozenset[str] = frozenset()
    # The terms of the noun a question for a number asks the value of ("temperature").
    setting: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, question: str) -> AnswerType:
        counted = {t for m in _COUNTED.finditer(question) for t in terms(m.group(1))}
        # "Rahman et al.'s detection paper" says which paper; its sentences never print
        # the surname, and are not about another subject for that.
        entities = question_entities(BYLINE.sub(" ", question))
        question = of_form(question)  # "What is PaLM's vocabulary size?" asks a value
        kind = answer_kind(question)
        # "Which library ...?" asks a name; "What weight decay ...?" may ask a value.
        naming = kind in (NAME, DATASET) or (kind == "" and asks_which(question))
        noun = asked_noun(question) if naming else frozenset()
        setting = asked_setting(question) if kind == NUMBER else frozenset()
        return cls(kind, entities, counted=frozenset(counted), noun=noun, setting=setting)

    def in_sources(
        self,
        sentences: Sequence[Sentence],
        texts: Sequence[str] = (),
        named: Collection[str] = (),
    ) -> AnswerType:
        """This answer type with the papers of `sentences` that define an entity or that
        the question's recognised names are the own names of (`named`: "Vision
        Transformer" is ViT's paper, whose "the best model reaches 88.55%" never prints
        it), and the symbols that `texts` (the sources') define as what the question
        counts."""
        own = {s.source.id for s in sentences if s.source.id in named}
        forms: dict[str, str] = {}
        for s in sentences:
            for entity in self.entities:
                definition = defines(s.text, entity)
                if definition.strength >= _OWN_STRENGTH:
                    own.add(s.source.id)
                if definition.long_form and definition.long_form != entity:
                    forms.setdefault(entity, definition.long_form)
        symbols = {
            symbol
            for text in texts
            for symbol, noun in counted_symbols(text)
            if self.counted.intersection(terms(noun))
        }
        if self.counted & _SAMPLED:
            symbols |= _SAMPLE_SIZE
        return replace(
            self,
            own_papers=frozenset(own),
            long_forms=tuple(forms.values()),
            symbols=frozenset(symbols),
        )

    def counts(self, text: str) -> bool:
        """Whether `text` gives a value to a symbol of what is counted ("L=24")."""
        return any(re.search(rf"(?<!\w){re.escape(s)}\s?=\s?\d", text) for s in self.symbols)

    def forms(self) -> tuple[str, ...]:
        """The entities as printed and the long forms the sources give for them."""
        return (*self.entities, *self.long_forms)

    @property
    def wants_value(self) -> bool:
        """Whether it asks for a value that a sentence may print (not a definition)."""
        return self.kind not in ("", DEFINITION, LONG_FORM)

    def mentions(self, text: str) -> bool:
        """Whether `text` prints one of the entities asked about, or its long form."""
        return any(mentions_entity(text, entity) for entity in self.entities) or any(
            form.lower() in text.lower() for form in self.long_forms
        )

    def about(self, sentence: Sentence) -> bool:
        """Whether `sentence` prints an entity asked about, stands under a heading that
        does ("7.1 AdaMax"), or comes from a paper that defines one."""
        source = sentence.source
        heading = source.section if source.kind == "fulltext" and source.section else ""
        return (
            source.id in self.own_papers
            or self.mentions(sentence.text)
            or bool(heading and self.mentions(heading))
        )

    def holds(self, text: str) -> bool:
        """Whether `text` holds a value of the asked kind (besides the entities)."""
        return holds_value(text, self.kind, (*self.entities, *self.long_forms))


def answer_kind(question: str) -> str:
    """The kind of answer `question` asks for, one of the kinds above, or ""."""
    text = " ".join(question.strip().split())
    return next((kind for kind, pattern in _PATTERNS if pattern.search(text)), "")


def question_entities(question: str) -> tuple[str, ...]:
    """The names a question asks about: its acronyms and mixed-case names ("BERT-large",
    "FiD"), and capitalised words past its first ("Adam")."""
    found: list[str] = []
    for index, token in enumerate(_TOKEN.findall(question)):
        token = _POSSESSIVE.sub("", token.strip(".+*&#/"))
        if not token or token.lower() in _NOT_ENTITIES:
            continue
        named = is_name(token) or (any(c.isdigit() for c in token) and token[:1].isupper())
        capitalised = index > 0 and token[:1].isupper() and token[1:].islower() and len(token) > 2
        if named or capitalised:
            found.append(token)
    return tuple(dict.fromkeys(found))


def entity_pattern(entity: str) -> re.Pattern[str]:
    """How a paper may print `entity`: its parts joined by a hyphen, a space, an
    underscore or nothing, any case ("BERTLARGE", "BERT-large", "BERT_large")."""
    parts = [re.escape(p) for p in re.split(r"[-_\s]+", entity) if p]
    joined = _JOINER.join(parts)
    return re.compile(rf"(?<![\w-]){joined}(?:e?s)?(?![\w-])", re.IGNORECASE)


def mentions_entity(text: str, entity: str) -> bool:
    """Whether `text` prints `entity`: a single name in its case (`find_name`), a
    compound name in any of its printed forms (`entity_pattern`)."""
    if re.search(r"[-_\s]", entity):
        return entity_pattern(entity).search(text) is not None
    if is_name(entity):
        return find_name(text, entity) is not None
    return re.search(rf"(?<![\w-]){re.escape(entity)}(?![\w-])", text) is not None


def holds_value(text: str, kind: str, entities: tuple[str, ...] = ()) -> bool:
    """Whether `text` holds an answer of `kind` other than the entities' own letters and
    numbers ("T5" names a model; "BERT-large" asked about is not its own answer); its
    references ("[12]", "(Smith et al., 2020)") left out."""
    plain = _REFERENCE.sub(" ", text)
    for entity in entities:
        plain = entity_pattern(entity).sub(" ", plain)
    if kind == NUMBER:
        worded = _NUMBER_WORD.search(plain) or _POWER.search(plain)
        return bool(worded) or any(_is_value(plain, m) for m in _VALUE.finditer(plain))
    if kind == SCORE:
        return _SCORE_VALUE.search(plain) is not None
    if kind == DATE:
        return _YEAR.search(text) is not None
    if kind == PERSON:
        return _PERSON.search(text) is not None
    if kind == DATASET:
        # Datasets are named in lists ("NQ, TriviaQA and SQuAD") or as datasets.
        names = len(_CAPITALISED.findall(plain[1:]))
        return names >= _LISTED or (names > 0 and _DATASET_WORD.search(plain) is not None)
    if kind == NAME:
        return _CAPITALISED.search(plain[1:]) is not None
    return False


# How much more a sentence counts when it holds an answer of the asked kind: from a paper
# that defines the entity asked about, printing the entity (not at all when a paper that
# defines it is among the sources: that paper is the authority, and another paper printing
# the name uses it, "before feeding the inputs to the Transformer encoder"), or without the
# entity.
_OWN_AND_VALUE = 2.0
_ENTITY_AND_VALUE = 1.5
_ENTITY_BESIDE_OWN = 0.0
_VALUE_ONLY = 0.3
_ENTITY_ONLY = 0.2
# For a sentence that prints a name beside the noun "which ..." asks a name of ("the SCaNN
# library", "GPT-J as our base language model", "BM25 is a robust baseline").
_NAMED_NOUN = 1.0
_NOUN_GAP = 3  # words at most between the noun and the name
# For a sentence that prints the noun a question asks the value of beside a value ("at a
# temperature of 20"), unless the entity asked about has its own paper and it is not about it.
_STATED = 2.0
# What a sentence keeps of its score when it names something else than the entities a
# question names ("the last 4 layers of BERT" for BERT-large).
_OFF_ENTITY = 0.5


def favour_typed(scores: dict[Sentence, float], answer: AnswerType) -> dict[Sentence, float]:
    """`scores` raised for the sentences that hold an answer of the asked kind, most for
    those about the entity asked about (`AnswerType.about`), and lowered for those
    about none of the entities the question names; and raised for those that print a
    name beside the noun a "which ..." question asks a name of (`names_noun`)."""
    if not answer.wants_value:
        named = {s for s in scores if answer.noun and names_noun(s, answer)}
        return {s: v * (1 + _NAMED_NOUN) if s in named else v for s, v in scores.items()}
    return {s: value * _gain(s, answer) for s, value in scores.items()}


def _gain(sentence: Sentence, answer: AnswerType) -> float:
    gain = _typed_gain(sentence, answer)
    if answer.noun and names_noun(sentence, answer):
        return gain * (1 + _NAMED_NOUN)
    about = not answer.own_papers or answer.about(sentence)
    if answer.setting and about and states(sentence.text, answer.setting):
        return gain * (1 + _STATED)
    return gain


def _typed_gain(sentence: Sentence, answer: AnswerType) -> float:
    # A passage under a heading that names another method ("7.1 AdaMax" in the Adam paper)
    # is about that one: the paper's own values there are not the asked entity's.
    section = sentence.source.section
    elsewhere = _names_another(section) and not answer.mentions(section)
    own = sentence.source.id in answer.own_papers and not elsewhere
    named = own or answer.mentions(sentence.text)
    if answer.entities and not named and _names_another(sentence.text):
        return _OFF_ENTITY * (1 + _VALUE_ONLY * answer.holds(sentence.text))
    if not answer.holds(sentence.text):
        return 1 + _ENTITY_ONLY * named
    if own or answer.counts(sentence.text):
        return 1 + _OWN_AND_VALUE
    if named:
        return 1 + (_ENTITY_BESIDE_OWN if answer.own_papers else _ENTITY_AND_VALUE)
    return 1 + _VALUE_ONLY


def names_noun(sentence: Sentence, answer: AnswerType) -> bool:
    """Whether `sentence` prints a name, not one asked about, just before the noun `answer`
    asks a name of ("We use the SCaNN library", "BM25 is a robust baseline"), or after it
    set off as its name ("a substring index, i.e., the FM-Index")."""
    if answer.noun.isdisjoint(sentence.terms):
        return False
    tokens = sentence.text.split()
    names = [_POSSESSIVE.sub("", t.strip(".,;:()[]\"'")) for t in tokens]
    for index, token in enumerate(tokens):
        if answer.noun.isdisjoint(terms(token)):
            continue
        before = names[max(0, index - _NOUN_GAP) : index]
        after = names[index + 1 : index + 1 + _NOUN_GAP]
        linked = _NAMING.search(" ".join(tokens[index : index + _NOUN_GAP + 1])) is not None
        if any(_is_other_name(t, answer) for t in [*before, *(after if linked else ())]):
            return True
    return False


def _is_other_name(token: str, answer: AnswerType) -> bool:
    """A name marked by its case or digits ("SCaNN", "BM25", "GPT-J"; not "Weight" of "Weight
    Decay") that is no entity asked about."""
    if len(token) < 2 or not (is_name(token) or (token[:1].isupper() and _DIGIT.search(token))):
        return False
    return not any(mentions_entity(token, entity) for entity in answer.entities)


def _is_value(text: str, match: re.Match[str]) -> bool:
    """Whether a number reads as a value: more than one digit, a decimal or a unit, or a
    digit before a word ("4 layers"), not a formula's "1" in "(1 - b)"."""
    printed = match.group(0)
    if sum(c.isdigit() for c in printed) > 1 or not printed[-1].isdigit():
        return True
    return re.match(r"\s[^\W\d_]{3,}", text[match.end() :]) is not None


def _names_another(text: str) -> bool:
    """Whether `text` prints a name (an acronym or mixed-case name) past its first word."""
    tokens = _TOKEN.findall(text)[1:]
    return any(is_name(_POSSESSIVE.sub("", t.strip(".+*&#/"))) for t in tokens)
