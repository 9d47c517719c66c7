"""The PDF store: copies named by their SHA-256, whole or not at all."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from ingest.pdf.store import PdfChanged, PdfStore, StoreError
from tests.support.data import PDFS

SOURCE = PDFS / "2304.02623v1.pdf"
SHA256 = hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def test_a_pdf_is_kept_under_its_sha256_with_the_same_bytes(tmp_path: Path) -> None:
    store = PdfStore(tmp_path / "store")

    kept = store.put(SOURCE, SHA256)

    assert kept == tmp_path / "store" / SHA256[:2] / f"{SHA256}.pdf"
    assert kept.read_bytes() == SOURCE.read_bytes()
    assert store.find(SHA256) == kept
    assert list(kept.parent.iterdir()) == [kept], "no temporary file is left"


def test_putting_a_pdf_the_store_has_copies_nothing(tmp_path: Path) -> None:
    store = PdfStore(tmp_path / "store")
    kept = store.put(SOURCE, SHA256)
    before = kept.stat().st_mtime_ns

    again = store.put(SOURCE, SHA256)

    assert again == kept
    assert kept.stat().st_mtime_ns == before


def test_a_file_whose_bytes_are_not_the_ones_read_is_refused_and_nothing_kept(
    tmp_path: Path,
) -> None:
    store = PdfStore(tmp_path / "store")
    changed = tmp_path / "changed.pdf"
    shutil.copy(PDFS / "2007.01282v2.pdf", changed)

    with pytest.raises(PdfChanged, match=r"changed\.pdf.* changed while it was read"):
        store.put(changed, SHA256)

    assert store.find(SHA256) is None
    assert list((tmp_path / "store").rglob("*")) == [tmp_path / "store" / SHA256[:2]]


def test_an_unwritable_store_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "store"
    blocker.write_text("a file where the store's folder should be", encoding="utf-8")

    with pytest.raises(StoreError, match="cannot write to the PDF store"):
        PdfStore(blocker).put(SOURCE, SHA256)


def test_only_a_sha256_names_a_stored_pdf(tmp_path: Path) -> None:
    store = PdfStore(tmp_path)

    with pytest.raises(ValueError, match="not a SHA-256"):
        store.find("../../etc/passwd")
    assert store.find("ab" * 32) is None
