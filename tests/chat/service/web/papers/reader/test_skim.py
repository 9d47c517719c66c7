"""Skimming: the sentences of a paper's real PDF that state its goal, method, results and
limitations; as the reader's `/skim` list and each page's tints, and in Chromium, where the
toggle tints them and lists them to jump between."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from chat.service.web.papers.skim import KEPT, MAX_ON_PAGE, skim
from tests.support.data import pdf_page_texts
from tests.support.running.server import Api
from tests.support.validators import axe_violations
from tests.support.worlds.citations import DPR, FID
from tests.support.worlds.reader import first_abstract_id

pytestmark = pytest.mark.timeout(300)


def _references_page(texts: tuple[str, ...]) -> int:
    return next(
        n
        for n, t in enumerate(texts, start=1)
        if n > 1 and re.search(r"^\s*References\s*$", t, re.M)
    )


def test_a_papers_limitations_section_is_skimmed_as_its_limitations_without_its_heading() -> None:
    texts = pdf_page_texts(
        "2205.14135v2.pdf"
    )  # FlashAttention: "5 Limitations and Future Directions"

    chosen = skim(texts)

    limitations = [s for s in chosen if s.facet == "limitation"]
    assert any(s.text.startswith("We discuss limitations of our approach") for s in limitations)
    assert not any("Limitations and Future Directions" in s.text for s in chosen)
    assert {"goal", "method", "result", "limitation"} <= {s.facet for s in chosen}


def test_results_are_the_sentences_that_state_a_comparison_or_a_score() -> None:
    texts = pdf_page_texts("1810.04805v2.pdf")  # BERT

    results = [s.text for s in skim(texts) if s.facet == "result"]

    assert results
    assert all(re.search(r"outperform|state-of-the-art|improv|find|show", r) for r in results)
    assert any(re.search(r"\d+(?:\.\d+)?%", r) for r in results)


def test_a_notice_that_only_names_this_paper_states_no_goal() -> None:
    texts = pdf_page_texts("1706.03762v7.pdf")  # its first page grants permission "in this paper"

    goals = [s.text for s in skim(texts) if s.facet == "goal"]

    assert any(g.startswith("In this work we propose the Transformer") for g in goals)
    assert not any("permission" in g for g in goals)


@pytest.mark.parametrize("name", ["2112.04426v1.pdf", "2203.02155v1.pdf", "2007.01282v2.pdf"])
def test_the_skim_is_a_handful_of_sentences_of_the_body_and_none_of_its_references(
    name: str,
) -> None:
    texts = pdf_page_texts(name)

    chosen = skim(texts)

    by_facet = Counter(s.facet for s in chosen)
    assert all(by_facet[facet] <= kept for facet, kept in KEPT.items())
    assert max(Counter(s.page for s in chosen).values()) <= MAX_ON_PAGE
    assert all(s.page <= _references_page(texts) for s in chosen)
    printed = [texts[s.page - 1][s.start : s.end].replace("\ufffe", "") for s in chosen]
    assert [" ".join(text.split()) for text in printed] == [s.text for s in chosen]
    assert [(s.page, s.start) for s in chosen] == sorted((s.page, s.start) for s in chosen)


def _skim(api: Api, paper_id: str) -> dict[str, Any]:
    with api.client() as client:
        response = client.get(f"/papers/{paper_id}/skim")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_each_page_tints_the_sentences_the_papers_skim_lists_on_it(cited_web: Api) -> None:
    listed = _skim(cited_web, FID)["sentences"]
    page = listed[0]["page"]

    with cited_web.client() as client:
        drawn = client.get(f"/papers/{FID}/pages/{page}/annotations").json()["skim"]

    assert [(s["facet"], s["text"]) for s in drawn] == [
        (s["facet"], s["text"]) for s in listed if s["page"] == page
    ]
    boxes = [box for s in drawn for box in s["boxes"]]
    assert boxes
    assert all(0 <= box["x0"] < box["x1"] <= 1 and 0 <= box["y0"] < box["y1"] <= 1 for box in boxes)


def test_the_skim_of_an_unknown_paper_or_one_without_a_pdf_is_404(cited_web: Api) -> None:
    abstract_only = first_abstract_id()

    with cited_web.client() as client:
        unknown = client.get("/papers/9999.99999/skim")
        no_pdf = client.get(f"/papers/{abstract_only}/skim")

    assert (unknown.status_code, unknown.json()) == (
        404,
        {"detail": "no paper '9999.99999' in the library"},
    )
    assert (no_pdf.status_code, no_pdf.json()) == (
        404,
        {"detail": f"no PDF of {abstract_only!r} on this server"},
    )


def test_the_skim_toggle_tints_the_sentences_and_lists_them_to_jump_to(
    cited_web: Api, page: Page, artifacts: Path
) -> None:
    listed = _skim(cited_web, DPR)["sentences"]
    later = next(s for s in listed if s["page"] > 2)
    page.goto(f"{cited_web.base_url}/papers/{DPR}")
    toggle = page.get_by_role("button", name="Skim")

    toggle.click()

    panel = page.get_by_role("region", name="Skim")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(panel.get_by_role("listitem")).to_have_count(len(listed))
    expect(panel).to_contain_text(f"Result ({sum(s['facet'] == 'result' for s in listed)})")
    panel.get_by_role("button", name=re.compile(re.escape(later["text"][:40]))).click()
    target = page.locator(f'.reader-page[data-page="{later["page"]}"]')
    tints = target.locator(".reader-skim")
    expect(tints.first).to_be_visible()
    expect(target.locator(".reader-skim-flash").first).to_be_attached()
    page.screenshot(path=artifacts / "reader-skim.png")
    toggle.click()
    expect(panel).to_be_hidden()
    expect(tints.first).to_be_hidden()


def test_on_a_phone_the_skim_list_sits_between_the_toolbar_and_the_pages(
    cited_web: Api, browser: Browser, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{cited_web.base_url}/papers/{FID}")

    page.get_by_role("button", name="Skim").click()

    panel = page.get_by_role("region", name="Skim")
    expect(panel.get_by_role("listitem").first).to_be_visible()
    shown = panel.bounding_box()
    first_page = page.locator('.reader-page[data-page="1"]').bounding_box()
    assert shown is not None
    assert first_page is not None
    assert shown["y"] + shown["height"] <= first_page["y"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=artifacts / "reader-skim-phone.png")
    context.close()


def test_a_sentence_a_page_break_cuts_is_chosen_on_neither_page() -> None:
    texts = (
        "Abstract\r\nWe train a small model on the new corpus of papers.\r\n"
        "Our approach outperforms every baseline of the benchmark by a wide margin and",
        "Published as a conference paper\r\nshows that our model outperforms the larger ones "
        "by 5 points of accuracy on the test set. We find that our model outperforms the "
        "retrieval baseline by 3 points on the held-out questions.\r\n2",
    )

    chosen = [(s.page, s.text) for s in skim(texts)]

    assert chosen == [
        (1, "We train a small model on the new corpus of papers."),
        (2, "We find that our model outperforms the retrieval baseline by 3 points on the "
            "held-out questions."),
    ]  # fmt: skip


def test_a_sentence_on_others_work_weighs_less_than_one_in_the_papers_own_voice() -> None:
    others = "Prior systems (Smith et al., 2019) outperform the baselines on the benchmark."
    own = "Our system outperforms the baselines of the benchmark on every split of the test."

    chosen = [s.text for s in skim((f"{others} {own}",))]

    assert chosen == [own]


def test_the_open_skim_passes_axe(cited_web: Api, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{cited_web.base_url}/papers/{FID}")
    page.get_by_role("button", name="Skim").click()
    expect(page.get_by_role("region", name="Skim").get_by_role("listitem").first).to_be_visible()
    page.locator('.reader-page[data-page="1"] .reader-skim').first.wait_for(state="attached")

    violations = axe_violations(page)

    context.close()
    assert [str(v) for v in violations] == []
