"""The OpenAI chat request `/v1/chat/completions` reads, and what it refuses.

Honoured: `messages` (the last one, a user's, is the question; earlier
user and assistant turns its history), `stream`, `stream_options.include_usage`,
`max_tokens` (or `max_completion_tokens`), `temperature`, `stop`, `user`,
and the extra `paper_ids`, `author` (only that author's papers; 404 when
no indexed author has the name), `collection_id` (only the papers of one of
the key owner's collections; another user's is a 404), `upload_ids` and
`with_library` (the key owner's uploads: `chat.service.uploads.asking`) and
`follow_up` (false: a question that leans on the previous answer is not asked
about that answer's papers). Refused with a 400 naming the parameter: `n`
above 1, tools and functions, `response_format` other than text, log
probabilities, and content parts other than text (images, audio, files).
Other OpenAI parameters are accepted and have no effect.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import HTTPException
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    field_validator,
)

from chat.rag.answer.answering import Question, Turn
from chat.rag.answer.sampling import Sampling
from chat.service.openai.errors import invalid_request
from chat.service.routes.deps import AuthorName, Limits, PaperId, check_question, readable_text
from chat.service.uploads.asking import MAX_ASKED_UPLOADS

MODEL_ID = "paperchat"
MAX_STOP_SEQUENCES = 4


def no_tool_called(choice: Any) -> Any:
    """A request's tool choice: `none` and `auto` (with no tools, no tool is called) are
    fine; asking for one is not."""
    if choice not in (None, "none", "auto"):
        raise ValueError("tools are not supported: paperchat answers with text only")
    return choice


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: Annotated[str | list[dict[str, Any]] | None, BeforeValidator(readable_text)] = None

    @field_validator("content")
    @classmethod
    def text_parts_only(cls, content: str | list[dict[str, Any]] | None) -> Any:
        for part in content if isinstance(content, list) else ():
            kind = part.get("type")
            if kind != "text":
                raise ValueError(
                    f"content parts of type {kind!r} are not supported: paperchat reads text only"
                )
        return content

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: StrictBool = False


def _refused_when_set(what: str) -> Any:
    def check(value: Any) -> Any:
        if value not in (None, [], False):
            raise ValueError(f"{what} are not supported: paperchat answers with text only")
        return value

    return BeforeValidator(check)


class CompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    # Numbers and flags are strict, as the document says: `true` is no 1, `0` no false.

    model: str = Field(default=MODEL_ID, json_schema_extra={"enum": [MODEL_ID]})
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: StrictBool = False
    stream_options: StreamOptions | None = None
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = Field(
        default=None, description="only this author's papers (404 when unknown)"
    )
    collection_id: str | None = Field(
        default=None,
        max_length=64,
        description="only the papers of this collection of the key owner's (404 for another "
        "user's; 400 when it has no paper to answer from)",
    )
    upload_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_ASKED_UPLOADS,
        description="the key owner's own uploads to answer from (404 for another user's or "
        "one not ready), cited as `[doc:<id>]` (one the library holds, its `library_id`, "
        "as that paper: `[arXiv:<id>]`): alone, from these PDFs only; with paper_ids, "
        "author or collection_id, from them and those papers, merged",
    )
    with_library: StrictBool = Field(
        default=False,
        description="with upload_ids alone, also answer from the whole library, citing its "
        "papers as `[arXiv:<id>]` and the uploads as `[doc:<id>]` in one answer",
    )
    follow_up: StrictBool = Field(
        default=True,
        description="a question that leans on the previous answer is asked about the papers "
        "it cited (the reply's `scope`); false asks it of the whole index",
    )
    max_tokens: StrictInt | None = Field(default=None, ge=1)
    max_completion_tokens: StrictInt | None = Field(default=None, ge=1)
    temperature: StrictFloat | None = Field(default=None, ge=0, le=2)
    stop: str | list[str] | None = None
    user: str | None = Field(default=None, max_length=256)
    n: StrictInt | None = None
    tools: Annotated[list[Any] | None, _refused_when_set("tools")] = None
    functions: Annotated[list[Any] | None, _refused_when_set("functions")] = None
    tool_choice: Any = None
    function_call: Any = None
    response_format: dict[str, Any] | None = None
    logprobs: Annotated[StrictBool | None, _refused_when_set("log probabilities")] = None
    top_logprobs: Annotated[StrictInt | None, _refused_when_set("log probabilities")] = None

    @field_validator("n")
    @classmethod
    def one_choice(cls, n: int | None) -> int | None:
        if n is not None and n != 1:
            raise ValueError(f"n = {n} is not supported: paperchat gives one answer per request")
        return n

    @field_validator("tool_choice", "function_call")
    @classmethod
    def no_tool_choice(cls, choice: Any) -> Any:
        return no_tool_called(choice)

    @field_validator("response_format")
    @classmethod
    def text_format(cls, fmt: dict[str, Any] | None) -> dict[str, Any] | None:
        kind = (fmt or {}).get("type", "text")
        if kind != "text":
            raise ValueError(
                f"response_format {kind!r} is not supported: answers are text with citations"
            )
        return fmt

    @field_validator("stop")
    @classmethod
    def few_stop_sequences(cls, stop: str | list[str] | None) -> str | list[str] | None:
        sequences = [stop] if isinstance(stop, str) else stop or []
        if len(sequences) > MAX_STOP_SEQUENCES:
            raise ValueError(f"at most {MAX_STOP_SEQUENCES} stop sequences, not {len(sequences)}")
        if any(not s for s in sequences):
            raise ValueError("a stop sequence cannot be empty")
        return stop

    @property
    def include_usage(self) -> bool:
        return self.stream_options is not None and self.stream_options.include_usage

    def sampling(self) -> Sampling:
        stop = [self.stop] if isinstance(self.stop, str) else self.stop or []
        return Sampling(
            max_tokens=self.max_completion_tokens or self.max_tokens,
            temperature=self.temperature,
            stop=tuple(stop),
            user=self.user,
        )


def to_question(body: CompletionRequest, limits: Limits) -> Question:
    """The last message (a user's) as the question; earlier user and assistant turns as
    history; 400 naming `messages` when there is no question. The route adds the filters
    (`paper_ids`, `author`)."""
    last = body.messages[-1]
    text = last.text().strip()
    if last.role != "user" or not text:
        raise invalid_request("the last message must be a user's question", "messages")
    try:
        check_question(text, limits)
    except HTTPException as e:
        raise invalid_request(str(e.detail), "messages") from e
    earlier = [m for m in body.messages[:-1] if m.role in ("user", "assistant") and m.text()]
    history = tuple(Turn(m.role, m.text()) for m in earlier)  # the answerer keeps the last few
    return Question(text=text, history=history, sampling=body.sampling(), follow_up=body.follow_up)
