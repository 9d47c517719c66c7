# Unicode look-alikes of ASCII are the readable TeX these tests expect.
# ruff: noqa: RUF001
"""The pages, dock.js and the dock's session endpoint over plain HTTP."""

from __future__ import annotations

import gzip
import html
import json

import httpx
import pytest

from chat.rag.citations.guard import CITATION_PATTERN
from chat.service.access.ratelimit import build_rate_limiter
from chat.service.web.assets import static_asset
from tests.chat.service.web.conftest import OLD_STYLE_ID, PAPER_ID, XSS, XSS_ID
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(180)

MAX_DOCK_GZIPPED = 60 * 1024


def test_search_page_lists_results_with_authors_date_categories_and_links(web: Api) -> None:
    with web.client() as client:
        response = client.get("/", params={"q": "dynamic hand gesture recognition multimodal"})

    assert response.status_code == 200
    page = response.text
    assert f'href="/papers/{PAPER_ID}-improving-the-performance-of-unimodal-' in page
    assert "Improving the Performance of Unimodal Dynamic Hand-Gesture Recognition" in page
    assert "Mahdi Abavisani" in page
    assert '<li><a href="/categories/cs.CV">cs.CV</a></li>' in page
    assert 'class="snippet"' in page
    assert '<time datetime="' in page


def test_search_page_without_a_query_shows_the_box_and_the_index_size(web: Api) -> None:
    with web.client() as client:
        response = client.get("/")

    assert response.status_code == 200
    assert 'name="q"' in response.text
    assert "32 papers indexed" in response.text


def test_paper_page_shows_metadata_links_and_readable_tex(web: Api) -> None:
    with web.client() as client:
        response = client.get(f"/papers/{OLD_STYLE_ID}v2", follow_redirects=True)

    assert response.status_code == 200
    page = response.text
    assert "Strings on AdS₅ × S⁵ and the Schrödinger equation" in page
    assert "α-expansion" in page
    assert "λ ≤ 1" in page
    assert (
        '<a href="/authors/Ada%20Author">Ada Author</a>, '
        '<a href="/authors/Bo%20Author">Bo Author</a>'
    ) in page
    assert '<time datetime="1999-01-04">' in page
    assert f'href="https://arxiv.org/abs/{OLD_STYLE_ID}"' in page
    assert f'href="https://arxiv.org/pdf/{OLD_STYLE_ID}"' in page
    assert "Abstract only" in page
    assert f'data-paper="{OLD_STYLE_ID}"' in page


def test_paper_page_escapes_markup_in_metadata(web: Api) -> None:
    with web.client() as client:
        response = client.get(f"/papers/arXiv:{XSS_ID}", follow_redirects=True)

    assert response.status_code == 200
    assert XSS not in response.text
    assert html.escape(XSS, quote=False) in response.text
    assert "<b>Mallory</b>" not in response.text


def test_pages_forbid_inline_scripts(web: Api) -> None:
    with web.client() as client:
        response = client.get(f"/papers/{PAPER_ID}", follow_redirects=True)

    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "<script>" not in response.text


def test_unknown_paper_is_a_404_page_with_a_search_box(web: Api) -> None:
    with web.client() as client:
        response = client.get("/papers/9999.99999")

    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "No paper “9999.99999” here" in response.text
    assert "This library has no paper with that id" in response.text
    assert "harvest" not in response.text  # nothing harvests unless its administrator says so
    assert 'role="search"' in response.text


def test_dock_script_is_served_small_when_gzipped(web: Api) -> None:
    with web.client() as client:
        response = client.get("/dock.js", headers={"Accept-Encoding": "gzip"})

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["content-encoding"] == "gzip"
    assert len(gzip.compress(response.content)) < MAX_DOCK_GZIPPED
    assert int(response.headers["content-length"]) < MAX_DOCK_GZIPPED


def test_dock_script_revalidates_by_etag(web: Api) -> None:
    with web.client() as client:
        first = client.get("/dock.js")
        again = client.get("/dock.js", headers={"If-None-Match": first.headers["etag"]})

    assert again.status_code == 304


def test_static_files_are_only_those_of_the_static_folder(web: Api) -> None:
    with web.client() as client:
        css = client.get("/static/site.css")
        outside = client.get("/static/..%2Frendering.py")

    assert css.status_code == 200
    assert "prefers-color-scheme: dark" in css.text
    assert outside.status_code == 404


def test_dock_session_gives_a_live_session_its_csrf_token(web: Api) -> None:
    with web.client() as anonymous, web.signed_in() as client:
        signed_out = anonymous.get("/dock/session").json()
        signed_in = client.get("/dock/session").json()
        token_works = client.post(
            "/api/keys", json={"name": "dock"}, headers={"X-CSRF-Token": signed_in["csrf_token"]}
        )

    assert signed_out == {"user": None, "csrf_token": None, "allow_signup": True}
    assert signed_in["user"]["email"].endswith("@example.org")
    assert token_works.status_code == 201


