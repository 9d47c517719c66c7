"""The paper reader in Chromium: a citation opens the PDF at its page with the passage
highlighted over its own text, on this paper's page or another's; an abstract citation
marks the abstract; pages, zoom and the text layer work, on a laptop and on a phone."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from ingest.pdf.alignment import find_text
from tests.fakes.openai import ChatScript
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api
from tests.support.worlds.reader import (
    FID_PDF,
    SHORT_PDF,
    chunk_of,
    covered_text,
    evidence,
    first_abstract_id,
    reader_index,
    reader_web,
)

__all__ = ["reader_index", "reader_web"]

pytestmark = pytest.mark.timeout(300)


def _chunk_row(api: Api, chunk: str) -> tuple[int, str]:
    row = api.services.index.catalog.chunk_rows([chunk])[chunk]
    return row.page_start, row.text


def _answered_with(dock: Dock, api: Api, question: str, cited: str) -> None:
    api.fake.script_chat(ChatScript(pieces=("The paper says so ", f"[arXiv:{cited}]", ".")))
    dock.ask(question)
    dock.wait_answered()


def _mark_on_its_page(page: Page, api: Api, chunk: str) -> None:
    """The highlight is shown on the chunk's page, in view, over the chunk's own words."""
    first_page, text = _chunk_row(api, chunk)
    marks = evidence(page, chunk)
    expect(marks.first).to_be_visible(timeout=WAIT_MS)
    expect(marks.first).to_be_in_viewport(timeout=WAIT_MS)
    on_page = marks.first.locator("xpath=ancestor::*[@data-page][1]")
    assert on_page.get_attribute("data-page") == str(first_page)
    expect(page.get_by_label("Page number")).to_have_value(str(first_page))
    layer = on_page.locator(".reader-text")
    expect(layer).to_have_count(1, timeout=WAIT_MS)
    page.wait_for_function(
        "(n) => document.querySelector(`[data-page='${n}']`).dataset.text === 'shown'",
        arg=first_page,
        timeout=WAIT_MS,
    )
    _spans, coverage = find_text(covered_text(page, chunk), text)
    assert coverage > 0.6
    image = on_page.locator("img")
    page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )


def test_a_full_text_citation_on_its_papers_page_highlights_the_passage(
    reader_web: Api, page: Page, artifacts: Path
) -> None:
    refused: list[str] = []
    page.on("console", lambda message: refused.append(message.text))
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{SHORT_PDF}")
    expect(page.locator("[data-reader] [data-page]")).to_have_count(4)
    dock.sign_in(reader_web.new_user())
    _answered_with(dock, reader_web, "What does this paper propose?", SHORT_PDF)
    chip = dock.last_answer.locator("a.cite").first
    chunk = chunk_of(chip)
    address = page.url

    chip.click()

    _mark_on_its_page(page, reader_web, chunk)
    assert page.url.split("?")[0] == address.split("?")[0]
    assert f"chunk={chunk.replace('#', '%23').replace('@', '%40')}" in page.url
    expect(dock.panel).to_be_visible()
    assert [m for m in refused if "Content Security Policy" in m] == []
    page.screenshot(path=artifacts / "reader-highlight.png")


def test_a_citation_of_another_paper_opens_its_page_at_the_passage(
    reader_web: Api, page: Page, artifacts: Path
) -> None:
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{SHORT_PDF}")
    dock.sign_in(reader_web.new_user())
    page.get_by_label(f"Only this paper ({SHORT_PDF})").uncheck()
    question = "How does Fusion-in-Decoder use the retrieved passages in the encoder and decoder?"
    _answered_with(dock, reader_web, question, FID_PDF)
    chip = dock.last_answer.locator("a.cite").first
    chunk = chunk_of(chip)

    chip.click()

    page.wait_for_url(f"**/papers/{FID_PDF}-*?chunk=*", timeout=WAIT_MS)
    _mark_on_its_page(page, reader_web, chunk)
    page.screenshot(path=artifacts / "reader-other-paper.png")


def test_a_source_in_the_list_opens_the_reader_too(reader_web: Api, page: Page) -> None:
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{FID_PDF}")
    dock.sign_in(reader_web.new_user())
    _answered_with(dock, reader_web, "What does FiD do with the passages?", FID_PDF)
    sources = dock.last_answer.locator(".sources .passages a")
    link = sources.nth(min(2, sources.count() - 1))
    chunk = chunk_of(link)

    link.click()

    _mark_on_its_page(page, reader_web, chunk)


def test_an_abstract_citation_marks_the_passage_in_the_abstract(
    reader_web: Api, page: Page, artifacts: Path
) -> None:
    paper_id = first_abstract_id()
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{paper_id}")
    dock.sign_in(reader_web.new_user())
    _answered_with(dock, reader_web, "What is this paper about?", paper_id)
    chip = dock.last_answer.locator("a.cite").first
    chunk = chunk_of(chip)

    chip.click()

    mark = page.locator(f'[data-abstract] mark[data-evidence="{chunk}"]')
    expect(mark.first).to_be_visible(timeout=WAIT_MS)
    marked = " ".join(mark.all_text_contents())
    shown = page.locator("[data-abstract]").inner_text()
    assert len(marked) > 0.8 * len(shown.removeprefix("Abstract").strip())
    assert page.locator("[data-reader]").count() == 0
    page.screenshot(path=artifacts / "reader-abstract.png")


def test_a_passage_from_an_index_without_positions_shows_its_page(
    reader_web: Api, page: Page
) -> None:
    catalog = reader_web.services.index.catalog
    chunk = next(c.id for c in catalog.unit_chunks(FID_PDF, "fulltext") if c.page_start == 3)
    saved = catalog.chunk_boxes(chunk)
    catalog.db.execute("UPDATE chunks SET boxes = NULL WHERE id = ?", (chunk,))

    try:
        page.goto(f"{reader_web.base_url}/papers/{FID_PDF}?chunk={chunk.replace('#', '%23')}")
        cited = page.locator(".reader-page.reader-cited")
        expect(cited).to_have_attribute("data-page", "3", timeout=WAIT_MS)
        expect(cited).to_be_in_viewport()
        expect(page.locator("[data-reader-note]")).to_contain_text("page 3")
        assert evidence(page, chunk).count() == 0
    finally:
        catalog.set_boxes({chunk: saved or ()})


def test_pages_are_navigated_and_zoomed_with_the_toolbar(reader_web: Api, page: Page) -> None:
    page.goto(f"{reader_web.base_url}/papers/{FID_PDF}")
    number = page.get_by_label("Page number")
    second = page.locator('[data-page="2"]')
    width = page.locator('[data-page="1"]').bounding_box()

    page.get_by_role("button", name="Next page").click()
    expect(number).to_have_value("2")
    expect(second).to_be_in_viewport()
    page.get_by_role("button", name="Zoom in").click()
    page.get_by_role("button", name="Zoom in").click()
    expect(page.locator('[data-role="zoom"]')).to_have_text("125%")
    zoomed = page.locator('[data-page="1"]').bounding_box()
    number.fill("5")
    number.press("Enter")

    assert width is not None
    assert zoomed is not None
    assert zoomed["width"] == pytest.approx(width["width"] * 1.25, rel=0.02)
    expect(page.locator('[data-page="5"]')).to_be_in_viewport()
    image = page.locator('[data-page="5"] img')
    expect(image).to_have_attribute("src", re.compile(r"/pages/5\.webp\?width=\d+&v="))
    page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 400", arg=image.element_handle()
    )


def test_the_text_layer_sits_on_the_printed_lines_and_can_be_selected(
    reader_web: Api, page: Page
) -> None:
    page.goto(f"{reader_web.base_url}/papers/{SHORT_PDF}")
    first = page.locator('[data-page="1"]')
    page.wait_for_function(
        "() => document.querySelector('[data-page=\"1\"]').dataset.text === 'shown'"
    )
    spans = first.locator(".reader-text span")
    line = spans.nth(3)
    box = line.bounding_box()
    frame = first.bounding_box()

    line.dblclick()

    assert box is not None
    assert frame is not None
    assert frame["x"] <= box["x"]
    assert box["x"] + box["width"] <= frame["x"] + frame["width"] + 2
    selected = page.evaluate("() => String(window.getSelection())").strip()
    assert selected
    assert selected in (line.text_content() or "")


def test_the_reader_works_on_a_phone(browser: Browser, reader_web: Api, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{FID_PDF}")
    dock.sign_in(reader_web.new_user())
    _answered_with(dock, reader_web, "What does FiD do with the passages?", FID_PDF)
    chip = dock.last_answer.locator("a.cite").first
    chunk = chunk_of(chip)

    chip.click()

    expect(dock.panel).to_be_hidden()
    _mark_on_its_page(page, reader_web, chunk)
    one = page.locator('[data-page="1"]').bounding_box()
    assert one is not None
    assert one["width"] <= 390
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.get_by_role("button", name="Zoom in").click()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    fit = page.get_by_role("button", name="Fit width")
    expect(fit).to_be_in_viewport()
    fit.click()
    expect(page.locator("[data-role=zoom]")).to_have_text("100%")
    expect(dock.launcher).to_be_hidden()
    opener = page.locator("[data-reader] [data-paperchat-open]")
    expect(opener).to_be_in_viewport()
    page.screenshot(path=artifacts / "reader-phone.png")
    opener.click()
    expect(dock.panel).to_be_visible()
    context.close()


def test_an_address_naming_another_papers_passage_goes_to_that_paper(
    reader_web: Api, page: Page
) -> None:
    catalog = reader_web.services.index.catalog
    chunk = catalog.unit_chunks(FID_PDF, "fulltext")[4].id

    page.goto(f"{reader_web.base_url}/papers/{SHORT_PDF}?chunk={quote(chunk)}")

    page.wait_for_url(f"**/papers/{FID_PDF}-*?chunk=*", timeout=WAIT_MS)
    _mark_on_its_page(page, reader_web, chunk)


def test_an_unknown_passage_in_the_address_says_so_and_shows_the_paper(
    reader_web: Api, page: Page
) -> None:
    page.goto(f"{reader_web.base_url}/papers/{SHORT_PDF}?chunk={quote('<b>nope</b>')}")

    expect(page.locator("[data-reader-note]")).to_have_text(
        "This passage is no longer in the index.", timeout=WAIT_MS
    )
    expect(page.locator("[data-reader] [data-page]")).to_have_count(4)
    assert page.locator("b").count() == 0


def test_a_citation_of_a_table_cell_opens_its_table_with_the_cell_marked(
    reader_web: Api, page: Page, artifacts: Path
) -> None:
    cell = "Table 1: Fusion-in-Decoder (large) · TriviaQA EM · 67.6 "
    reader_web.fake.script_chat(ChatScript(pieces=("FiD scores ", cell, f"[arXiv:{FID_PDF}]", ".")))
    dock = Dock(page)
    page.goto(f"{reader_web.base_url}/papers/{FID_PDF}")
    dock.sign_in(reader_web.new_user())
    dock.ask("What is FiD's exact match on TriviaQA?")
    dock.wait_answered()
    chip = dock.last_answer.locator("a.cite").first
    chunk = chunk_of(chip)
    page_start, text = _chunk_row(reader_web, chunk)

    chip.click()

    assert "Fusion-in-Decoder (large) | 51.4 | 67.6" in text
    focus = page.locator(f'.reader-focus[data-evidence="{chunk}"]')
    expect(focus).to_have_count(2, timeout=WAIT_MS)
    expect(focus.last).to_be_in_viewport(timeout=WAIT_MS)
    on_page = focus.first.locator("xpath=ancestor::*[@data-page][1]")
    assert on_page.get_attribute("data-page") == str(page_start)
    label, value = (focus.nth(i).bounding_box() for i in range(2))
    assert label is not None
    assert value is not None
    assert value["x"] > label["x"] + label["width"]
    assert value["width"] < label["width"] / 2
    assert evidence(page, chunk).count() > 2
    assert "quote=" in page.url
    page.screenshot(path=artifacts / "reader-table-cell.png")
