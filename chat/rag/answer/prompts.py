"""The prompts, versioned text files in `prompts/` (shipped in the wheel), and the messages
built from them.

File format: the first line is `version: <name>/<number>`, where `<name>` is
the file's stem (`answer.txt` holds `version: answer/1`); the rest (leading
blank lines dropped) is a LangChain f-string template: `{question}` is a
variable, literal braces are doubled (`{{`, `}}`). Raise the number whenever
the wording changes: `Prompts.version` (`system/1+answer/1+condense/1`) is
recorded with every answer.

- `system.txt`: the rules of answering; no variables.
- `answer.txt`: the user turn; `{sources}` (the delimited source blocks) and
  `{question}`.
- `condense.txt`: rewrites a follow-up into a standalone question;
  `{history}` (the transcript) and `{question}`.
- `rewrite.txt` and `hyde.txt`: search queries, or a hypothetical abstract,
  for `PAPERCHAT_QUERY_REWRITE` (chat/rag/answer/rewriting.py); `{question}` (and
  `{count}`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import prompts
from chat.rag.sources import Source
from ingest.errors import PaperchatError

if TYPE_CHECKING:
    from langchain_core.prompts import PromptTemplate

DEFAULT_DIRECTORY = prompts.DIRECTORY
# Earlier messages of the conversation a prompt holds, questions and answers alike
# (8: the last four exchanges); `PAPERCHAT_HISTORY_MESSAGES`.
HISTORY_MESSAGES = 8
# What those messages may take of a prompt, in estimated tokens; `PAPERCHAT_HISTORY_TOKENS`.
HISTORY_TOKENS = 3000
# The estimate: one token per 4 bytes of UTF-8. The model behind an OpenAI-compatible
# server is unknown, so its tokenizer is too; OpenAI's rule of thumb is 4 characters a
# token for English, and counting bytes rather than characters raises the estimate for
# scripts whose characters are tokens of their own (a CJK character is 3 bytes).
BYTES_PER_TOKEN = 4
# A message cut to fit the budget keeps at least this many tokens, else it is left out.
MIN_CUT_TOKENS = 32
CUT_MARK = " […]"
NO_SOURCES = "(none: nothing relevant was found)"

_VERSION_LINE = re.compile(r"^version:\s*(?P<name>[a-z_]+)/(?P<number>\d+)\s*$")
_VARIABLES: dict[str, set[str]] = {
    "system": set(),
    "answer": {"sources", "question"},
    "condense": {"history", "question"},
    "rewrite": {"count", "question"},
    "hyde": {"question"},
}
# An opening or closing tag of one of our delimiters, however spaced or cased.
_DELIMITER_TAG = re.compile(r"<(?=\s*/?\s*(?:sources?|conversation)\b)", re.IGNORECASE)
_ROLES = ("user", "assistant")


class PromptError(PaperchatError):
    """A prompt file is missing or malformed, or a history turn is not usable."""


class Turn(Protocol):
    """One earlier message of the conversation."""

    @property
    def role(self) -> str:
        """`user` or `assistant`."""

    @property
    def content(self) -> str: ...


@dataclass(frozen=True)
class ChatTurn:
    role: str
    content: str


@dataclass(frozen=True)
class VersionedPrompt:
    name: str
    number: int
    template: PromptTemplate

    @property
    def version(self) -> str:
        return f"{self.name}/{self.number}"

    def format(self, **values: str) -> str:
        return self.template.format(**values)


@dataclass(frozen=True)
class Prompts:
    system: VersionedPrompt
    answer: VersionedPrompt
    condense: VersionedPrompt

    @property
    def version(self) -> str:
        """All three versions, e.g. `system/1+answer/1+condense/1`."""
        return "+".join(p.version for p in (self.system, self.answer, self.condense))


def load_prompts(directory: Path | None = None) -> Prompts:
    """Read `system.txt`, `answer.txt` and `condense.txt` from `directory`."""
    folder = directory or DEFAULT_DIRECTORY
    return Prompts(
        system=load_prompt(folder / "system.txt"),
        answer=load_prompt(folder / "answer.txt"),
        condense=load_prompt(folder / "condense.txt"),
    )


def load_prompt(path: Path) -> VersionedPrompt:
    """One prompt file: its version line, then its template."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PromptError(f"cannot read prompt {str(path)!r}: {e.strerror or e}") from e
    first, _, body = text.partition("\n")
    match = _VERSION_LINE.match(first)
    if match is None:
        raise PromptError(f"prompt {str(path)!r} must start with 'version: {path.stem}/<number>'")
    if match["name"] != path.stem:
        raise PromptError(f"prompt {str(path)!r} says version {first.split(':', 1)[1].strip()!r}")
    # Imported here: langchain's prompts take half a second to import, and the settings
    # import this module for its history length.
    from langchain_core.prompts import PromptTemplate

    try:
        template = PromptTemplate.from_template(body.lstrip("\n").rstrip() + "\n")
    except ValueError as e:
        raise PromptError(f"prompt {str(path)!r} is not a valid template: {e}") from e
    expected = _VARIABLES.get(path.stem)
    if expected is not None and set(template.input_variables) != expected:
        found = sorted(template.input_variables)
        raise PromptError(f"prompt {str(path)!r} has variables {found}, needs {sorted(expected)}")
    return VersionedPrompt(match["name"], int(match["number"]), template)


