"""What a comparison asks of each paper: its aspects, the defaults, their bounds, and what
each aspect's cell should hold.

A known aspect ("datasets", "main result", ...) has its own search text, its own
question for the sentence chooser (`chat/rag/extractive`: "Which datasets ...?" asks
for dataset names) and a cue a fitting cell shows: dataset names, a metric's name, a
number, an address of the code. Any other aspect is searched and asked as written,
and takes the sentence that best answers it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chat.rag.extractive.answer_type import DATASET, NUMBER, holds_value
from ingest.errors import PaperchatError

# The bounds of one comparison: papers, aspects, and the length of an aspect as written.
MAX_PAPERS = 20
MAX_ASPECTS = 12
MAX_ASPECT_CHARS = 80
# What an empty cell says: the paper was searched and does not say it.
NOT_FOUND = "not found in the paper"

_METRIC = re.compile(
    r"\b(?:accuracy|exact match|EM|F1|BLEU|ROUGE(?:-\w+)?|perplexity|top-\d+|recall(?:@\d+)?"
    r"|precision(?:@\d+)?|error rate|AUC|MRR|n?DCG(?:@\d+)?|mAP|win rate|METEOR|CIDEr|FID"
    r"|Inception Score|log-likelihood|WER|BPC|MSE|MAE|RMSE)\b",
)
_METHOD = re.compile(
    r"\bwe (?:propose|introduce|present|develop|describe|design|show)\b"
    r"|\b(?:our|the proposed) (?:method|model|approach|framework|architecture|system)\b"
    r"|\b(?:called|named|dubbed)\b",
    re.IGNORECASE,
)
_TASK = re.compile(
    r"\b(?:task|problem|challenge|goal)s?\b|\bwe (?:study|address|tackle|consider|focus)"
    r"|\baims? to\b|\brelies on\b|\b(?:difficult|hard|challenging) to\b",
    re.IGNORECASE,
)
# What states the problem a paper takes on, rather than a task it was tried on.
_PROBLEM = re.compile(
    r"\b(?:task|problem) of\b|\bwe (?:study|address|tackle|consider|focus)|\baims? to\b"
    r"|\brelies on\b|\b(?:difficult|hard|challenging) to\b|\bremains? (?:an open|challenging)",
    re.IGNORECASE,
)
_RESULT = re.compile(
    r"\b(?:outperform|surpass|improv|achiev|state[- ]of[- ]the[- ]art|better|gains?\b|best"
    r"|reduc|match|exceed)",
    re.IGNORECASE,
)
# A sentence saying the code is out (an address alone may be a tool the paper used); a
# footnote's number may stick to its first word ("1Code").
_CODE = re.compile(
    r"(?<![^\W\d_])(?:code|implementation|source|models?|checkpoints?|data|library)\b[^.]{0,80}"
    r"\b(?:(?:is|are) (?:publicly |freely )?available|released|open[- ]sourced?|publicly"
    r" available|will be made available)",
    re.IGNORECASE,
)


# A name as papers print them: an acronym or mixed-case word, or a capitalised word within a
# sentence ("Natural Questions", "NQ", "TriviaQA").
_NAME = re.compile(r"(?<![\w-])[A-Z][\w-]*[A-Z0-9][\w-]*|(?<=[a-z,] )[A-Z][a-z]{2,}")
_NAMES_COUNTED = 3
_SECTION_BONUS = 2
_DATA_SECTION = re.compile(r"data|benchmark|corpor|evaluation", re.IGNORECASE)
_ADDRESS = re.compile(r"https?://|github\.com|gitlab\.com|huggingface\.co", re.IGNORECASE)
_OWN_CODE = re.compile(
    r"\b(?:our|the|all) (?:code|implementation|models?|source code)\b|\bwe (?:release|open)",
    re.IGNORECASE,
)
_PUTS_FORWARD = re.compile(r"\bwe (?:propose|introduce|present)\b", re.IGNORECASE)
_NAMING = re.compile(r"\b(?:called|named|dubbed)\b|\bwhich stands for\b", re.IGNORECASE)
_OTHERS_CODE = re.compile(r"\bbased on\b|\b(?:released|provided) (?:in|by)\b|\bwe use", re.I)


class InvalidAspects(PaperchatError, ValueError):
    """A comparison's aspects that cannot be asked: none, too many, blank or too long."""


