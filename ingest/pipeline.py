"""Prepare, embed and write units, with the three stages overlapping.

A producer thread reads the source (parsing PDFs in worker processes and
chunking), the calling thread embeds batches, and a writer thread stores
the previous batch while the next one is embedded. The embedder releases
the GIL while it computes, so the stages share the cores.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ingest.index.catalog import Catalog, UnitState
from ingest.index.writer import Indexer, UnitWork
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


class Pipeline:
    def __init__(
        self,
        catalog: Catalog,
        indexer: Indexer,
        embed: Embed,
        progress: Progress,
        batch_chunks: int = BATCH_CHUNKS,
    ) -> None:
        self.catalog = catalog
        self.indexer = indexer
        self.embed = embed
        self.progress = progress
        self.batch_chunks = batch_chunks
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
                self.progress.advance()
                if isinstance(item, Skipped):
                    report.skipped.append(item)
                    continue
                if isinstance(item, Unchanged):
                    statuses.note(item.paper_id, "unchanged")
                    continue
                if item.unit in seen:
                    reason = f"same paper and kind as {seen[item.unit]} (kept that one)"
                    report.skipped.append(Skipped(item.origin, reason))
                    continue
                seen[item.unit] = item.origin
                if item.pdf is not None:
                    report.pages_parsed += item.pdf[1]
                if item.pages_fallback:
                    report.pages_fallback[item.origin] = item.pages_fallback
                batch.append(item)
                if sum(len(w.chunks) for w in batch) >= self.batch_chunks:
                    pending = self._flush(batch, statuses, report, writer, pending)
                    batch = []
            pending = self._flush(batch, statuses, report, writer, pending)
            if pending is not None:
                report.chunks_deleted += pending.result()
        statuses.count_into(report)
        return report.finish()

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
                        self.catalog.note_pdf_stage(work.paper.id, work.pdf[0], work.pdf[3])
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
        if not changed:
            return pending
        texts = [c.text for w in changed for c in w.chunks]
        started = time.perf_counter()
        vectors = self.embed(texts)
        embedded = time.perf_counter()
        if pending is not None:
            report.chunks_deleted += pending.result()
        self.seconds["embed"] += embedded - started
        self.seconds["wait_for_writer"] += time.perf_counter() - embedded
        report.chunks_added += len(texts)
        return writer.submit(self.indexer.write, changed, vectors)
