"""The dock on the app's own pages, in Chromium, against the fake upstream."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Route, expect

from tests.chat.service.web.conftest import PAPER_ID, XSS, XSS_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock, json_body
from tests.support.running.server import PASSWORD, Api
from tests.support.worlds.reader import reader_link

pytestmark = pytest.mark.timeout(240)

PAPER_TITLE = "Improving the Performance of Unimodal Dynamic Hand-Gesture Recognition"
CITED = f"[arXiv:{PAPER_ID}]"
SLOW_ANSWER = ChatScript(
    pieces=(
        "Training ",
        "with ",
        "several ",
        "modalities ",
        "makes ",
        "each ",
        "**unimodal** ",
        "network ",
        "better ",
        CITED,
        ". ",
        "A ",
        "spatiotemporal ",
        "semantic ",
        "alignment ",
        "loss ",
        "aligns ",
        "their ",
        "features ",
        CITED,
        ".",
    ),
    delay=0.25,
)


def test_answer_streams_in_with_citation_chips_and_sources(
    web: Api, page: Page, artifacts: Path
) -> None:
    web.fake.script_chat(SLOW_ANSWER)
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    with page.expect_request(lambda r: r.url.endswith("/api/chat")) as sent:
        dock.ask("How does multimodal training help a unimodal network?")
    lengths = dock.growing_lengths(4)
    page.screenshot(path=artifacts / "paper-dock-answering.png")
    answer = dock.wait_answered()

    final = answer.locator(".answer").inner_text()
    assert lengths == sorted(set(lengths))
    assert lengths[-1] < len(final)
    assert final.startswith("Training with several modalities makes each unimodal network")
    assert answer.locator("strong").inner_text() == "unimodal"
    chips = answer.locator("a.cite")
    expect(chips).to_have_count(2)
    expect(chips.first).to_have_attribute("href", reader_link(web.base_url, PAPER_ID))
    chips.first.hover()
    expect(page.locator("paperchat-dock .tip")).to_contain_text(PAPER_TITLE)
    expect(answer.locator(".sources li").first).to_contain_text(PAPER_TITLE)
    assert json_body(sent.value)["paper_ids"] == [PAPER_ID]


def test_asking_across_all_papers_sends_no_paper_ids(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    scope = page.get_by_label(f"Only this paper ({PAPER_ID})")

    scope.uncheck()
    with page.expect_request(lambda r: r.url.endswith("/api/chat")) as sent:
        dock.ask("How does multimodal training improve unimodal hand gesture recognition?")
    dock.wait_answered()

    assert json_body(sent.value)["paper_ids"] == []
    expect(scope).not_to_be_checked()


def test_stop_ends_the_stream_and_the_upstream_sees_the_disconnect(web: Api, page: Page) -> None:
    web.fake.script_chat(ChatScript(pieces=("Partial ", "answer ", "so ", "far"), hang_after=3))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("Tell me everything.")
    expect(dock.last_answer.locator(".answer")).to_have_text("Partial answer so", timeout=WAIT_MS)

    dock.button("Stop").click()

    answer = dock.wait_answered()
    expect(answer.locator(".status")).to_contain_text("Stopped.")
    expect(dock.button("Send")).to_be_visible()
    assert web.fake.client_disconnected.wait(timeout=30)


def test_upstream_failure_shows_inline_with_a_retry_that_answers(web: Api, page: Page) -> None:
    web.fake.script_chat(ChatScript(fail_status=400))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("Will this fail?")
    failed = dock.wait_answered()
    expect(failed.locator(".alert")).to_contain_text("Error")

    failed.get_by_role("button", name="Retry").click()

    answer = dock.wait_answered()
    expect(answer.locator(".answer")).to_have_text("Hello, world.")
    expect(page.locator("paperchat-dock .log .alert")).to_have_count(0)


def test_http_error_shows_inline_and_retry_recovers(web: Api, page: Page) -> None:
    email = web.new_user()
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(email)
    dock.ask("First question")
    dock.wait_answered()
    with web.signed_in(email) as client:
        (conversation,) = client.get("/api/conversations").json()
        client.delete(f"/api/conversations/{conversation['id']}").raise_for_status()

    with page.expect_response(lambda r: r.url.endswith("/api/chat")) as refused:
        dock.ask("A follow-up")
    failed = dock.wait_answered(2)
    expect(failed.locator(".alert")).to_contain_text("this conversation no longer exists")
    failed.get_by_role("button", name="Retry").click()

    assert refused.value.status == 404
    answer = dock.wait_answered(2)
    expect(answer.locator(".answer")).to_have_text("Hello, world.")
    expect(page.locator("paperchat-dock .user")).to_have_text(["First question", "A follow-up"])


def test_a_busy_server_is_said_with_its_wait_and_the_question_asked_again(
    web: Api, page: Page
) -> None:
    refusals: list[str] = []

    def busy_once(route: Route) -> None:
        if refusals:
            route.continue_()
            return
        refusals.append(route.request.url)
        body = '{"detail": "the server is busy: 4 answers are being written and 64 wait"}'
        route.fulfill(
            status=503, headers={"Retry-After": "2"}, content_type="application/json", body=body
        )

    page.route("**/api/chat", busy_once)
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    dock.ask("A question while the server is busy")

    expect(page.locator("paperchat-dock .assistant .note")).to_contain_text(
        re.compile(r"The server is busy: retrying in [12] s")
    )
    answer = dock.wait_answered()
    expect(answer.locator(".answer")).to_have_text("Hello, world.")
    expect(answer.locator(".alert")).to_have_count(0)
    assert len(refusals) == 1


def test_extractive_answers_say_so(extractive_web: Api, page: Page) -> None:
    page.goto(f"{extractive_web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(extractive_web.new_user())

    dock.ask("How does multimodal training help a unimodal network?")
    answer = dock.wait_answered()

    expect(answer.locator(".status")).to_contain_text("Extractive answer")
    expect(answer.locator(".sources li").first).to_contain_text(PAPER_TITLE)


def test_ended_session_brings_back_the_sign_in_form(
    web: Api, page: Page, context: BrowserContext
) -> None:
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    context.clear_cookies()

    dock.question.fill("Still signed in?")
    dock.question.press("Enter")

    expect(page.get_by_label("Password")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Your session has ended: sign in again.")).to_be_visible()


def test_past_conversation_reopens_with_its_citations_then_sign_out(web: Api, page: Page) -> None:
    web.fake.script_chat(ChatScript(pieces=("It is about gestures ", CITED, ".")))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.ask("What is this paper about?")
    dock.wait_answered()
    dock.button("New chat").click()
    expect(dock.answers).to_have_count(0)

    dock.button("History").click()
    page.locator("paperchat-dock .history button", has_text="What is this paper about?").click()

    expect(page.locator("paperchat-dock .user")).to_have_text("What is this paper about?")
    answer = dock.wait_answered()
    expect(answer.locator(".answer")).to_have_text(f"It is about gestures arXiv:{PAPER_ID}.")
    expect(answer.locator("a.cite")).to_have_attribute("href", reader_link(web.base_url, PAPER_ID))
    expect(answer.locator(".sources li").first).to_contain_text(PAPER_TITLE)

    dock.button("Sign out").click()

    expect(page.get_by_label("Password")).to_be_visible()
    page.reload()
    expect(page.get_by_label("Password")).to_be_visible(timeout=WAIT_MS)


def test_markup_in_titles_and_answers_shows_as_text(
    web: Api, page: Page, dialogs: list[str]
) -> None:
    html_answer = (
        "<img src=x onerror=alert(2)> ",
        "<script>alert(3)</script> ",
        f"[arXiv:{XSS_ID}]",
    )
    web.fake.script_chat(ChatScript(pieces=html_answer))
    page.goto(f"{web.base_url}/papers/{XSS_ID}")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    dock.ask("What is in the title?")
    answer = dock.wait_answered()
    answer.locator("a.cite").hover()

    expect(page.locator("h1")).to_have_text(XSS)
    expect(answer.locator(".answer")).to_contain_text("<img src=x onerror=alert(2)>")
    expect(answer.locator(".answer")).to_contain_text("<script>alert(3)</script>")
    expect(answer.locator(".sources li").first).to_contain_text(XSS)
    expect(page.locator("paperchat-dock .tip")).to_contain_text(XSS)
    expect(page.locator("img")).to_have_count(0)
    page.goto(f"{web.base_url}/?q=escaping+untrusted+metadata")
    expect(page.locator(".result h3").first).to_have_text(XSS)
    expect(page.locator("img")).to_have_count(0)
    assert dialogs == []


def test_sign_up_in_the_dock_creates_the_account_and_signs_in(web: Api, page: Page) -> None:
    email = f"new-{secrets.token_hex(4)}@example.org"
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.open()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)

    dock.button("Create account").click()

    expect(dock.who).to_have_text(email, timeout=WAIT_MS)
    expect(dock.question).to_be_focused()


def test_keyboard_alone_opens_signs_in_asks_and_closes(web: Api, page: Page) -> None:
    email = web.new_user()
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    for _ in range(40):
        page.keyboard.press("Tab")
        if dock.launcher.evaluate("button => button.matches(':focus')"):
            break
    expect(dock.launcher).to_be_focused()

    page.keyboard.press("Enter")
    expect(page.get_by_label("Email")).to_be_focused()
    page.keyboard.type(email)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(dock.question).to_be_focused(timeout=WAIT_MS)
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    expect(dock.question).to_have_value("first line\nsecond line")
    page.keyboard.press("Enter")
    answer = dock.wait_answered()
    page.keyboard.press("Escape")

    expect(answer.locator(".answer")).to_have_text("Hello, world.")
    expect(page.locator("paperchat-dock .user")).to_have_text("first line\nsecond line")
    expect(page.locator("paperchat-dock .log")).to_have_attribute("aria-live", "polite")
    expect(dock.panel).to_be_hidden()
    expect(dock.launcher).to_be_focused()


def test_open_state_is_kept_across_pages(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.open()

    page.goto(f"{web.base_url}/papers/{PAPER_ID}")

    expect(dock.panel).to_be_visible(timeout=WAIT_MS)
    expect(dock.launcher).to_be_hidden()


def test_open_dock_takes_the_full_width_of_a_phone(web: Api, page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)

    dock.open()

    box = dock.panel.bounding_box()
    assert box is not None
    assert (box["x"], box["width"]) == (0, 375)
    dock.sign_in(web.new_user())
    dock.ask("What is this paper about?")
    dock.wait_answered()
    page.screenshot(path=artifacts / "mobile-dock.png")


@pytest.mark.parametrize("path", ["/?q=hand+gesture+recognition", f"/papers/{PAPER_ID}"])
def test_pages_fit_a_phone_without_sideways_scrolling(web: Api, page: Page, path: str) -> None:
    page.set_viewport_size({"width": 375, "height": 740})

    page.goto(f"{web.base_url}{path}")

    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    expect(page.locator("h1")).to_be_visible()


PAGE_BESIDE_PANEL = """
() => {
  const panel = document.querySelector("paperchat-dock").shadowRoot.querySelector(".panel");
  const article = document.querySelector("article").getBoundingClientRect();
  return article.right <= panel.getBoundingClientRect().left;
}
"""


def test_open_dock_sits_beside_the_page_on_a_wide_screen(web: Api, page: Page) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)

    dock.open()

    # The page makes room with a short transition: wait for it to end.
    page.wait_for_function(PAGE_BESIDE_PANEL, timeout=WAIT_MS)
    box = dock.panel.bounding_box()
    article = page.locator("article").bounding_box()
    assert box is not None
    assert article is not None
    assert box["x"] + box["width"] == 1440
    assert box["width"] == 420
    assert article["x"] + article["width"] <= box["x"]


def test_search_page_finds_papers_in_the_browser(web: Api, page: Page, artifacts: Path) -> None:
    page.goto(f"{web.base_url}/")

    page.get_by_role("searchbox", name="Search papers").fill("hand gesture recognition")
    page.keyboard.press("Enter")

    first = page.locator(".result").first
    expect(first.locator("h3 a")).to_have_attribute(
        "href", re.compile(rf"^/papers/{re.escape(PAPER_ID)}-[a-z0-9-]+$")
    )
    expect(first.locator(".categories li").first).to_have_text("cs.CV")
    page.screenshot(path=artifacts / "search.png")
