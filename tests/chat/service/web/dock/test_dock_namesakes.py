"""A name that several papers call their own: under the answer the dock says which paper it
was read as and offers the others as buttons, each asking the question again about that
paper alone; in Chromium against the real service with no model."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Request, expect

from tests.support.dock import WAIT_MS, Dock, json_body
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(240)

QUESTION = "What is MUSE?"
# The oldest MUSE, the one a question that says nothing else reads it as.
FIRST = "2508.14440"
FIRST_TITLE = "MUSE: Multi-Subject Unified Synthesis via Explicit Layout Semantic Expansion"
SECOND = "2509.14651"
SECOND_TITLE = (
    "MUSE: MCTS-Driven Red Teaming Framework for Enhanced Multi-Turn Dialogue Safety in Large "
    "Language Models"
)
# The last reading shown at once, and the first behind "Show 7 more".
THIRD_TITLE = "MUSE: Multi-Scale Dense Self-Distillation for Nucleus Detection and Classification"
FOURTH = "2511.21051"
FOURTH_TITLE = (
    "MUSE: Manipulating Unified Framework for Synthesizing Emotions in Images via Test-Time "
    "Optimization"
)
# Twelve other MUSEs: the done event lists ten, three show at once.
LISTED, SHOWN, UNLISTED = 10, 3, 2

# The contrast ratio of each text of `group` (its own color on the first background behind
# it that is not transparent), with the text: WCAG's relative luminance.
CONTRASTS = """
(group) => {
  const rgb = (value) => value.match(/[\\d.]+/g).map(Number);
  const channel = (c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = (element) => {
    for (let node = element; node; node = node.parentElement || node.getRootNode().host) {
      const color = rgb(getComputedStyle(node).backgroundColor);
      if (color.length < 4 || color[3] > 0) return color;
    }
    return [255, 255, 255];
  };
  return [...group.querySelectorAll("p, a, button")].map((element) => {
    const fore = luminance(rgb(getComputedStyle(element).color));
    const back = luminance(background(element));
    const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
    return [element.textContent.trim().slice(0, 40), Math.round(ratio * 100) / 100];
  });
}
"""


def _readings(answer: Locator) -> Locator:
    return answer.get_by_role("group", name="Other papers called MUSE")


def _ask_button(readings: Locator, title: str) -> Locator:
    return readings.get_by_role("button", name=f"Ask again about {title}", exact=True)


def _chat_bodies(page: Page) -> list[dict[str, object]]:
    bodies: list[dict[str, object]] = []

    def record(request: Request) -> None:
        if request.url.endswith("/api/chat"):
            bodies.append(json_body(request))

    page.on("request", record)
    return bodies


def test_another_reading_asks_the_question_again_about_that_paper_alone(
    namesake_api: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{namesake_api.base_url}/papers/{FIRST}")
    dock = Dock(page)
    dock.sign_in(namesake_api.new_user())
    bodies = _chat_bodies(page)
    dock.ask(QUESTION)
    first = dock.wait_answered()
    readings = _readings(first)

    expect(readings).to_contain_text(f"MUSE was read as \u201c{FIRST_TITLE}\u201d")
    expect(readings.get_by_role("link", name=FIRST_TITLE)).to_have_attribute(
        "href", f"{namesake_api.base_url}/papers/{FIRST}"
    )
    expect(readings.locator("li button:visible")).to_have_count(SHOWN)
    search = readings.get_by_role("link", name="search for MUSE")
    expect(search).to_have_attribute("href", f"{namesake_api.base_url}/?q=MUSE")
    expect(readings).to_contain_text(f"{UNLISTED} more papers are called MUSE")
    readings.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "dock-namesakes.png")
    _ask_button(readings, SECOND_TITLE).click()
    second = dock.wait_answered(2)

    assert "conversation_id" not in bodies[0]
    assert bodies[0]["paper_ids"] == [FIRST]
    assert bodies[1]["message"] == QUESTION
    assert bodies[1]["paper_ids"] == [SECOND]  # that paper alone, not the page's paper too
    assert bodies[1]["conversation_id"]
    expect(page.locator("paperchat-dock .user .bubble")).to_have_text([QUESTION, QUESTION])
    expect(second.locator(".carried")).to_have_text(f"about \u201c{SECOND_TITLE}\u201d")
    chips = second.locator("a.cite")
    expect(chips.first).to_be_visible(timeout=WAIT_MS)
    assert set(chips.all_inner_texts()) == {f"arXiv:{SECOND}"}
    expect(_readings(second)).to_contain_text(f"MUSE was read as \u201c{SECOND_TITLE}\u201d")
    expect(_ask_button(_readings(second), FIRST_TITLE)).to_be_visible()
    dock.panel.screenshot(path=artifacts / "dock-namesakes-asked-again.png")


def test_related_papers_of_one_name_are_told_apart_by_their_titles(
    namesake_api: Api, page: Page
) -> None:
    page.goto(f"{namesake_api.base_url}/papers/{FIRST}")
    dock = Dock(page)

    dock.sign_in(namesake_api.new_user())

    line = page.locator("paperchat-dock [data-related]")
    expect(line).to_be_visible(timeout=WAIT_MS)
    labels = line.get_by_role("link").all_inner_texts()
    assert len(labels) > 1
    assert len(set(labels)) == len(labels)
    assert all(label.startswith("MUSE: ") for label in labels)
    assert line.inner_text().startswith(f"Related: {labels[0]} \u00b7 ")


def test_the_readings_are_buttons_a_keyboard_reaches_and_reads(
    namesake_api: Api, page: Page
) -> None:
    page.goto(f"{namesake_api.base_url}/")
    dock = Dock(page)
    dock.sign_in(namesake_api.new_user())
    bodies = _chat_bodies(page)
    dock.ask(QUESTION)
    readings = _readings(dock.wait_answered())
    more = readings.get_by_role("button", name=f"Show {LISTED - SHOWN} more", exact=True)

    more.focus()
    page.keyboard.press("Enter")

    fourth = _ask_button(readings, FOURTH_TITLE)
    expect(fourth).to_be_focused()
    expect(more).to_have_count(0)
    expect(readings.locator("li button:visible")).to_have_count(LISTED)
    assert readings.locator("button a, button button, a a, a button").count() == 0
    contrasts = readings.evaluate(CONTRASTS)
    assert len(contrasts) == 2 + 2 + LISTED  # two lines, their two links, the readings
    assert [text for text, ratio in contrasts if ratio < 4.5] == []
    page.keyboard.press("Shift+Tab")
    expect(_ask_button(readings, THIRD_TITLE)).to_be_focused()
    page.keyboard.press("Tab")
    expect(fourth).to_be_focused()
    page.keyboard.press("Enter")
    dock.wait_answered(2)
    assert [body["paper_ids"] for body in bodies] == [[], [FOURTH]]
    chips = dock.last_answer.locator("a.cite")
    assert set(chips.all_inner_texts()) == {f"arXiv:{FOURTH}"}
