"""What a failure of the chat model's server says: on one line, bounded, anything like a
key masked, the server's address without credentials; and which failures are a
connection that could not be made, whatever name the HTTP client gave them."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_KEY_LIKE = re.compile(r"\b(sk-|key-|Bearer\s+)[A-Za-z0-9_\-*.]{4,}")
_MESSAGE_LIMIT = 300


def cause(error: BaseException, secret: str) -> str:
    """The innermost reason of a connection error, e.g. "connection refused"."""
    inner: BaseException = error
    while inner.__cause__ is not None:
        inner = inner.__cause__
    return one_line(str(inner) or type(inner).__name__, secret)


def refused(error: BaseException) -> bool:
    """Whether a connection failed at once under a timeout's name (aiohttp's refused
    connection reaches the SDK as a connect timeout): an OS error, not a timeout, inside."""
    inner: BaseException | None = error
    while inner is not None and not isinstance(inner, OSError):
        inner = inner.__cause__
    return inner is not None and not isinstance(inner, TimeoutError)


def one_line(text: str, secret: str) -> str:
    """`text` on one line, bounded, with anything like a key masked."""
    if secret:
        text = text.replace(secret, "***")
    text = _KEY_LIKE.sub(lambda m: m.group(1) + "***", text)
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 1] + "…"


def safe_url(url: str) -> str:
    """`url` without credentials or query."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}"
