"""Every family of served page read by the Nu HTML Checker (vnu.jar, the W3C validator's
engine, run with the machine's Java): no error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID, XSS_ID
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
)
from tests.support.validators import nu_errors

pytestmark = pytest.mark.timeout(400)

PUBLIC = {
    "home": "/",
    "search": "/?q=gesture%20recognition",
    "search with no match": "/?q=zzzzqqq",
    "paper": f"/papers/{PAPER_ID}",
    "paper with an old id": f"/papers/{OLD_STYLE_ID}",
    "paper titled with markup": f"/papers/{XSS_ID}",
    "researcher": "/authors/Vishal%20M.%20Patel",
    "category": "/categories/cs.CV",
    "category not found": "/categories/not.one",
    "institutions": "/institutions",
    "not found": "/papers/9999.99999",
    "author not found": "/authors/Nobody%20Here",
    "latest for you, signed out": "/latest",
}
SIGNED_IN = {"latest for you": "/latest", "follow settings": "/settings"}
FID = "2007.01282"  # a PDF of the small index, whose page 1 names Inria


def _served(api: Api, paths: dict[str, str], signed_in: bool = False) -> dict[str, str]:
    pages = {}
    with api.signed_in() if signed_in else api.client() as client:
        for name, path in paths.items():
            response = client.get(path, follow_redirects=True)
            assert response.headers["content-type"].startswith("text/html"), name
            pages[name] = response.text
    return pages


def test_every_page_is_valid_html(web: Api, api: Api, tmp_path: Path) -> None:
    pages = _served(web, PUBLIC) | _served(web, SIGNED_IN, signed_in=True)
    pages |= _served(api, {"paper with its reader": f"/papers/{FID}"})
    with api.key_client() as client:
        found = client.get("/api/institutions", params={"name": "Inria"}).json()["results"]
    pages |= _served(api, {"institution": f"/institutions/{found[0]['id']}"})

    errors = nu_errors(pages, tmp_path)

    assert errors == {}


def test_the_checker_reports_an_error_it_is_shown(tmp_path: Path) -> None:
    broken = '<!doctype html><html lang="en"><title>x</title><p>one<div>two</p>'

    errors = nu_errors({"broken": broken}, tmp_path)

    assert list(errors) == ["broken"]
