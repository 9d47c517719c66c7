"""The dock's Compare view, in Chromium: from an answer's sources, a table of the papers by
the aspects, filled as it streams, each cell linked to the reader at its passage, and the
table saved as CSV or Markdown."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Page, expect

from chat.rag.compare.aspects import DEFAULT_ASPECTS, NOT_FOUND
from tests.support.dock import WAIT_MS, Dock
from tests.support.running.server import Api
from tests.support.worlds.compare import (  # noqa: F401 - pytest fixtures, used by name
    DPR,
    compare_api_fixture,
    compare_index_fixture,
)

pytestmark = pytest.mark.timeout(300)

QUESTION = "Which datasets are used to evaluate open-domain question answering retrieval?"


def _open_table(compare_api: Api, page: Page) -> Dock:
    page.goto(f"{compare_api.base_url}/")
    dock = Dock(page)
    dock.sign_in(compare_api.new_user())
    dock.ask(QUESTION)
    answer = dock.wait_answered()
    answer.get_by_role("button", name="Compare these papers").click()
    return dock


def test_compare_fills_a_table_of_the_answers_papers_linked_to_their_passages(
    compare_api: Api, page: Page, artifacts: Path
) -> None:
    dock = _open_table(compare_api, page)

    view = page.locator("paperchat-dock").get_by_role("region", name="Compare papers")
    expect(view.get_by_role("status")).to_contain_text("quoted", timeout=WAIT_MS)
    rows = view.locator("tbody tr")
    heads = view.locator("thead th")
    page.screenshot(path=str(artifacts / "dock-compare.png"))

    assert rows.count() >= 2
    assert heads.all_inner_texts() == ["Paper", *DEFAULT_ASPECTS]
    assert view.locator("td.pending").count() == 0
    dpr = view.locator(f'tbody tr[data-paper="{DPR}"]')
    datasets = dpr.locator("td").nth(DEFAULT_ASPECTS.index("datasets")).get_by_role("link")
    href = datasets.get_attribute("href") or ""
    query = parse_qs(urlsplit(href).query)
    assert re.match(
        rf"^{re.escape(compare_api.base_url)}/papers/{DPR}-[a-z0-9-]+\?chunk=.+#reader$", href
    )
    assert query["chunk"][0].startswith(f"{DPR}#")
    assert query["quote"][0] == datasets.inner_text()
    assert "Natural Questions" in datasets.inner_text()
    missing = view.locator("td .note")
    assert all(text == NOT_FOUND for text in missing.all_inner_texts())
    box = dock.panel.bounding_box()
    assert box is not None
    assert box["width"] > 420  # widened for the table


def test_the_table_downloads_as_csv_holding_what_the_view_shows(
    compare_api: Api, page: Page
) -> None:
    _open_table(compare_api, page)
    view = page.locator("paperchat-dock").get_by_role("region", name="Compare papers")
    expect(view.get_by_role("status")).to_contain_text("quoted", timeout=WAIT_MS)

    with page.expect_download() as downloading:
        view.get_by_role("button", name="Download CSV").click()
    saved = Path(downloading.value.path()).read_text(encoding="utf-8")

    rows = list(csv.reader(io.StringIO(saved)))
    shown = view.locator(f'tbody tr[data-paper="{DPR}"] td').all_inner_texts()
    [dpr] = [row for row in rows[1:] if row[0] == DPR]
    assert downloading.value.suggested_filename.startswith("comparison-")
    assert downloading.value.suggested_filename.endswith(".csv")
    assert dpr[2::2] == shown
