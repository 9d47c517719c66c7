"""Prepare, embed and write units, with the three stages overlapping.

A producer thread reads the source (parsing PDFs in worker processes and
chunking), the calling thread embeds batches, and a writer thread stores
the previous batch while the next one is embedded. The embedder releases
the GIL while it computes, so the stages share the cores. Before a PDF's new
chunks are written, the writer thread has their positions on the pages found
(`ingest.pdf.positions`, in a worker process), so the reader can highlight
them; a run over an index built before positions were recorded adds them to
the unchanged chunks.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ingest.index.catalog import Catalog, UnitState
from ingest.index.writer import Indexer, UnitWork
from ingest.pdf import PDF_MAX_MB, PDF_TIMEOUT_S, Failure
from ingest.pdf.isolation import run_isolated
from ingest.pdf.positions import Found, locate_chunks
from ingest.progress import Progress
from ingest.report import IngestReport, Skipped, Unchanged

BATCH_CHUNKS = 256
_QUEUE_UNITS = 512
_END = object()
Embed = Callable[[list[str]], np.ndarray]


@dataclass
class _Statuses:
    """How each paper seen in the run fared: added, updated or unchanged."""

    of: dict[str, str] = field(default_factory=dict)

    def note(self, paper_id: str, status: str) -> None:
        rank = {"unchanged": 0, "updated": 1, "added": 2}
        if rank[status] >= rank.get(self.of.get(paper_id, "unchanged"), 0):
            self.of[paper_id] = status

    def count_into(self, report: IngestReport) -> None:
        values = list(self.of.values())
        report.added_papers = values.count("added")
        report.updated_papers = values.count("updated")
        report.unchanged_papers = values.count("unchanged")


def _produce(items: Iterable[UnitWork | Skipped | Unchanged], out: queue.Queue[object]) -> None:
    try:
        for item in items:
            out.put(item)
    except BaseException as e:  # noqa: BLE001 - handed to the consuming thread, which re-raises
        out.put(e)
    finally:
        out.put(_END)


def _drain(
    items: Iterable[UnitWork | Skipped | Unchanged], seconds: dict[str, float]
) -> Iterator[UnitWork | Skipped | Unchanged]:
    """Iterate `items` in a producer thread; exceptions surface here.

    Adds the time spent waiting for the producer to `seconds["wait_for_source"]`.
    """
    channel: queue.Queue[object] = queue.Queue(maxsize=_QUEUE_UNITS)
    thread = threading.Thread(target=_produce, args=(items, channel), daemon=True)
    thread.start()
    while True:
        started = time.perf_counter()
        item = channel.get()
        seconds["wait_for_source"] += time.perf_counter() - started
        if item is _END:
            break
        if isinstance(item, BaseException):
            raise item
        yield item  # type: ignore[misc] # the queue carries only works, skips and errors
    thread.join()


def with_positions(
    works: Sequence[UnitWork], timeout_s: float = PDF_TIMEOUT_S, max_mb: int = PDF_MAX_MB
) -> list[UnitWork]:
    """The works, each PDF's chunks with their boxes on its pages; a PDF whose positions
    cannot be read (moved, or the worker failed) keeps its chunks without boxes."""
    located = [w for w in works if w.pdf is not None and w.pdf[4]]
    items = [(w.pdf[4], tuple((c.text, c.page_start, c.page_end) for c in w.chunks))
             for w in located if w.pdf is not None]  # fmt: skip
    found: dict[str, list[Found]] = {}
    results = run_isolated(
        locate_chunks, items, workers=1, timeout_s=timeout_s, memory_limit_mb=max_mb
    )
    for (path, _places), outcome in results:
        if not isinstance(outcome, Failure):
            found[path] = outcome
    out: list[UnitWork] = []
    for work in works:
        boxes = found.get(work.pdf[4]) if work.pdf is not None else None
        if boxes is not None and len(boxes) == len(work.chunks):
            chunks = tuple(
                dataclasses.replace(c, boxes=f.boxes)
                for c, f in zip(work.chunks, boxes, strict=True)
            )
            work = dataclasses.replace(work, chunks=chunks)
        out.append(work)
    return out


class Pipeline:
    def __init__(
        self,
        catalog: Catalog,
        indexer: Indexer,
        embed: Embed,
        progress: Progress,
        batch_chunks: int = BATCH_CHUNKS,
        pdf_timeout_s: float = PDF_TIMEOUT_S,
    ) -> None:
        self.catalog = catalog
        self.indexer = indexer
        self.embed = embed
        self.progress = progress
        self.batch_chunks = batch_chunks
        self.pdf_timeout_s = pdf_timeout_s
        # Where the calling thread's time went, for the ingest benchmark.
        self.seconds = {"embed": 0.0, "wait_for_writer": 0.0, "wait_for_source": 0.0}

    def run(
        self, items: Iterable[UnitWork | Skipped | Unchanged], report: IngestReport
    ) -> IngestReport:
        self.indexer.recover()
        statuses = _Statuses()
        seen: dict[tuple[str, str], str] = {}
        batch: list[UnitWork] = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="writer") as writer:
            pending: Future[int] | None = None
            for item in _drain(items, self.seconds):
                if isinstance(item, Skipped):
                    report.skipped.append(item)
                elif isinstance(item, Unchanged):
                    statuses.note(item.paper_id, "unchanged")
                elif item.unit in seen:
                    reason = f"same paper and kind as {seen[item.unit]} (kept that one)"
                    report.skipped.append(Skipped(item.origin, reason))
                else:
                    seen[item.unit] = item.origin
                    batch.append(item)
                    self._note_pages(item, report)
                # Counted once the report has it: a skipped item is among the failed.
                self.progress.advance()
                if sum(len(w.chunks) for w in batch) >= self.batch_chunks:
                    pending = self._flush(batch, statuses, report, writer, pending)
                    batch = []
            pending = self._flush(batch, statuses, report, writer, pending)
            if pending is not None:
                report.chunks_deleted += pending.result()
        statuses.count_into(report)
        return report.finish()

    @staticmethod
    def _note_pages(work: UnitWork, report: IngestReport) -> None:
        if work.pdf is not None:
            report.pages_parsed += work.pdf[1]
        if work.pages_fallback:
            report.pages_fallback[work.origin] = work.pages_fallback

    def _unchanged_pdfs(self, batch: list[UnitWork], changed: list[UnitWork]) -> list[UnitWork]:
        new = {w.unit for w in changed}
        return [w for w in batch if w.pdf is not None and w.pdf[4] and w.unit not in new]

    def _write(self, changed: list[UnitWork], vectors: np.ndarray, same: list[UnitWork]) -> int:
        """In the writer thread: positions first, then the units; the PDFs of unchanged units
        are noted where they are now, and their positions found if an older index had none.
        Returns chunks deleted."""
        deleted = 0
        if changed:
            deleted = self.indexer.write(with_positions(changed, self.pdf_timeout_s), vectors)
        if same:
            self.catalog.set_pdf_paths({w.paper.id: (w.pdf[4], w.pdf[0]) for w in same if w.pdf})
            missing = self.catalog.fulltext_without_boxes(w.paper.id for w in same)
            found = with_positions([w for w in same if w.paper.id in missing], self.pdf_timeout_s)
            boxes = {c.id: c.boxes for w in found for c in w.chunks if c.boxes is not None}
            self.catalog.set_boxes(boxes)
        return deleted

    def _changed(self, batch: list[UnitWork], statuses: _Statuses) -> list[UnitWork]:
        """The units whose content differs from what the index holds; notes every paper."""
        changed: list[UnitWork] = []
        for kind in {w.kind for w in batch}:
            works = [w for w in batch if w.kind == kind]
            states = self.catalog.unit_states((w.paper.id for w in works), kind)
            for work in works:
                state = states.get(work.paper.id, UnitState(None, None))
                if state.source is None:
                    statuses.note(work.paper.id, "added")
                elif state.digest == work.digest:
                    statuses.note(work.paper.id, "unchanged")
                    if work.pdf is not None:  # read again by a newer stage, to the same text
                        self.catalog.note_pdf_stage(work.paper, work.pdf[0], work.pdf[3])
                    with self.catalog.transaction():
                        if work.references is not None:
                            self.catalog.replace_references(work.paper.id, work.references)
                        if work.affiliations is not None:
                            self.catalog.replace_affiliations(
                                work.paper.id, "pdf", work.affiliations
                            )
                    continue
                else:
                    statuses.note(work.paper.id, "updated")
                changed.append(work)
        return changed

    def _flush(
        self,
        batch: list[UnitWork],
        statuses: _Statuses,
        report: IngestReport,
        writer: ThreadPoolExecutor,
        pending: Future[int] | None,
    ) -> Future[int] | None:
        changed = self._changed(batch, statuses)
        same = self._unchanged_pdfs(batch, changed)
        if not changed and not same:
            return pending
        texts = [c.text for w in changed for c in w.chunks]
        started = time.perf_counter()
        vectors = self.embed(texts) if texts else np.zeros((0, 0), dtype=np.float32)
        embedded = time.perf_counter()
        if pending is not None:
            report.chunks_deleted += pending.result()
        self.seconds["embed"] += embedded - started
        self.seconds["wait_for_writer"] += time.perf_counter() - embedded
        report.chunks_added += len(texts)
        return writer.submit(self._write, changed, vectors, same)
