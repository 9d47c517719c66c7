"""In-text citations on the reader's pages, in Chromium, over FiD, DPR and RAG read from their
real PDFs: a target over each mark whose card, on hover or keyboard focus, names the
reference and the library's paper, and which stays off the text on a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.support.dock import Dock
from tests.support.running.server import Api
from tests.support.worlds.citations import DPR, FID

pytestmark = pytest.mark.timeout(300)

KARPUKHIN = "Karpukhin et al., 2020"


def _second_page(page: Page, api: Api) -> None:
    page.goto(f"{api.base_url}/papers/{FID}")
    page.get_by_label("Page number").fill("2")
    page.get_by_label("Page number").press("Enter")
    expect(page.locator('[data-page="2"]')).to_have_attribute("data-citations", "shown")


def _karpukhin(page: Page) -> Locator:
    """The target of page 2's citation of DPR."""
    on_page = page.get_by_role("group", name="Page 2")
    return on_page.get_by_role("button", name=f"Citation {KARPUKHIN}")


def test_hovering_a_citation_shows_its_reference_and_the_librarys_paper(
    cited_web: Api, page: Page, artifacts: Path
) -> None:
    _second_page(page, cited_web)
    target = _karpukhin(page)
    card = page.get_by_role("tooltip")

    target.hover()

    expect(card).to_be_visible()
    expect(card).to_contain_text("Dense Passage Retrieval for Open-Domain Question Answering")
    expect(card).to_contain_text("Vladimir Karpukhin, Barlas Oguz")
    expect(card.get_by_role("link", name="Read it")).to_have_attribute(
        "href", f"/papers/{DPR}#reader"
    )
    mark = target.bounding_box()
    shown = card.bounding_box()
    assert mark is not None
    assert shown is not None
    assert shown["y"] >= mark["y"] + mark["height"] - 1  # below the mark, not over it
    page.screenshot(path=artifacts / "reader-citation-card.png")


def test_a_keyboard_user_reaches_the_card_and_escape_closes_it(cited_web: Api, page: Page) -> None:
    _second_page(page, cited_web)
    target = _karpukhin(page)
    card = page.get_by_role("tooltip")

    target.focus()
    expect(card).to_be_visible()
    expect(target).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")

    expect(card).to_be_hidden()
    expect(target).to_be_focused()
    expect(target).to_have_attribute("aria-describedby", "reader-card")


def test_the_text_under_a_citation_can_still_be_selected(cited_web: Api, page: Page) -> None:
    _second_page(page, cited_web)
    lines = page.locator('[data-page="2"] .reader-text span')

    selected = page.evaluate(
        """(spans) => {
            const range = document.createRange();
            range.selectNodeContents(spans.find((s) => s.textContent.includes("Karpukhin")));
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            return getSelection().toString();
        }""",
        lines.element_handles(),
    )

    assert "Karpukhin et al" in selected


def test_on_a_phone_the_card_sits_at_the_foot_of_the_screen(
    browser: Browser, cited_web: Api, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    _second_page(page, cited_web)
    target = _karpukhin(page)
    card = page.get_by_role("tooltip")

    target.focus()

    expect(card).to_be_visible()
    shown = card.bounding_box()
    assert shown is not None
    assert shown["y"] + shown["height"] == pytest.approx(844, abs=2)
    assert shown["width"] <= 390
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=artifacts / "reader-citation-card-phone.png")
    context.close()


def test_ask_about_it_asks_the_dock_about_the_cited_paper_alone(cited_web: Api, page: Page) -> None:
    _second_page(page, cited_web)
    _karpukhin(page).hover()
    card = page.get_by_role("tooltip")

    with page.expect_request("**/api/chat") as asked:
        card.get_by_role("button", name="Ask about it").click()

    body = asked.value.post_data_json
    assert body is not None
    assert body["paper_ids"] == [DPR]
    assert "Dense Passage Retrieval for Open-Domain Question Answering" in body["message"]
    expect(card).to_be_hidden()
    expect(page.locator("#pc-panel")).to_be_visible()


def test_the_card_says_the_reader_follows_the_cited_paper_and_opened_it_before(
    cited_web: Api, page: Page
) -> None:
    card = page.get_by_role("tooltip")
    _second_page(page, cited_web)
    _karpukhin(page).hover()
    expect(card).to_contain_text("Dense Passage Retrieval")
    first = card.inner_text()
    email = cited_web.new_user()
    with cited_web.signed_in(email) as client:
        client.post("/api/follows", json={"kind": "paper", "value": DPR}).raise_for_status()
    page.goto(f"{cited_web.base_url}/papers/{DPR}")
    Dock(page).sign_in(email)

    _second_page(page, cited_web)
    _karpukhin(page).hover()

    assert "You opened it before" not in first
    assert "You follow it" not in first
    expect(card).to_contain_text("You follow it · You opened it before.")


def test_what_the_library_says_about_a_page_follows_it(
    cited_web: Api, page: Page, artifacts: Path
) -> None:
    with cited_web.client() as client:
        pages = client.get(f"/papers/{DPR}/pages/1/annotations").json()["pages"]
        said = {
            n: client.get(f"/papers/{DPR}/pages/{n}/annotations").json()["discussions"]
            for n in range(1, pages + 1)
        }
    number, discussions = next((n, d) for n, d in said.items() if d)
    page.goto(f"{cited_web.base_url}/papers/{DPR}")
    page.get_by_label("Page number").fill(str(number))
    page.get_by_label("Page number").press("Enter")

    aside = page.get_by_role("complementary", name=f"What the library says about page {number}")

    expect(aside).to_be_visible()
    expect(aside.locator("li")).to_have_count(len(discussions))
    expect(aside.locator("q").first).to_have_text(discussions[0]["sentence"])
    expect(aside.get_by_role("link", name=discussions[0]["title"]).first).to_have_attribute(
        "href", f"/papers/{discussions[0]['paper_id']}"
    )
    aside.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "reader-library-says.png")
