"""What `/v1`'s answers share, a chat completion or a response: the extra fields that carry
the sources and the checked citations, the usage counts, and how a failed answer is counted
and answered."""

from __future__ import annotations

import logging
from typing import Any

from chat.rag.answer.events import Done, Error, Sources
from chat.service.routes.deps import Services

logger = logging.getLogger("paperchat.openai")

INTERNAL_ERROR = Error("internal_error", "the answer failed; try again")
# The status of a whole (not streamed) answer that failed upstream, by the error's code.
FAILURE_STATUS = {"upstream_timeout": 504, "shutting_down": 503, "internal_error": 500}


def usage_counts(done: Done | None) -> dict[str, int]:
    """The answer's token counts in OpenAI's chat names."""
    usage = dict(done.usage) if done else {}
    prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def verified(done: Done, sources: list[dict[str, Any]]) -> dict[str, Any]:
    """The extra fields of a finished answer: sources, citations and, when the answer
    declines, `refused` with its reason."""
    data = done.data()
    extra = {
        "sources": sources,
        "citations": data["citations"],
        "dropped_citations": data["dropped_citations"],
    }
    if data.get("refused") is not None:
        extra["refused"] = data["refused"]
        extra["refusal_reason"] = data.get("refusal_reason")
    return extra


def scope(found: Sources | None) -> dict[str, Any]:
    """The extra `scope` field when the question was asked about the previous answer's
    papers (`chat/rag/answer/followups.py`); nothing otherwise."""
    asked = found.data().get("scope") if found is not None else None
    return {"scope": asked} if asked else {}


def count_failure(services: Services, event: Error) -> None:
    services.metrics.count_upstream_error(event.code)
    logger.warning("answer failed (%s): %s", event.code, event.detail or event.message)