@dataclass(frozen=True)
class Aspect:
    """One column of a comparison: its name as the caller wrote it, what to search the
    paper for, the question to choose a sentence by, and the cue a fitting cell holds
    (None: any sentence that answers the question fits)."""

    name: str
    query: str
    question: str
    cue: re.Pattern[str] | None = None
    kind: str = ""  # a value kind of `answer_type` the cell must hold ("" for none)
    raw: bool = False  # looked for in every piece of text, addresses and footnotes too
    opening: bool = False  # looked for in the abstract first: what the paper is about
    # How much of what is asked a fitting sentence holds (dataset names, say); the most
    # wins, the answerer's order among equals. None: the answerer's first that fits.
    weigh: Callable[[str, str], int] | None = None
    # The header of a table column whose row labels are what is asked ("Dataset").
    column: re.Pattern[str] | None = None

    def fits(self, text: str) -> bool:
        """Whether `text` holds what this aspect asks for."""
        if self.kind and not holds_value(text, self.kind):
            return False
        return self.cue is None or self.cue.search(text) is not None

    def weight(self, text: str, section: str) -> int:
        """How much of what is asked `text`, under the heading `section`, holds."""
        return self.weigh(text, section) if self.weigh is not None else 0


def _dataset_weight(text: str, section: str) -> int:
    """Names in a sentence (a few at most count), more under a heading about data."""
    names = {m.group(0) for m in _NAME.finditer(text[1:])}
    return min(len(names), _NAMES_COUNTED) + _SECTION_BONUS * bool(_DATA_SECTION.search(section))


def _task_weight(text: str, _section: str) -> int:
    """A sentence stating the problem counts more than one naming a task in passing."""
    return bool(_PROBLEM.search(text))


def _method_weight(text: str, _section: str) -> int:
    """What the paper itself puts forward counts more than what it says of its model."""
    return 2 * bool(_PUTS_FORWARD.search(text)) + bool(_NAMING.search(text))


def _code_weight(text: str, _section: str) -> int:
    """An address counts, the paper's own code more; another's code it uses counts less."""
    own = _OWN_CODE.search(text) is not None
    return bool(_ADDRESS.search(text)) + 2 * own - 2 * bool(_OTHERS_CODE.search(text))


_KNOWN = {
    "task": Aspect(
        "task",
        "the task or problem this paper addresses",
        "What task or problem does this paper address?",
        _TASK,
        opening=True,
        weigh=_task_weight,
    ),
    "method": Aspect(
        "method",
        "the method, model or approach we propose",
        "Which method or model does this paper propose?",
        _METHOD,
        opening=True,
        weigh=_method_weight,
    ),
    "datasets": Aspect(
        "datasets",
        "dataset train dev test split benchmarks evaluated",
        "Which datasets or benchmarks is the method evaluated on?",
        None,
        DATASET,
        weigh=_dataset_weight,
        column=re.compile(r"^(?:datasets?|benchmarks?|corpus|corpora|tasks?)$", re.IGNORECASE),
    ),
    "metrics": Aspect(
        "metrics",
        "evaluation metrics accuracy exact match F1 BLEU score reported",
        "Which evaluation metrics, such as accuracy, exact match, F1 or BLEU score, are used?",
        _METRIC,
    ),
    "main result": Aspect(
        "main result",
        "main result outperforms state of the art improvement accuracy",
        "What is the main result: how much does the method outperform, what score?",
        _RESULT,
        NUMBER,
        opening=True,
    ),
    "code availability": Aspect(
        "code availability",
        "code implementation publicly available github released open source",
        "Is the code available, and where?",
        _CODE,
        raw=True,
        weigh=_code_weight,
    ),
}
# The same names as people write them.
_ALIASES = {
    "dataset": "datasets",
    "data": "datasets",
    "benchmarks": "datasets",
    "metric": "metrics",
    "result": "main result",
    "results": "main result",
    "code": "code availability",
    "model": "method",
    "approach": "method",
    "problem": "task",
}
DEFAULT_ASPECTS = ("task", "method", "datasets", "metrics", "main result", "code availability")


def aspect(name: str) -> Aspect:
    """The aspect named `name` (any case and spacing); one not known is asked as written."""
    plain = " ".join(name.split())
    key = _ALIASES.get(plain.lower(), plain.lower())
    known = _KNOWN.get(key)
    if known is not None:
        return dataclasses.replace(known, name=plain)
    return Aspect(plain, plain, f"What is the {plain} of this paper?")


def aspects_of(names: Sequence[str]) -> list[Aspect]:
    """The aspects asked for, in order, each once (by name, case aside); the defaults
    when none is. InvalidAspects for a blank one, one over `MAX_ASPECT_CHARS` or more
    than `MAX_ASPECTS`."""
    chosen: dict[str, Aspect] = {}
    for name in names or DEFAULT_ASPECTS:
        plain = " ".join(name.split())
        if not plain:
            raise InvalidAspects("an aspect is blank")
        if len(plain) > MAX_ASPECT_CHARS:
            raise InvalidAspects(
                f"the aspect {plain[:20]!r}... is longer than {MAX_ASPECT_CHARS} characters"
            )
        chosen.setdefault(plain.lower(), aspect(plain))
    if len(chosen) > MAX_ASPECTS:
        raise InvalidAspects(f"{len(chosen)} aspects; at most {MAX_ASPECTS} are compared")
    return list(chosen.values())
