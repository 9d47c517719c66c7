"""OpenAI's Responses API as `POST /v1/responses` reads and writes it: the request, and
the response object (whole, or as the snapshots its stream's events carry).

Honoured: `input` (a string, or a list of messages whose last is the user's
question, earlier user and assistant messages its history), `previous_response_id` (a
response of the same user: its conversation is the history), `stream`,
`max_output_tokens`, `temperature`, `store` (false: the response is not kept and cannot be
continued), `user`, `metadata` (echoed), and the extra `paper_ids`, `author`,
`collection_id` (its papers and the owner's uploads in it), `upload_ids`, `with_library`
and `follow_up` of `/v1/chat/completions`. Refused with a 400 naming the
parameter: tools, a `text.format` other than text, and input items other than text
messages (images, files, tool outputs). `instructions` and other parameters are accepted
and have no effect: the answer follows the papers and this server's own prompt.

A response carries the answer as one `output_text` whose annotations are its checked
citations (`url_citation`s to arxiv.org, each at its `[arXiv:ID]`), and the same extra
fields as a chat completion: `sources`, `citations`, `dropped_citations`, `refused`.
"""

from __future__ import annotations

import re
import time
from typing import Annotated, Any, Literal

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
from chat.service.openai.request import MODEL_ID, no_tool_called
from chat.service.routes.deps import AuthorName, PaperId, readable_text
from chat.service.uploads.asking import MAX_ASKED_UPLOADS

RESPONSE_PREFIX = "resp_"
MESSAGE_PREFIX = "msg_"
_TEXT_PARTS = ("input_text", "output_text", "text")
_CITATION = re.compile(r"\[(?:arXiv|doc):([^\]\s]+)\]")


class InputMessage(BaseModel):
    """One message of `input`: a role and its text, plain or in text parts."""

    model_config = ConfigDict(extra="allow")

    type: Literal["message"] = "message"
    role: Literal["system", "developer", "user", "assistant"]
    content: Annotated[str | list[dict[str, Any]], BeforeValidator(readable_text)]

    @field_validator("content")
    @classmethod
    def text_parts_only(cls, content: str | list[dict[str, Any]]) -> Any:
        for part in content if isinstance(content, list) else ():
            kind = part.get("type")
            if kind not in _TEXT_PARTS:
                raise ValueError(
                    f"content parts of type {kind!r} are not supported: paperchat reads text only"
                )
        return content

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(str(p.get("text", "")) for p in self.content if p.get("type") in _TEXT_PARTS)


def _no_tools(value: Any) -> Any:
    if value not in (None, []):
        raise ValueError("tools are not supported: paperchat answers with text only")
    return value


class ResponseRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = Field(default=MODEL_ID, json_schema_extra={"enum": [MODEL_ID]})
    input: str | list[InputMessage] = Field(min_length=1)
    previous_response_id: str | None = Field(default=None, max_length=64)
    instructions: str | None = None
    stream: StrictBool = False
    store: StrictBool = True
    max_output_tokens: StrictInt | None = Field(default=None, ge=1)
    temperature: StrictFloat | None = Field(default=None, ge=0, le=2)
    user: str | None = Field(default=None, max_length=256)
    metadata: dict[str, str] | None = None
    tools: Annotated[list[Any] | None, BeforeValidator(_no_tools)] = None
    tool_choice: Any = None
    text: dict[str, Any] | None = None
    paper_ids: list[PaperId] = Field(default_factory=list, max_length=50)
    author: AuthorName | None = None
    collection_id: str | None = Field(
        default=None,
        max_length=64,
        description="only the papers and uploads of this collection of the key owner's (404 "
        "for another user's)",
    )
    upload_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_ASKED_UPLOADS,
        description="the key owner's own uploads to answer from, as `/v1/chat/completions` "
        "takes them (404 for another user's or one not ready)",
    )
    with_library: StrictBool = Field(
        default=False,
        description="with upload_ids alone, also answer from the whole library",
    )
    follow_up: StrictBool = True

    @field_validator("input")
    @classmethod
    def readable_input(cls, value: str | list[InputMessage]) -> Any:
        return readable_text(value) if isinstance(value, str) else value

    @field_validator("tool_choice")
    @classmethod
    def no_tool_choice(cls, choice: Any) -> Any:
        return no_tool_called(choice)

    @field_validator("text")
    @classmethod
    def text_format(cls, text: dict[str, Any] | None) -> dict[str, Any] | None:
        kind = ((text or {}).get("format") or {}).get("type", "text")
        if kind != "text":
            raise ValueError(f"text.format {kind!r} is not supported: answers are cited text")
        return text

    def messages(self) -> list[InputMessage]:
        if isinstance(self.input, str):
            return [InputMessage(role="user", content=self.input)]
        return self.input

    def sampling(self) -> Sampling:
        return Sampling(
            max_tokens=self.max_output_tokens, temperature=self.temperature, user=self.user
        )


def to_question(body: ResponseRequest, earlier: tuple[Turn, ...]) -> Question:
    """The last input message (a user's) as the question; `earlier` (the previous
    response's conversation) and the input's earlier user and assistant messages as
    history. The route checks the question's length and adds the filters."""
    messages = body.messages()
    last = messages[-1]
    text = last.text().strip()
    if last.role != "user" or not text:
        raise invalid_request("the last input message must be a user's question", "input")
    given = [m for m in messages[:-1] if m.role in ("user", "assistant") and m.text()]
    history = (*earlier, *(Turn(m.role, m.text()) for m in given))
    return Question(text=text, history=history, sampling=body.sampling(), follow_up=body.follow_up)


def citation_notes(
    text: str, sources: list[dict[str, Any]], cited: list[str]
) -> list[dict[str, Any]]:
    """Each checked citation in `text` as a `url_citation` over its `[arXiv:ID]`."""
    by_id = {str(s.get("id")): s for s in sources}
    found = []
    for match in _CITATION.finditer(text):
        source = by_id.get(match.group(1))
        if source is None or match.group(1) not in cited:
            continue
        found.append(
            {
                "type": "url_citation",
                "start_index": match.start(),
                "end_index": match.end(),
                "url": str(source.get("url") or ""),
                "title": str(source.get("title") or match.group(1)),
            }
        )
    return found


def output_text(text: str, notes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": notes or [], "logprobs": []}


def output_message(item_id: str, parts: list[dict[str, Any]], status: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": parts,
    }


def usage(counts: dict[str, Any]) -> dict[str, Any]:
    prompt, completion = counts.get("prompt_tokens", 0), counts.get("completion_tokens", 0)
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + completion,
    }


def response_object(
    response_id: str, body: ResponseRequest, status: str, **fields: Any
) -> dict[str, Any]:
    """The response `response_id` answering `body`, at `status`, with `fields` (`output`,
    `usage`, `error`, the extra `sources`...) over the defaults."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": MODEL_ID,
        "output": [],
        "error": None,
        "incomplete_details": None,
        "instructions": body.instructions,
        "max_output_tokens": body.max_output_tokens,
        "metadata": body.metadata or {},
        "parallel_tool_calls": False,
        "previous_response_id": body.previous_response_id,
        "store": body.store,
        "temperature": body.temperature,
        "text": {"format": {"type": "text"}},
        "tool_choice": "none",
        "tools": [],
        "top_p": None,
        "truncation": "disabled",
        "usage": None,
        "user": body.user,
    } | fields
