"""Progress of an ingest run: a rich bar on a terminal, silence elsewhere."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Protocol

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
