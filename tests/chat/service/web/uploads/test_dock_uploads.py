"""A reader's own PDF through the dock, in Chromium: dropped on the panel (or picked with
Add a PDF), read by the server with its progress said, listed with a link to its reader,
asked about alone, and its `[doc:<id>]` citation opening its reader at the passage."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, FilePayload, Page, expect

from tests.chat.service.web.uploads.conftest import ACL_PDF
from tests.fakes.openai import ChatScript
from tests.support.data import PDFS
from tests.support.dock import WAIT_MS, Dock, json_body
from tests.support.running.server import Api
from tests.support.validators import Violation, axe_violations

pytestmark = pytest.mark.timeout(600)

QUESTION = (
    "Among the surveyed papers that performed human evaluation of long-form summaries, "
    "how many carried out any kind of statistical analysis?"
)
# A file dropped on the panel: built in the page from the bytes given, as a desktop drop is.
DROP = """
([name, type, data]) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, { type }));
  const panel = document.querySelector("paperchat-dock").shadowRoot.querySelector(".panel");
  for (const name of ["dragenter", "dragover", "drop"]) {
    const event = { dataTransfer: transfer, bubbles: true, cancelable: true };
    panel.dispatchEvent(new DragEvent(name, event));
  }
}
"""


# The page the first mark of the cited passage is on has its image drawn.
CITED_PAGE_SHOWN = """
() => {
  const page = document.querySelector(".reader-mark")?.closest(".reader-page");
  const image = page?.querySelector("img");
  return Boolean(image && image.complete && image.naturalWidth > 0);
}
"""


def _drop(page: Page, name: str, content: bytes, kind: str = "application/pdf") -> None:
    page.evaluate(DROP, [name, kind, base64.b64encode(content).decode()])


def _uploads(page: Page) -> list[dict[str, Any]]:
    listed: dict[str, Any] = page.evaluate(
        "fetch('/api/uploads', {cache: 'no-store'}).then((r) => r.json())"
    )
    return list(listed["uploads"])


def _over_printed_marks(violation: Violation) -> bool:
    return violation.rule == "target-size" and all(
        target.startswith("['button[aria-label=\"Citation ") for target in violation.targets
    )


def _status(page: Page) -> Any:
    return page.locator("paperchat-dock .upload-status")


def test_a_dropped_pdf_is_read_asked_about_and_its_citation_opens_its_reader(
    web: Api, page: Page, artifacts: Path
) -> None:
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.sign_in(web.new_user())

    _drop(page, ACL_PDF, (PDFS / ACL_PDF).read_bytes())
    expect(_status(page)).to_contain_text("is ready: 20 pages.", timeout=WAIT_MS * 4)
    [upload] = _uploads(page)
    page.locator("paperchat-dock summary").filter(has_text="Your PDFs (1)").click()
    listed = page.locator(f'paperchat-dock .upload-list li[data-upload="{upload["id"]}"]')
    expect(listed.get_by_role("link")).to_have_attribute(
        "href", f"{web.base_url}/uploads/{upload['id']}/read"
    )
    expect(listed).to_contain_text("20 pages · ready")
    page.screenshot(path=str(artifacts / "dock-upload.png"))
    web.fake.script_chat(ChatScript(pieces=(f"Just 12 papers did [doc:{upload['doc_id']}].",)))
    _status(page).get_by_role("button", name=re.compile("^Ask about it")).click()
    expect(page.locator("paperchat-dock .upload-scope")).to_contain_text("Only your PDF")
    with page.expect_request(re.compile(r"/api/chat$")) as asked:
        dock.ask(QUESTION)
    answer = dock.wait_answered()
    chip = answer.locator("a.cite")
    expect(chip).to_have_text(f"doc:{upload['doc_id']}")
    expect(answer.get_by_role("button", name="Copy BibTeX")).to_have_count(0)
    href = chip.get_attribute("href") or ""
    chip.click()
    page.wait_for_url(re.compile(rf"/uploads/{upload['id']}/read\?chunk="), timeout=WAIT_MS)
    marks = page.locator(".reader-mark")
    expect(marks.first).to_be_visible(timeout=WAIT_MS)
    page.wait_for_function(CITED_PAGE_SHOWN, timeout=WAIT_MS)
    expect(dock.answers).to_have_count(1)
    page.screenshot(path=str(artifacts / "upload-reader.png"))

    assert json_body(asked.value)["upload_ids"] == [upload["id"]]
    assert "paper_ids" not in json_body(asked.value)
    assert href.startswith(f"{web.base_url}/uploads/{upload['id']}/read?chunk=")
    assert marks.count() > 0


def test_a_signed_out_reader_is_told_to_sign_in_to_upload(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    Dock(page).open()

    _drop(page, ACL_PDF, b"%PDF-1.4 a signed-out drop")

    expect(page.locator("paperchat-dock form .alert")).to_have_text(
        "Sign in to upload a PDF and ask about it."
    )
    expect(page.get_by_label("Email")).to_be_focused()


def test_a_file_that_is_no_pdf_gets_the_servers_reason(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    Dock(page).sign_in(web.new_user())

    notes: FilePayload = {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"notes"}
    page.locator("paperchat-dock input[type=file]").set_input_files(files=notes)

    expect(_status(page)).to_have_text(
        "\u201cnotes.txt\u201d was not uploaded: "
        "the file is not a PDF (it does not start with %PDF-)"
    )
    expect(page.locator("paperchat-dock .upload-list li")).to_have_count(0)


def test_the_dock_with_an_upload_and_the_uploads_reader_pass_axe(
    web: Api, browser: Browser, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{web.base_url}/")
    dock = Dock(page)
    dock.sign_in(web.new_user())
    dock.button("Add a PDF").focus()
    page.locator("paperchat-dock input[type=file]").set_input_files(str(PDFS / ACL_PDF))
    expect(_status(page)).to_contain_text("is ready", timeout=WAIT_MS * 4)
    page.locator("paperchat-dock summary").filter(has_text="Your PDFs (1)").click()
    in_dock = axe_violations(page)
    [upload] = _uploads(page)
    page.goto(f"{web.base_url}/uploads/{upload['id']}/read")
    expect(page.locator(".reader-page img").first).to_be_visible(timeout=WAIT_MS)
    page.get_by_role("button", name="Close the chat panel").click()
    page.get_by_role("button", name="Skim", exact=True).click()
    expect(page.locator("[data-skim-list]")).to_contain_text("Goal", timeout=WAIT_MS)
    cited = page.get_by_role("button", name=re.compile("^Citation .*Kryscinski"))
    cited.first.focus()
    expect(page.locator("#reader-card")).to_contain_text("Kryscinski")
    page.screenshot(path=str(artifacts / "upload-reader-skim.png"))

    in_reader = axe_violations(page)
    context.close()

    assert [str(v) for v in in_dock] == []
    # The in-text citation targets lie over the printed marks at their size, as in the
    # library's reader: axe's target-size finds author-year marks close together too small.
    assert [str(v) for v in in_reader if not _over_printed_marks(v)] == []


def test_a_pdf_that_cannot_be_read_says_why_in_words(web: Api, page: Page) -> None:
    page.goto(f"{web.base_url}/")
    Dock(page).sign_in(web.new_user())

    _drop(page, "broken.pdf", b"%PDF-1.4\nnot really a PDF at all\n")

    expect(_status(page)).to_contain_text(
        "\u201cbroken.pdf\u201d could not be read: cannot read the PDF", timeout=WAIT_MS * 2
    )
    expect(page.locator('paperchat-dock .upload-list li[data-status="failed"]')).to_have_count(1)
