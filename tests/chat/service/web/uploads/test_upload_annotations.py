"""An upload's annotations are kept between its requests, each upload's its own, and only
the last few uploads read are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.service.web.papers.pdfpages import PdfFile
from chat.service.web.uploads.annotations import UploadAnnotations
from tests.chat.service.web.uploads.conftest import Owner
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)


def _files(web: Api, owner: Owner) -> tuple[PdfFile, Path]:
    [folder] = web.services.settings.uploads_path.glob(f"*/{owner.id}")
    pdf = PdfFile(f"upload:{owner.id}", folder / "document.pdf", owner.upload_sha256)
    return pdf, folder / "catalog.sqlite"


def test_an_uploads_annotations_are_read_once_and_never_shared(web: Api, owner: Owner) -> None:
    pdf, catalog = _files(web, owner)
    other = PdfFile("upload:another", pdf.path, pdf.sha256)
    kept = UploadAnnotations(web.services.pdf_pages, kept=1)

    with kept.of(pdf, catalog) as first:
        page = first.page(owner.upload["doc_id"], 1, lambda: None)
    with kept.of(pdf, catalog) as again:
        same_page = again.page(owner.upload["doc_id"], 1, lambda: None)
    with kept.of(other, catalog) as another:
        pass
    with kept.of(pdf, catalog) as after:
        pass

    assert again is first
    assert same_page is page
    assert page.citations
    assert another is not first
    assert after is not first


def test_annotations_are_not_read_outside_their_request(web: Api, owner: Owner) -> None:
    pdf, catalog = _files(web, owner)
    kept = UploadAnnotations(web.services.pdf_pages)
    with kept.of(pdf, catalog) as annotations:
        pass

    with pytest.raises(RuntimeError, match="within"):
        annotations.skim(owner.upload["doc_id"], lambda: None)
