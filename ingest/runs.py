"""An ingest run as the data dir keeps it, for the service to read: its counts while it runs,
and after it ends how it ended and the items it could not read, each with its reason."""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import psutil

from ingest.errors import PaperchatError
from ingest.report import IngestReport, Skipped

# What the run's file says of it.
RUNNING, FINISHED, FAILED = "running", "finished", "failed"
# The reader a run's description names in its error.
_READERS = {"pdfs": "the PDF reader", "abstracts": "the abstracts reader"}


def run_path(data_dir: Path, description: str) -> Path:
    """Where the latest run of `description` ("pdfs", "abstracts") keeps its state."""
    return data_dir / f"ingest-{description}.run.json"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def one_line(error: BaseException) -> str:
    """`error` in one line: a product error's message, else its type and first line."""
    lines = str(error).strip().splitlines()
    if isinstance(error, PaperchatError) and lines:
        return lines[0]
    return f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__


class RunRecord:
    """The run's state in `run_path`, rewritten whole (at most every `interval_s`) while it
    runs and once more when it ends: finished, or failed with its exception's message. The
    items `report` skipped are its failures. The file names the process (its pid and start
    time), so that a run killed without a word is told from one still running."""

    def __init__(
        self,
        data_dir: Path,
        description: str,
        report: IngestReport,
        total: int | None = None,
        interval_s: float = 0.5,
    ) -> None:
        self.path = run_path(data_dir, description)
        self.report = report
        self.total = total
        self.done = 0
        self._interval = interval_s
        self._written = 0.0
        self._started_at = _now()
        self._process_started = psutil.Process().create_time()

    def __enter__(self) -> RunRecord:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write(RUNNING)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # Writing may fail too (a full disk): the run's own error is then the one to see.
        with contextlib.suppress(OSError):
            if error is None:
                self._write(FINISHED)
            else:
                self._write(FAILED, one_line(error))

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._written >= self._interval or self.done == self.total:
            self._write(RUNNING)

    def _write(self, state: str, error: str | None = None) -> None:
        self._written = time.monotonic()
        failed = list(self.report.skipped)
        record = {
            "state": state,
            "pid": os.getpid(),
            "process_started": self._process_started,
            "total": self.total,
            "read": max(self.done - len(failed), 0),
            "failed": [{"source": s.source, "reason": s.reason} for s in failed],
            "error": error,
            "started_at": self._started_at,
            "ended_at": None if state == RUNNING else _now(),
        }
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        partial.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
        partial.replace(self.path)


@dataclass(frozen=True)
class RunState:
    """The latest run as the service reports it. Before any run, every count is 0."""

    total: int | None = 0
    read: int = 0
    failed: tuple[Skipped, ...] = ()
    running: bool = False
    error: str | None = None  # why a run stopped early; None for a run that ended as planned
    started_at: str | None = None
    ended_at: str | None = None


def _alive(record: dict[str, Any]) -> bool:
    """Whether the process that wrote `record` still runs: the same pid, started at the
    same time (not a later process given the pid again), and not a zombie."""
    try:
        process = psutil.Process(int(record["pid"]))
        same = abs(process.create_time() - float(record["process_started"])) < 1.0
        return same and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _error(record: dict[str, Any], description: str, read: int, failed: int) -> str | None:
    """Why the run stopped early, or None."""
    reader = _READERS.get(description, f"the {description} reader")
    total = record["total"]
    reading = f"reading {read + failed}" + (f" of {total}" if total is not None else "")
    if record["state"] == FAILED:
        return f"{reader} stopped after {reading}: {record['error']}"
    if record["state"] == RUNNING and not _alive(record):
        return f"{reader} (pid {record['pid']}) stopped after {reading}"
    return None


def run_state(data_dir: Path, description: str) -> RunState:
    """The latest run of `description`: running, ended as planned, or stopped early (by an
    exception, or its process gone while its file says it runs) with `error` saying so."""
    path = run_path(data_dir, description)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        failed = tuple(Skipped(f["source"], f["reason"]) for f in record["failed"])
        read = int(record["read"])
        error = _error(record, description, read, len(failed))
    except FileNotFoundError:
        return RunState()
    except (OSError, ValueError, KeyError, TypeError) as e:
        return RunState(error=f"cannot read {path.name}: {e}")
    return RunState(
        total=record["total"],
        read=read,
        failed=failed,
        running=record["state"] == RUNNING and error is None,
        error=error,
        started_at=record["started_at"],
        ended_at=record["ended_at"],
    )
