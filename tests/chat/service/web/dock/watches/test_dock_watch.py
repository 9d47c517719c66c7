"""The dock's "Keep watch on this question", in Chromium: under a signed-in reader's answer,
it saves the question with the scope it was asked in; a follow-up (asked about the previous
answer's papers) offers no such button."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.chat.service.web.conftest import PAPER_ID
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

QUESTION = "How are hand gestures recognised from several modalities?"
KEEP = "Keep watch on this question"


def test_keep_watch_saves_the_question_with_its_scope(web: Api, page: Page) -> None:
    email = web.new_user()
    web.fake.script_chat(ChatScript(pieces=(f"With several modalities [arXiv:{PAPER_ID}].",)))
    page.goto(f"{web.base_url}/papers/{PAPER_ID}")
    dock = Dock(page)
    dock.sign_in(email)
    dock.ask(QUESTION)
    answer = dock.wait_answered()

    with page.expect_response(lambda r: r.url.endswith("/api/watches")) as saved:
        answer.get_by_role("button", name=KEEP).click()
    expect(answer.get_by_role("button", name="Keeping watch")).to_be_disabled(timeout=WAIT_MS)
    expect(answer.get_by_text("will show in Latest for you")).to_be_visible()
    with web.signed_in(email) as client:
        listed = client.get("/api/watches").json()["watches"]

    assert saved.value.status == 201
    assert [(w["question"], w["scope"]["paper_ids"]) for w in listed] == [(QUESTION, [PAPER_ID])]


def test_a_follow_up_offers_no_button(extractive_web: Api, page: Page) -> None:
    page.goto(f"{extractive_web.base_url}/")
    dock = Dock(page)
    dock.sign_in(extractive_web.new_user())
    dock.ask("How does multimodal training improve unimodal dynamic hand-gesture recognition?")
    dock.wait_answered()
    dock.ask("Who wrote it?")
    second = dock.wait_answered(2)

    expect(second.locator(".carried")).to_have_count(1)
    first, follow_up = (dock.answers.nth(i).get_by_role("button", name=KEEP) for i in (0, 1))
    expect(first).to_have_count(1)
    expect(follow_up).to_have_count(0)
