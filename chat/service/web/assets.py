"""The static files under `chat/service/web/static`, read once (with the values the server fills
in) and served with an ETag and gzip."""

from __future__ import annotations

import gzip
import hashlib
import json
import mimetypes
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from chat.rag.citations.guard import CITATION_PATTERN
from chat.service.web.papers.focus import MAX_QUOTE_CHARS
from chat.service.web.rendering import script_json
from ingest.errors import PaperchatError

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
# Values written into a static file where it names them (a JSON string literal), so the
# file cannot disagree with the server: the dock draws chips for what the guard emits.
_FILLED: Final[dict[str, dict[str, object]]] = {
    "dock.js": {
        "__PAPERCHAT_CITATION_PATTERN__": CITATION_PATTERN,
        "__PAPERCHAT_MAX_QUOTE_CHARS__": MAX_QUOTE_CHARS,
    },
    "reader.js": {"__PAPERCHAT_MAX_QUOTE_CHARS__": MAX_QUOTE_CHARS},
}


class AssetNotFound(PaperchatError, LookupError):
    """No static file of that name."""


@dataclass(frozen=True)
class Asset:
    name: str
    body: bytes
    gzipped: bytes
    media_type: str
    etag: str


@cache
def static_asset(name: str, filled: tuple[tuple[str, object], ...] = ()) -> Asset:
    """The file `name` directly under the static folder; no sub-folders, no dot files.

    `filled` gives values of the server's own settings, `(placeholder, value)`, written
    like the fixed ones (the dock's question length is the server's
    `PAPERCHAT_MAX_QUESTION_CHARS`)."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise AssetNotFound(f"no static file {name!r}")
    path = STATIC_DIR / name
    if not path.is_file():
        raise AssetNotFound(f"no static file {name!r}")
    body = path.read_bytes()
    for placeholder, value in (*_FILLED.get(name, {}).items(), *filled):
        body = body.replace(json.dumps(placeholder).encode(), script_json(value).encode())
    media_type = _TYPES.get(path.suffix) or mimetypes.guess_type(name)[0] or "text/plain"
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return Asset(name, body, gzip.compress(body, mtime=0), media_type, etag)
