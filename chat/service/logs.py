"""The service's logs: one JSON object per line, with the request id, secrets removed.

Each line holds `time` (UTC, ISO 8601), `level`, `logger`, `message`,
`request_id` (from `set_request_id`, or null outside a request), then the
record's extra fields, and `exception` / `stack` when there are any.

`RedactSecrets` rewrites every record that passes the handler before any
formatter sees it: the message (with its arguments), the extra fields (by
name, and by value, nested dicts and lists too) and the traceback text.
Removed are Authorization and Cookie values, bearer tokens, `pc_...` API
keys, `sk-...` OpenAI keys, passwords in URLs, and any field named like a
password, secret, token or API key.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from collections.abc import Mapping
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any, Final, TextIO

REDACTED: Final = "[REDACTED]"

_request_id: ContextVar[str | None] = ContextVar("paperchat_request_id", default=None)

# Field names whose values are always secret.
_SECRET_NAME: Final = (
    r"(?:proxy-)?authorization|(?:set-)?cookie"
    r"|[\w-]*(?:password|passwd|secret|api[_-]?key|apikey|token)(?:[_-]?(?:key|hash|value))?"
)
_SECRET_NAME_PATTERN: Final = re.compile(rf"(?:{_SECRET_NAME})", re.IGNORECASE)
# `name: value`, `name=value`, `"name": "value"`, `Authorization: Bearer value`.
_SECRET_FIELD_PATTERN: Final = re.compile(
    rf"""(?P<name>["']?\b(?:{_SECRET_NAME})\b["']?\s*[:=]\s*)(?!\s*["']?\[REDACTED\])"""
    r"""(?P<value>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"""
    r"""|(?:(?:bearer|basic|digest)\s+)?[^\s,;&"'}\]]+)""",
    re.IGNORECASE,
)
# A cookie's value holds several cookies: everything up to the quote or the line's end.
_COOKIE_PATTERN: Final = re.compile(
    r"""(?P<name>["']?\b(?:set-)?cookie\b["']?\s*[:=]\s*)(?!\s*["']?\[REDACTED\])"""
    r"""(?P<value>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^"'\r\n]+)""",
    re.IGNORECASE,
)
_BEARER: Final = r"\b(?P<scheme>bearer|basic)\s+(?!\[REDACTED\])[\w.~+/=-]+"
# The password in `scheme://user:password@host`.
_URL_PASSWORD: Final = r"(?P<userinfo>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+(?=@)"
# Each pattern with what of the match is kept before `[REDACTED]`.
_TOKEN_PATTERNS: Final = (
    (re.compile(_BEARER, re.IGNORECASE), r"\g<scheme> "),
    (re.compile(r"\bpc_[A-Za-z0-9_-]{6,}"), ""),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), ""),
    (re.compile(_URL_PASSWORD, re.IGNORECASE), r"\g<userinfo>"),
)

# Attributes every LogRecord has; anything else came in through `extra=`.
_RECORD_FIELDS: Final = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys() | {"message", "asctime"}
)
_BASE_FIELDS: Final = ("time", "level", "logger", "message", "request_id")


def new_request_id() -> str:
    return uuid.uuid4().hex


def set_request_id(request_id: str | None) -> Token[str | None]:
    """Tag the logs of the current context (request); pass the token to `reset_request_id`."""
    return _request_id.set(request_id)


def reset_request_id(token: Token[str | None]) -> None:
    _request_id.reset(token)


def get_request_id() -> str | None:
    return _request_id.get()


def redact_text(text: str) -> str:
    """`text` with every secret this module knows of replaced by `[REDACTED]`."""
    text = _COOKIE_PATTERN.sub(_redact_field, text)
    text = _SECRET_FIELD_PATTERN.sub(_redact_field, text)
    for pattern, kept in _TOKEN_PATTERNS:
        text = pattern.sub(kept + REDACTED, text)
    return text


def _redact_field(match: re.Match[str]) -> str:
    value = match["value"]
    quote = value[0] if value[:1] in {'"', "'"} else ""
    return f"{match['name']}{quote}{REDACTED}{quote}"


def redact_value(value: object) -> object:
    """A JSON-friendly copy of `value` with secrets removed, by field name and by content."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {str(k): _redact_item(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [redact_value(item) for item in value]
    return redact_text(str(value))


def _redact_item(name: str, value: object) -> object:
    return REDACTED if _SECRET_NAME_PATTERN.fullmatch(name) else redact_value(value)


class RedactSecrets(logging.Filter):
    """Removes secrets from a record's message, extra fields and traceback; never drops it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact_text(_message(record))
        record.args = None
        for name in _extra_names(record):
            setattr(record, name, _redact_item(name, getattr(record, name)))
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


def _message(record: logging.LogRecord) -> str:
    try:
        return record.getMessage()
    except (TypeError, ValueError):
        # Arguments that do not fit the format: keep both rather than lose the record.
        return f"{record.msg!s} {record.args!r}"


def _extra_names(record: logging.LogRecord) -> list[str]:
    return [name for name in vars(record) if name not in _RECORD_FIELDS]


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or get_request_id(),
        }
        for name in _extra_names(record):
            if name == "request_id":
                continue
            key = f"extra_{name}" if name in _BASE_FIELDS else name
            entry[key] = getattr(record, name)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, default=str, ensure_ascii=False)


def _timestamp(created: float) -> str:
    moment = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    return moment.replace("+00:00", "Z")


def json_handler(stream: TextIO | None = None) -> logging.Handler:
    """A handler that writes redacted JSON lines to `stream` (standard error by default)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactSecrets())
    return handler


def configure_logging(level: int | str = logging.INFO, stream: TextIO | None = None) -> None:
    """Send every log record, uvicorn's included, through one JSON handler on the root logger."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(json_handler(stream))
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        server_logger = logging.getLogger(name)
        server_logger.handlers.clear()
        server_logger.propagate = True
        # A server started earlier in the process may have raised their levels.
        server_logger.setLevel(logging.NOTSET)
    # One line per HTTP call to the vector store's server or a model would bury the
    # requests' own lines; their failures still come through as warnings and errors.
    for client in ("httpx", "httpx2"):
        logging.getLogger(client).setLevel(logging.WARNING)


def configure_worker_logging(stream: TextIO | None = None) -> None:
    """`configure_logging` in a process uvicorn started (`serve --workers N`, `uvicorn
    --factory`), where uvicorn has set up its loggers already: its access line stays off
    where the server turned it off (`access_log=False`, as `paperchat serve` runs it), since
    each request's line is the app's own and never holds the query string uvicorn's does."""
    access = logging.getLogger("uvicorn.access")
    turned_off = not access.propagate and not access.handlers
    configure_logging(stream=stream)
    if turned_off:
        access.propagate = False
