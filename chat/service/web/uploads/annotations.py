"""The library reader's annotations of users' uploads, kept between requests: an upload's
reference list, terms and skim are read once, not on every page asked for.

Each upload read lately keeps its own `Annotations` (never shared between uploads, so never
between users); its catalog is opened for one request at a time and closed after it, and
the requests of one upload take turns (PDFium takes one call at a time anyway).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from chat.service.web.papers.annotations import Annotations
from chat.service.web.papers.pdfpages import PdfFile, PdfPages
from ingest.index.catalog import Catalog

# Uploads whose annotations are kept.
KEPT_UPLOADS: Final = 16


class _Kept:
    """One upload's annotations, and its catalog while a request reads them."""

    def __init__(self, pdf_pages: PdfPages, pdf: PdfFile) -> None:
        self.catalog: Catalog | None = None
        self.turn = threading.Lock()
        self.annotations = Annotations(pdf_pages, self._catalog, lambda _id: pdf, discussed=False)

    def _catalog(self) -> Catalog:
        if self.catalog is None:
            raise RuntimeError("an upload's annotations are read within `UploadAnnotations.of`")
        return self.catalog


class UploadAnnotations:
    """The annotations of the last `kept` uploads read, the least recently read forgotten."""

    def __init__(self, pdf_pages: PdfPages, kept: int = KEPT_UPLOADS) -> None:
        self._pdf_pages = pdf_pages
        self._limit = kept
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    def _entry(self, pdf: PdfFile) -> _Kept:
        key = f"{pdf.key}:{pdf.sha256}"
        with self._lock:
            kept = self._kept.get(key)
            if kept is None:
                kept = self._kept[key] = _Kept(self._pdf_pages, pdf)
            self._kept.move_to_end(key)
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)
        return kept

    @contextmanager
    def of(self, pdf: PdfFile, catalog_path: Path) -> Iterator[Annotations]:
        """The upload's annotations over its catalog at `catalog_path`, open while inside."""
        kept = self._entry(pdf)
        with kept.turn:
            kept.catalog = Catalog(catalog_path)
            try:
                yield kept.annotations
            finally:
                kept.catalog.close()
                kept.catalog = None
