"""Run a function over many items in worker processes that may hang or crash.

Every item gets a fresh process from a forkserver, so a worker that hangs,
leaks, or dies from a signal (a segfault inside a C library) costs only its
own item. The forkserver start method is safe in a parent that already runs
threads (torch, tokenizers), unlike fork.
"""

from __future__ import annotations

import itertools
import multiprocessing
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_CONTEXT = multiprocessing.get_context("forkserver")


@dataclass(frozen=True)
class Failure:
    """Why one item produced no value: a timeout, a crash, or the worker's exception."""

    reason: str


@dataclass
class _Job(Generic[T]):
    item: T
    process: BaseProcess
    reader: Connection
    deadline: float


def _run_one(func: Callable[[Any], Any], item: Any, writer: Connection) -> None:
    """Worker entry: send back ("ok", value) or ("error", message)."""
    try:
        message: tuple[str, Any] = ("ok", func(item))
    except Exception as e:  # noqa: BLE001 - the worker boundary reports every failure
        message = ("error", str(e) or type(e).__name__)
    try:
        writer.send(message)
    except Exception as e:  # noqa: BLE001 - e.g. a value that cannot be pickled
        writer.send(("error", f"cannot send the result back: {e}"))
    finally:
        writer.close()


def _start(func: Callable[[T], R], item: T, timeout_s: float) -> _Job[T]:
    reader, writer = _CONTEXT.Pipe(duplex=False)
    process = _CONTEXT.Process(target=_run_one, args=(func, item, writer), daemon=True)
    try:
        process.start()
    finally:
        writer.close()
    return _Job(item, process, reader, time.monotonic() + timeout_s)


def _exit_reason(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        return f"worker crashed (signal {name})"
    return f"worker exited with code {exitcode} and no result"


def _finish(job: _Job[Any]) -> Any:
    """Collect a finished job's outcome: its value or a Failure."""
    outcome: Any
    try:
        status, payload = job.reader.recv()
        outcome = payload if status == "ok" else Failure(payload)
    except (EOFError, OSError):
        job.process.join()
        outcome = Failure(_exit_reason(job.process.exitcode))
    job.reader.close()
    job.process.join()
    job.process.close()
    return outcome


def _kill(job: _Job[Any]) -> None:
    job.process.kill()
    job.process.join()
    job.reader.close()
    job.process.close()


def _seconds(value: float) -> str:
    return f"{value:g} s"


def run_isolated(
    func: Callable[[T], R], items: Iterable[T], *, workers: int, timeout_s: float
) -> Generator[tuple[T, R | Failure], None, None]:
    """Yield (item, value or Failure) for every item, in order of completion.

    `func` and the items must be picklable (`func` a module-level function).
    At most `workers` processes run at once; one that runs longer than
    `timeout_s` is killed and its item fails with "timed out after N s".
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    # Children fork from the server, so a module it imported once costs no import per item.
    # This takes effect only if the server is not yet running, and only for importable modules.
    _CONTEXT.set_forkserver_preload([func.__module__])
    pending = iter(items)
    running: list[_Job[T]] = []
    try:
        while True:
            for item in itertools.islice(pending, workers - len(running)):
                try:
                    running.append(_start(func, item, timeout_s))
                except Exception as e:  # noqa: BLE001 - an item that cannot be sent fails alone
                    yield item, Failure(f"cannot start a worker: {e}")
            if not running:
                return
            yield from _collect(running, timeout_s)
    finally:
        for job in running:
            _kill(job)


def _collect(running: list[_Job[T]], timeout_s: float) -> Iterator[tuple[T, Any]]:
    """Wait for the first job to finish or time out; yield what ended."""
    now = time.monotonic()
    wait_s = max(0.0, min(job.deadline for job in running) - now)
    ready = wait([job.reader for job in running], timeout=wait_s)
    now = time.monotonic()
    for job in list(running):
        if job.reader in ready:
            running.remove(job)
            yield job.item, _finish(job)
        elif now >= job.deadline:
            running.remove(job)
            _kill(job)
            yield job.item, Failure(f"timed out after {_seconds(timeout_s)}")
