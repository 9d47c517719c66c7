"""The dock as people use it, in Chromium: a conversation that survives navigation and reloads,
plain refusals, sources grouped by paper, the new answer kept in view, Escape, the sign-in
form, and an embed on a site the server does not allow."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route as StarletteRoute

from tests.chat.service.web.conftest import PAPER_ID, host_page
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.net import serving, unused_port
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

CITED = f"[arXiv:{PAPER_ID}]"
OTHER_PAPER = "1904.11093"  # the same authors' other paper among the web index's abstracts
UNANSWERABLE = "What is the boiling point of tungsten at sea level in kelvin?"


def _sse(*events: tuple[str, dict[str, Any]]) -> str:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def _source(n: int, paper: str, title: str, section: str, page: int | None) -> dict[str, Any]:
    return {
        "n": n, "id": paper, "title": title, "chunk_id": f"{paper}#fulltext-{n}@x",
        "kind": "fulltext", "section": section, "page": page, "snippet": f"Passage {n} of {paper}.",
        "score": 1.0 / n, "url": f"https://arxiv.org/abs/{paper}",
    }  # fmt: skip


def _answer_with(page: Page, sources: list[dict[str, Any]], text: str, **done: Any) -> None:
    """Answer the page's next questions with this stream instead of the server's."""
    body = _sse(
        ("meta", {"conversation_id": "scripted", "message_id": "m1"}),
        ("sources", {"sources": sources}),
        ("delta", {"text": text}),
        ("done", {"finish_reason": "stop", "citations": [], "dropped_citations": [],
                  "mode": "llm", "usage": {}, "timings": {}, **done}),
    )  # fmt: skip

    def fulfil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/event-stream", body=body)

    page.route("**/api/chat", fulfil)


def test_the_conversation_stays_across_pages_and_reloads(
    web: Api, page: Page, artifacts: Path
) -> None:
    web.fake.script_chat(ChatScript(pieces=("Gestures, mostly ", CITED, ".")))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("What is this paper about?")
    dock.wait_answered()

    page.goto(f"{web.base_url}/papers/{OTHER_PAPER}")
    expect(page.locator("paperchat-dock .user")).to_have_text("What is this paper about?")
    page.screenshot(path=artifacts / "dock-after-navigation.png")
    page.go_back()
    expect(page.locator("paperchat-dock .user")).to_have_text("What is this paper about?")
    page.reload()

    expect(page.locator("paperchat-dock .user")).to_have_text("What is this paper about?")
    answer = dock.wait_answered()
    expect(answer.locator(".answer")).to_have_text(f"Gestures, mostly arXiv:{PAPER_ID}.")
    expect(dock.panel).to_be_visible()


def test_new_chat_and_sign_out_forget_the_conversation(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("First question")
    dock.wait_answered()

    dock.button("New chat").click()
    page.reload()

    expect(dock.who).not_to_have_text("", timeout=WAIT_MS)
    expect(page.locator("paperchat-dock .empty")).to_be_visible()
    expect(dock.answers).to_have_count(0)


def test_a_refusal_says_nothing_was_found_and_lists_no_sources(
    extractive_web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{extractive_web.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_web.new_user())

    dock.ask(UNANSWERABLE)
    answer = dock.wait_answered()

    expect(answer.locator(".status .refusal-note")).to_have_text(
        "Nothing relevant was found in the papers."
    )
    # A question no paper answers yet is one worth keeping watch on.
    expect(answer.get_by_role("button", name="Keep watch on this question")).to_be_visible()
    expect(answer).to_have_attribute("data-refused", "true")
    expect(answer.locator(".sources")).to_have_count(0)
    expect(answer.locator(".status")).not_to_contain_text("Extractive")
    page.screenshot(path=artifacts / "dock-refusal.png")


def test_a_refusal_flagged_by_the_server_hides_its_sources(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    sources = [_source(1, PAPER_ID, "Gestures", "Abstract", None)]
    _answer_with(page, sources, "The papers do not say.", refused=True)

    dock.ask("Anything?")
    answer = dock.wait_answered()

    expect(answer.locator(".status .refusal-note")).to_have_text(
        "Nothing relevant was found in the papers."
    )
    expect(answer.locator(".sources")).to_have_count(0)


def test_sources_are_grouped_by_paper_with_their_passages_under_it(
    web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    sources = [
        _source(1, PAPER_ID, "Gestures", "3 Method", 3),
        _source(2, OTHER_PAPER, "Sparse", "1 Introduction", 1),
        _source(3, PAPER_ID, "Gestures", "4 Experiments", 5),
        _source(4, PAPER_ID, "Gestures", "4 Experiments", 6),
    ]
    _answer_with(page, sources, f"Both [arXiv:{PAPER_ID}] and [arXiv:{OTHER_PAPER}].")

    dock.ask("What do they do?")
    answer = dock.wait_answered()

    papers = answer.locator(".sources .paper-source")
    expect(papers).to_have_count(2)
    expect(papers.nth(0).locator("a.paper-title")).to_have_text("Gestures")
    expect(papers.nth(0).locator(".passages li")).to_have_count(3)
    expect(papers.nth(0).locator(".passages li").nth(1)).to_contain_text("4 Experiments · page 5")
    expect(papers.nth(1).locator(".passages li")).to_have_count(1)
    expect(answer.locator(".sources summary")).to_have_text("Sources: 2 papers, 4 passages")
    page.screenshot(path=artifacts / "dock-sources-grouped.png")


QUESTION_AND_FIRST_LINE_IN_VIEW = """
() => {
  const root = document.querySelector("paperchat-dock").shadowRoot;
  const log = root.querySelector(".log").getBoundingClientRect();
  const questions = root.querySelectorAll(".user");
  const question = questions[questions.length - 1].getBoundingClientRect();
  const answers = root.querySelectorAll(".assistant .answer");
  const first = answers[answers.length - 1].firstElementChild.getBoundingClientRect();
  return question.top >= log.top && first.bottom <= log.bottom;
}
"""


def test_a_long_new_answer_keeps_its_question_and_first_line_in_view(web: Api, page: Page) -> None:
    page.set_viewport_size({"width": 1280, "height": 700})
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    long = "\n\n".join(f"Paragraph {n} of a long answer. " * 6 for n in range(30))
    _answer_with(page, [_source(1, PAPER_ID, "Gestures", "Abstract", None)], long)
    dock.ask("A first long question")
    dock.wait_answered()

    dock.ask("A second long question")
    dock.wait_answered(2)

    assert page.evaluate(QUESTION_AND_FIRST_LINE_IN_VIEW)
    scroll = page.locator("paperchat-dock .log").evaluate("log => log.scrollTop")
    assert scroll > 0


def test_escape_closes_the_dock_only_when_focus_is_inside_it(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.open()
    page.locator("h1").click()

    page.keyboard.press("Escape")

    expect(dock.panel).to_be_visible()
    page.get_by_label("Email").focus()
    page.keyboard.press("Escape")
    expect(dock.panel).to_be_hidden()
    expect(dock.launcher).to_be_focused()


def test_text_typed_into_the_sign_in_fields_is_not_bold(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.open()

    weights = [
        page.get_by_label(label).evaluate("input => getComputedStyle(input).fontWeight")
        for label in ("Email", "Password")
    ]

    assert weights == ["400", "400"]


@pytest.fixture
def unlisted_origin(web: Api) -> Iterator[str]:
    """A site whose origin `PAPERCHAT_CORS_ORIGINS` does not list, embedding the dock."""

    async def host(_request: Request) -> HTMLResponse:
        return HTMLResponse(host_page(web.base_url))

    app = Starlette(routes=[StarletteRoute("/", host)])
    with serving(app, unused_port(), lifespan="off") as base_url:
        yield base_url


def test_an_embed_on_an_unlisted_origin_names_the_setting_in_the_dock_and_the_log(
    web: Api, unlisted_origin: str, page: Page, caplog: pytest.LogCaptureFixture, artifacts: Path
) -> None:
    caplog.set_level(logging.WARNING, logger="paperchat.origins")
    page.goto(unlisted_origin)
    dock = Dock(page)

    dock.open()

    alert = page.locator("paperchat-dock .alert").first
    expect(alert).to_contain_text("PAPERCHAT_CORS_ORIGINS", timeout=WAIT_MS)
    expect(alert).to_contain_text(unlisted_origin)
    page.screenshot(path=artifacts / "dock-unlisted-origin.png")
    logged = [r.getMessage() for r in caplog.records if r.name == "paperchat.origins"]
    assert any(unlisted_origin in m and "PAPERCHAT_CORS_ORIGINS" in m for m in logged)
