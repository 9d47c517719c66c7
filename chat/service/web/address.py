"""The address this site is reached at, for the absolute links it writes (a canonical link,
a sitemap, `/llms.txt`): `PAPERCHAT_PUBLIC_URL` when set, since a request's own Host header
is whatever the client wrote; else the address the request was sent to."""

from __future__ import annotations

from fastapi import Request

from chat.settings import Settings


def site_address(request: Request, settings: Settings) -> str:
    """`https://papers.example.org`, with no `/` at its end."""
    return (settings.public_url or str(request.base_url)).rstrip("/")