def test_dock_session_is_readable_by_the_embedding_origin_only(web: Api, host_port: int) -> None:
    allowed = f"http://127.0.0.1:{host_port}"

    with web.client() as client:
        embedder = client.get("/dock/session", headers={"Origin": allowed})
        stranger = client.get("/dock/session", headers={"Origin": "http://evil.example"})

    assert embedder.headers["access-control-allow-origin"] == allowed
    assert embedder.headers["access-control-allow-credentials"] == "true"
    assert "access-control-allow-origin" not in stranger.headers


def test_html_pages_stay_out_of_the_openapi_schema(web: Api) -> None:
    with web.client() as client:
        paths = client.get("/openapi.json").json()["paths"]

    assert "/" not in paths
    assert "/papers/{arxiv_id}" not in paths
    assert "/dock.js" not in paths
    assert "/dock/session" in paths


def test_pages_need_no_sign_in(web: Api) -> None:
    response = httpx.get(f"{web.base_url}/papers/{PAPER_ID}", timeout=20, follow_redirects=True)

    assert response.status_code == 200
    title = "Improving the Performance of Unimodal Dynamic Hand-Gesture Recognition with"
    assert f"<h1>{title} Multimodal Training</h1>" in response.text


def test_searches_from_one_address_are_limited(web: Api) -> None:
    original = web.services.search_limiter
    web.services.search_limiter = build_rate_limiter("2/minute", None)
    try:
        with web.client() as client:
            pages = [client.get("/", params={"q": f"gesture {n}"}) for n in range(3)]
            plain = client.get("/")
    finally:
        web.services.search_limiter = original

    assert [p.status_code for p in pages] == [200, 200, 429]
    assert int(pages[2].headers["Retry-After"]) >= 1
    assert "Too many searches from here just now" in pages[2].text
    assert plain.status_code == 200, "the page without a query is not counted"


def test_dock_script_carries_the_citation_guards_pattern(web: Api) -> None:
    with web.client() as client:
        script = client.get("/dock.js").text

    assert f"const CITATION_PATTERN = {json.dumps(CITATION_PATTERN)};" in script
    assert "__PAPERCHAT_CITATION_PATTERN__" not in script


def test_dock_script_takes_the_servers_question_length(web: Api) -> None:
    limit = web.services.settings.max_question_chars

    with web.client() as client:
        script = client.get("/dock.js").text
    shorter = static_asset("dock.js", (("__PAPERCHAT_MAX_QUESTION_CHARS__", 50),)).body.decode()

    assert f"const MAX_QUESTION_CHARS = {limit};" in script
    assert "const MAX_QUESTION_CHARS = 50;" in shorter
    assert "__PAPERCHAT_MAX_QUESTION_CHARS__" not in script + shorter
    assert 'maxlength: "4000"' not in script


def _without_body(response: httpx.Response) -> tuple[int, str, str]:
    """What a HEAD must repeat of a GET: the status, the type and the length."""
    headers = response.headers
    return response.status_code, headers.get("content-type", ""), headers["content-length"]


def test_pages_feeds_and_the_api_answer_head_as_get_without_the_body(web: Api) -> None:
    with web.key_client() as client:
        paper_page = client.get(f"/papers/{PAPER_ID}", follow_redirects=True).url.path
        name = client.get(f"/api/papers/{PAPER_ID}").json()["authors"].split(",")[0].strip()
        researcher = client.get("/api/researchers", params={"name": name}).json()["results"][0]
    paths = [
        "/", "/?q=gesture+recognition", paper_page, researcher["path"], "/categories/cs.CV",
        "/institutions", "/latest", "/settings", "/feeds/latest.atom",
        "/feeds/categories/cs.CV.atom", f"/feeds/researchers/{researcher['id']}.atom",
        "/llms.txt", "/sitemap.xml", "/robots.txt", "/dock.js", f"/api/papers/{PAPER_ID}",
        "/api/search?q=gesture", "/api/me", "/v1/models", "/papers/9999.99999",
    ]  # fmt: skip

    with web.key_client() as client:
        gets = {path: _without_body(client.get(path)) for path in paths}
        heads = {path: client.head(path) for path in paths}

    assert {path: _without_body(head) for path, head in heads.items()} == gets
    assert {path: head.content for path, head in heads.items()} == dict.fromkeys(paths, b"")
    assert gets["/"][0] == gets[paper_page][0] == gets["/v1/models"][0] == 200
    assert gets["/papers/9999.99999"][0] == 404