def answer_messages(
    prompts: Prompts,
    question: str,
    sources: Sequence[Source],
    history: Sequence[Turn] = (),
    *,
    max_messages: int = HISTORY_MESSAGES,
    max_tokens: int = HISTORY_TOKENS,
) -> list[dict[str, str]]:
    """System rules, the last `max_messages` of the history in order (within `max_tokens`),
    then sources and question."""
    messages = [{"role": "system", "content": prompts.system.format()}]
    recent = _recent(history, max_messages, max_tokens)
    messages += [{"role": t.role, "content": t.content} for t in recent]
    user = prompts.answer.format(sources=format_sources(sources), question=question.strip())
    messages.append({"role": "user", "content": user})
    return messages


def condense_messages(
    prompts: Prompts,
    history: Sequence[Turn],
    question: str,
    *,
    max_messages: int = HISTORY_MESSAGES,
    max_tokens: int = HISTORY_TOKENS,
) -> list[dict[str, str]]:
    """One user message asking to rewrite `question` as a standalone question."""
    transcript = "\n\n".join(
        f"{t.role.capitalize()}: {_neutralise(t.content.strip())}"
        for t in _recent(history, max_messages, max_tokens)
    )
    content = prompts.condense.format(history=transcript, question=question.strip())
    return [{"role": "user", "content": content}]


def format_sources(sources: Sequence[Source]) -> str:
    """Each source in its own `<source ...>` block; text that could close a block is defused."""
    if not sources:
        return NO_SOURCES
    return "\n\n".join(_source_block(source) for source in sources)


def _source_block(source: Source) -> str:
    attributes = [
        f'n="{source.n}"',
        f'citation="{_attribute(source.citation)}"',
        f'title="{_attribute(source.title)}"',
        f'section="{_attribute(source.section)}"',
    ]
    if source.page is not None:
        attributes.append(f'page="{source.page}"')
    return f"<source {' '.join(attributes)}>\n{_neutralise(source.text.strip())}\n</source>"


def _attribute(value: str) -> str:
    return _neutralise(" ".join(value.split())).replace('"', "&quot;")


def _neutralise(text: str) -> str:
    """`text` with every `<` that would open or close one of our delimiters escaped."""
    return _DELIMITER_TAG.sub("&lt;", text)


def estimate_tokens(text: str) -> int:
    """The tokens `text` takes in a prompt, estimated (see `BYTES_PER_TOKEN`)."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def _recent(history: Sequence[Turn], max_messages: int, max_tokens: int) -> list[Turn]:
    """The last `max_messages` turns within `max_tokens`, the newest kept first.

    No turn takes more than half the budget (a long one is cut, its beginning
    kept), so a long answer leaves room for the question it answers; the
    oldest turn kept may be cut to fill what is left.
    """
    turns = history[-max_messages:] if max_messages > 0 else ()
    for turn in turns:
        if turn.role not in _ROLES:
            raise PromptError(f"history turn has role {turn.role!r}; expected user or assistant")
    kept: list[Turn] = []
    room = max_tokens
    for turn in reversed(turns):
        share = min(room, max_tokens // 2)
        if estimate_tokens(turn.content) <= share:
            kept.append(turn)
        elif share >= MIN_CUT_TOKENS:
            kept.append(ChatTurn(turn.role, _cut(turn.content, share)))
        else:
            break
        room -= estimate_tokens(kept[-1].content)
    return kept[::-1]


def _cut(text: str, tokens: int) -> str:
    """The beginning of `text` that fits in `tokens` with the cut mark after it."""
    size = tokens * BYTES_PER_TOKEN - len(CUT_MARK.encode("utf-8"))
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore") + CUT_MARK
