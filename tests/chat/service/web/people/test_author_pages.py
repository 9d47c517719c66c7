"""Researcher pages in Chromium: an author's name leads there; the papers, links to them,
the co-author graph, and a dock scoped to them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import Dock, json_body
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

# Three of the web index's thirty real abstracts list him, and no other Prange.
PRANGE = "Jakob Prange"
PRANGE_PAPERS = {"2112.07874", "2302.08150", "2305.18915"}


def test_author_page_lists_the_papers_and_its_dock_cites_only_them(
    web: Api, page: Page, artifacts: Path
) -> None:
    cited = "[arXiv:2302.08150]"
    elsewhere = f"[arXiv:{PAPER_ID}]"
    web.fake.script_chat(ChatScript(pieces=("He studies prepositions ", cited, " ", elsewhere)))
    page.goto(f"{web.base_url}/authors/J.%20Prange")
    dock = Dock(page)
    expect(page.locator("h1")).to_have_text(PRANGE)
    expect(page.locator(".result")).to_have_count(3)
    dock.sign_in(web.new_user())
    expect(page).to_have_url(re.compile(r"/researchers/[a-z2-7]{8}-jakob-prange$"))
    scope = page.get_by_label(f"Only this author's papers ({PRANGE})")
    expect(scope).to_be_checked()

    with page.expect_request(lambda r: r.url.endswith("/api/chat")) as sent:
        dock.ask("What does this author study?")
    answer = dock.wait_answered()

    assert json_body(sent.value)["author"] == PRANGE
    papers = answer.locator(".sources .paper-source")
    listed = {papers.nth(i).get_attribute("data-paper") for i in range(papers.count())}
    assert listed
    assert listed <= PRANGE_PAPERS
    expect(answer.locator("a.cite")).to_have_text(["arXiv:2302.08150"])
    page.screenshot(path=artifacts / "author-page-dock.png")


def test_paper_pages_and_search_results_link_each_author(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/?q=preposition+learning+bayesian")

    page.locator(".result .authors a", has_text=PRANGE).first.click()

    expect(page).to_have_url(re.compile(r"/researchers/[a-z2-7]{8}-jakob-prange$"))
    page.locator(".result h3 a").first.click()
    expect(page.locator(".paper .authors a", has_text=PRANGE)).to_have_attribute(
        "href", "/authors/Jakob%20Prange"
    )


def test_an_unknown_author_is_a_404_page_with_a_search_box(web: Api, page: Page) -> None:
    response = page.goto(f"{web.base_url}/authors/Nobody%20Atall")

    assert response is not None
    assert response.status == 404
    expect(page.locator("h1")).to_contain_text("Nobody Atall")
    expect(page.get_by_role("searchbox", name="Search papers")).to_have_value("Nobody Atall")


def test_an_author_page_works_on_a_phone(web: Api, page: Page, artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{web.base_url}/authors/{PRANGE}")
    dock = Dock(page)
    page.screenshot(path=artifacts / "author-page-phone.png", full_page=True)

    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    dock.open()
    box = dock.panel.bounding_box()
    assert box is not None
    assert (box["x"], box["width"]) == (0, 390)
    dock.sign_in(web.new_user())
    dock.ask("What does he work on?")
    dock.wait_answered()
    page.screenshot(path=artifacts / "author-page-phone-dock.png")


def test_a_researcher_page_draws_the_coauthor_graph_and_describes_the_person(
    web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{web.base_url}/authors/{PRANGE}")

    graph = page.locator("svg.network")
    expect(graph).to_be_visible()
    coauthors = page.locator(".coauthor-list li")
    expect(graph.locator("a")).to_have_count(coauthors.count())
    assert coauthors.count() > 0
    expect(page.locator(".result .position").first).to_have_text("first author")
    ld = json.loads(page.locator('script[type="application/ld+json"]').text_content() or "")
    assert (ld["@type"], ld["name"]) == ("Person", PRANGE)
    graph.screenshot(path=artifacts / "researcher-graph.png")
    page.screenshot(path=artifacts / "researcher-page.png", full_page=True)


def test_a_researcher_is_followed_from_their_page_once_signed_in(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/authors/J.%20Prange")
    follow = page.get_by_role("button", name="Follow", exact=True)
    note = page.locator(".follow-note")

    follow.click()

    expect(note).to_contain_text("Sign in")
    expect(follow).to_have_attribute("aria-pressed", "false")
    email = web.new_user()
    Dock(page).sign_in(email)
    follow.click()
    expect(page.get_by_role("button", name="Following")).to_have_attribute("aria-pressed", "true")
    expect(note.get_by_role("link", name="Latest for you")).to_have_attribute("href", "/latest")
    researcher = page.url.rsplit("/", 1)[-1].split("-", 1)[0]
    with web.signed_in(email) as client:
        follows = client.get("/api/follows").json()
    assert [(f["kind"], f["value"]) for f in follows["follows"]] == [("researcher", researcher)]
