"""Progress of an ingest run: a rich bar on a terminal, a plain line every few seconds
elsewhere (the counts the service reads are kept by `ingest.runs`)."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import IO, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress
from rich.text import Text


class Progress(Protocol):
    def advance(self, n: int = 1) -> None: ...


class NoProgress:
    def advance(self, n: int = 1) -> None:
        return None


class ItemsPerSecond(ProgressColumn):
    """The task's current speed, in items per second."""

    def render(self, task: Task) -> Text:
        if not task.speed:
            return Text("   -  items/s", style="cyan")
        return Text(f"{task.speed:6.1f} items/s", style="cyan")


class BarProgress:
    """A bar with items done, items/s, elapsed time and an ETA, on stderr."""

    def __init__(self, description: str, total: int | None) -> None:
        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            ItemsPerSecond(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task: TaskID = self._bar.add_task(description, total=total)

    def __enter__(self) -> BarProgress:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.stop()

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)


def wants_bar(json_output: bool) -> bool:
    """A bar only for a person at a terminal: not with --json, not into a pipe or file."""
    return not json_output and sys.stderr.isatty()


# A plain progress line at most this often, so that a log holds a few lines a minute.
LINE_INTERVAL_S = 5.0


def _duration(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"


class LineProgress:
    """A plain line on stderr every `interval_s` seconds while items are done, and one at
    the end: `pdfs: 12/38 read, 0.4/s, 1m05s left`."""

    def __init__(
        self,
        description: str,
        total: int | None,
        interval_s: float = LINE_INTERVAL_S,
        stream: IO[str] | None = None,
    ) -> None:
        self.description = description
        self.total = total
        self.done = 0
        self._interval = interval_s
        self._stream = stream
        self._started = time.monotonic()
        self._shown = self._started

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is None:
            self._show(time.monotonic())

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self._shown >= self._interval:
            self._show(now)

    def line(self, now: float) -> str:
        """What the line says `now`: the counts, the rate and, with a total, the time left."""
        elapsed = max(now - self._started, 1e-9)
        rate = self.done / elapsed
        counts = f"{self.done}/{self.total}" if self.total is not None else f"{self.done}"
        text = f"{self.description}: {counts} read, {rate:.1f}/s, {_duration(elapsed)}"
        if self.total is not None and self.done < self.total and rate > 0:
            text += f", {_duration((self.total - self.done) / rate)} left"
        return text

    def _show(self, now: float) -> None:
        self._shown = now
        print(self.line(now), file=self._stream or sys.stderr, flush=True)


class Together:
    """Several progress reports advanced as one."""

    def __init__(self, *parts: Progress) -> None:
        self.parts = parts

    def advance(self, n: int = 1) -> None:
        for part in self.parts:
            part.advance(n)
