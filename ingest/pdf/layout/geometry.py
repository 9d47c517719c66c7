"""Where a page's text and graphics sit: words with boxes, lines, figures, rules.

`read_page` turns one PDFium page into a `PageGeometry`: its words (the runs
of characters between spaces, each with the box of its first and last
characters and the font's rendered size, read by `words.py`), grouped into
lines in PDFium's order; the boxes of its images and embedded figures (form
objects); and the boxes of its vector paths. Coordinates are PDF points, y
grows upwards. A page whose text cannot be placed raises `LayoutUnreadable`.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.pdf.layout.boxes import Box, LayoutUnreadable, Line, Word
from ingest.pdf.layout.words import read_lines

__all__ = ["Box", "LayoutUnreadable", "Line", "PageGeometry", "Word", "read_page"]

# Page objects: text, path, image, shading, form (fpdf_edit.h).
_PATH, _IMAGE, _SHADING, _FORM = 2, 3, 4, 5
# A form object this large holds the page's text (a page imported whole), not a figure:
# its own objects are read instead.
_WHOLE_PAGE_SHARE = 0.35
_MAX_OBJECTS = 50_000
_MAX_CLIP_PATHS = 8


@dataclass(frozen=True)
class PageGeometry:
    width: float
    height: float
    lines: list[Line]
    figures: list[Box]  # images and embedded figures
    paths: list[Box]  # vector graphics: rules, boxes, plotted lines


def read_page(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage) -> PageGeometry:
    """The words, lines and graphics of one page; raises `LayoutUnreadable`."""
    if page.get_rotation() % 360:
        raise LayoutUnreadable("the page is rotated")
    width, height = page.get_size()
    lines = read_lines(textpage)
    figures, paths = _graphics(page.raw, width, height)
    return PageGeometry(width, height, lines, figures, paths)


def _bounds(handle: pdfium_c.FPDF_PAGEOBJECT) -> Box | None:
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    if not pdfium_c.FPDFPageObj_GetBounds(handle, left, bottom, right, top):
        return None
    return Box(left.value, bottom.value, right.value, top.value)


_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _matrix(handle: pdfium_c.FPDF_PAGEOBJECT, outer: _Matrix) -> _Matrix:
    """The matrix from a form object's own space to the page's."""
    raw = pdfium_c.FS_MATRIX()
    if not pdfium_c.FPDFPageObj_GetMatrix(handle, raw):
        return outer
    a, b, c, d, e, f = outer
    m = (raw.a, raw.b, raw.c, raw.d, raw.e, raw.f)
    return (
        m[0] * a + m[1] * c,
        m[0] * b + m[1] * d,
        m[2] * a + m[3] * c,
        m[2] * b + m[3] * d,
        m[4] * a + m[5] * c + e,
        m[4] * b + m[5] * d + f,
    )


def _placed(box: Box, matrix: _Matrix) -> Box:
    if matrix == _IDENTITY:
        return box
    a, b, c, d, e, f = matrix
    xs = [a * x + c * y + e for x in (box.x0, box.x1) for y in (box.y0, box.y1)]
    ys = [b * x + d * y + f for x in (box.x0, box.x1) for y in (box.y0, box.y1)]
    return Box(min(xs), min(ys), max(xs), max(ys))


def _graphics(page: pdfium_c.FPDF_PAGE, width: float, height: float) -> tuple[list[Box], list[Box]]:
    """Boxes of images and embedded figures, and of vector paths, on the page.

    A form object as large as a good part of the page holds text as well as
    figures: its own objects are read, placed on the page by its matrix.
    """
    figures: list[Box] = []
    paths: list[Box] = []
    page_box = Box(0.0, 0.0, width, height)
    pending = [
        (pdfium_c.FPDFPage_GetObject(page, i), _IDENTITY) for i in range(_object_count(page))
    ]
    while pending:
        handle, matrix = pending.pop()
        kind = pdfium_c.FPDFPageObj_GetType(handle)
        if kind not in (_PATH, _IMAGE, _SHADING, _FORM):
            continue
        bounds = _visible(handle, _bounds(handle))
        if bounds is None:
            continue
        box = _placed(bounds, matrix)
        if kind == _FORM and box.overlap(page_box) > _WHOLE_PAGE_SHARE * width * height:
            inner = _matrix(handle, matrix)
            count = min(pdfium_c.FPDFFormObj_CountObjects(handle), _MAX_OBJECTS - len(pending))
            pending.extend((pdfium_c.FPDFFormObj_GetObject(handle, i), inner) for i in range(count))
        elif kind in (_PATH, _SHADING):
            paths.append(box)
        elif kind == _FORM:
            figures.append(_drawn(handle, matrix) or box)
        else:
            figures.append(box)
    return figures, paths


def _drawn(form: pdfium_c.FPDF_PAGEOBJECT, outer: _Matrix) -> Box | None:
    """The box of what an embedded figure shows: its objects' boxes, each as its clip path
    lets it show (the form's own bounds hold what is drawn outside its clip too)."""
    matrix = _matrix(form, outer)
    shown: Box | None = None
    for index in range(min(pdfium_c.FPDFFormObj_CountObjects(form), _MAX_OBJECTS)):
        child = pdfium_c.FPDFFormObj_GetObject(form, index)
        box = _visible(child, _bounds(child))
        if box is not None:
            placed = _placed(box, matrix)
            shown = placed if shown is None else shown.union(placed)
    return shown


def _visible(handle: pdfium_c.FPDF_PAGEOBJECT, bounds: Box | None) -> Box | None:
    """The part of an object's bounds its clip path lets show (a chart's bars are often
    drawn long and clipped to the axes); None when nothing shows."""
    clip = pdfium_c.FPDFPageObj_GetClipPath(handle) if bounds is not None else None
    if not clip or bounds is None:
        return bounds
    x, y = ctypes.c_float(), ctypes.c_float()
    for path in range(min(pdfium_c.FPDFClipPath_CountPaths(clip), _MAX_CLIP_PATHS)):
        points = []
        for index in range(pdfium_c.FPDFClipPath_CountPathSegments(clip, path)):
            segment = pdfium_c.FPDFClipPath_GetPathSegment(clip, path, index)
            if segment and pdfium_c.FPDFPathSegment_GetPoint(segment, x, y):
                points.append((x.value, y.value))
        if not points:
            continue
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        x0, y0 = max(bounds.x0, min(xs)), max(bounds.y0, min(ys))
        x1, y1 = min(bounds.x1, max(xs)), min(bounds.y1, max(ys))
        if x1 < x0 or y1 < y0:
            return None
        bounds = Box(x0, y0, x1, y1)
    return bounds


def _object_count(page: pdfium_c.FPDF_PAGE) -> int:
    count = int(pdfium_c.FPDFPage_CountObjects(page))
    if count > _MAX_OBJECTS:
        raise LayoutUnreadable(f"{count} graphic objects, too many to place")
    return max(count, 0)
