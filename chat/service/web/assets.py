"""The static files under `chat/web/static`, read once and served with an ETag and gzip."""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from ingest.errors import PaperchatError

STATIC_DIR: Final = Path(__file__).resolve().parent / "static"
_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
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
def static_asset(name: str) -> Asset:
    """The file `name` directly under the static folder; no sub-folders, no dot files."""
    if "/" in name or "\\" in name or name.startswith("."):
        raise AssetNotFound(f"no static file {name!r}")
    path = STATIC_DIR / name
    if not path.is_file():
        raise AssetNotFound(f"no static file {name!r}")
    body = path.read_bytes()
    media_type = _TYPES.get(path.suffix) or mimetypes.guess_type(name)[0] or "text/plain"
    etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
    return Asset(name, body, gzip.compress(body, mtime=0), media_type, etag)
