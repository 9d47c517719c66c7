"""Run a function over many items in worker processes that may hang or crash.

A small pool of long-lived workers, started from a forkserver, takes the
items one at a time. A worker that runs past the time limit is killed, one
that dies (a segfault inside a C library, an exit) is noticed by its closed
pipe; either way only its own item fails, and the next item gets a new
worker. Starting a process (and re-importing the main module in it) is paid
once per worker rather than once per item. A worker may be given a memory
limit (its address space, `RLIMIT_AS`, set in the worker only): an item that
needs more fails with "over the memory limit of N MB" instead of taking the
machine's memory. Workers run at a lower priority
than the process that started them, so the work they do in parallel (PDF
parsing) gives way to the caller's own (embedding). The forkserver start
method is safe in a parent that already runs threads (torch, tokenizers),
unlike fork.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import resource
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_CONTEXT = multiprocessing.get_context("forkserver")
# How much lower the workers' scheduling priority is than the parent's (os.nice).
WORKER_NICENESS = 10
# A worker is replaced after this many items, so that whatever a parser leaks stays small.
ITEMS_PER_WORKER = 100
_STOP_WAIT_S = 1.0
# The memory (address space) a PDF parser worker may use by default: a real paper needs
# under 100 MB, a file that inflates to gigabytes of text is stopped well before that.
PDF_MAX_MB = 1024
# The time one PDF may take to parse by default, in seconds.
PDF_TIMEOUT_S = 120.0
# A C library that cannot allocate aborts the process (C++'s uncaught bad_alloc).
_OUT_OF_MEMORY_SIGNALS = frozenset({signal.SIGABRT})


@dataclass(frozen=True)
class Failure:
    """Why one item produced no value: a timeout, a crash, or the worker's exception."""

    reason: str


def over_memory_limit(limit_mb: int) -> str:
    return f"over the memory limit of {limit_mb} MB"


def _limit_memory(limit_mb: int | None) -> None:
    """Cap this process's address space at `limit_mb` (None: no cap)."""
    if limit_mb is None:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = limit_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _serve(channel: Connection, niceness: int, memory_limit_mb: int | None = None) -> None:
    """Worker entry: answer each (func, item) with ("ok", value) or ("error", message)."""
    os.nice(niceness)
    _limit_memory(memory_limit_mb)
    while True:
        try:
            request = channel.recv()
        except EOFError:
            return
        if request is None:
            return
        func, item = request
        try:
            message: tuple[str, Any] = ("ok", func(item))
        except MemoryError:
            message = ("error", over_memory_limit(memory_limit_mb or 0))
        except Exception as e:  # noqa: BLE001 - the worker boundary reports every failure
            message = ("error", str(e) or type(e).__name__)
        try:
            channel.send(message)
        except OSError:  # the parent has gone away
            return
        except Exception as e:  # noqa: BLE001 - e.g. a value that cannot be pickled
            channel.send(("error", f"cannot send the result back: {e}"))


@dataclass
class _Worker:
    process: BaseProcess
    channel: Connection
    served: int = 0
    item: Any = None
    deadline: float = field(default=float("inf"))
    busy: bool = False

    memory_limit_mb: int | None = None

    @classmethod
    def start(cls, niceness: int, memory_limit_mb: int | None = None) -> _Worker:
        mine, theirs = _CONTEXT.Pipe(duplex=True)
        args = (theirs, niceness, memory_limit_mb)
        process = _CONTEXT.Process(target=_serve, args=args, daemon=True)
        try:
            process.start()
        finally:
            theirs.close()
        return cls(process, mine, memory_limit_mb=memory_limit_mb)

    def give(self, func: Callable[[Any], Any], item: Any, timeout_s: float) -> None:
        self.channel.send((func, item))
        self.item, self.busy, self.served = item, True, self.served + 1
        self.deadline = time.monotonic() + timeout_s

    def outcome(self) -> Any:
        """The finished item's value or a Failure; a dead worker's pipe gives its exit."""
        self.busy = False
        try:
            status, payload = self.channel.recv()
        except (EOFError, OSError):
            self.process.join()
            return Failure(_exit_reason(self.process.exitcode, self.memory_limit_mb))
        return payload if status == "ok" else Failure(payload)

    def stop(self) -> None:
        """End the worker: politely when idle, by SIGKILL when busy or slow to leave."""
        if not self.busy and self.process.is_alive():
            try:
                self.channel.send(None)
                self.process.join(_STOP_WAIT_S)
            except OSError:
                pass
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.channel.close()
        self.process.close()


def _exit_reason(exitcode: int | None, memory_limit_mb: int | None = None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        if memory_limit_mb is not None and -exitcode in _OUT_OF_MEMORY_SIGNALS:
            return f"{over_memory_limit(memory_limit_mb)} (the parser aborted, signal {name})"
        return f"worker crashed (signal {name})"
    return f"worker exited with code {exitcode} and no result"


class WorkerPool:
    """Up to `size` workers; each item runs in one of them, under a time and a memory limit."""

    def __init__(
        self,
        size: int,
        timeout_s: float,
        niceness: int = WORKER_NICENESS,
        memory_limit_mb: int | None = None,
    ) -> None:
        if size < 1:
            raise ValueError(f"workers must be at least 1, not {size}")
        self.size = size
        self.timeout_s = timeout_s
        self.niceness = niceness
        self.memory_limit_mb = memory_limit_mb
        self._workers: list[_Worker] = []

    @property
    def busy(self) -> int:
        return sum(w.busy for w in self._workers)

    def submit(self, func: Callable[[Any], Any], item: Any) -> None:
        """Hand `item` to an idle worker, starting one if needed (call only when one is free)."""
        worker = next((w for w in self._workers if not w.busy), None)
        if worker is None:
            worker = self._add()
        try:
            worker.give(func, item, self.timeout_s)
        except OSError:  # the idle worker is gone (killed from outside): one new try
            self._drop(worker)
            self._add().give(func, item, self.timeout_s)

    def collect(self) -> Iterator[tuple[Any, Any]]:
        """Wait for a busy worker to finish or time out; yield (item, value or Failure)."""
        busy = [w for w in self._workers if w.busy]
        wait_s = max(0.0, min(w.deadline for w in busy) - time.monotonic())
        ready = wait([w.channel for w in busy], timeout=wait_s)
        now = time.monotonic()
        for worker in busy:
            if worker.channel in ready:
                item, outcome = worker.item, worker.outcome()
                if isinstance(outcome, Failure) or worker.served >= ITEMS_PER_WORKER:
                    self._drop(worker)
                yield item, outcome
            elif now >= worker.deadline:
                self._drop(worker)
                yield worker.item, Failure(f"timed out after {self.timeout_s:g} s")

    def close(self) -> None:
        for worker in list(self._workers):
            self._drop(worker)

    def _add(self) -> _Worker:
        worker = _Worker.start(self.niceness, self.memory_limit_mb)
        self._workers.append(worker)
        return worker

    def _drop(self, worker: _Worker) -> None:
        self._workers.remove(worker)
        worker.stop()


def run_isolated(
    func: Callable[[T], R],
    items: Iterable[T],
    *,
    workers: int,
    timeout_s: float,
    memory_limit_mb: int | None = None,
) -> Generator[tuple[T, R | Failure], None, None]:
    """Yield (item, value or Failure) for every item, in order of completion.

    `func` and the items must be picklable (`func` a module-level function).
    At most `workers` items run at once, each in a worker process; one that
    runs longer than `timeout_s` is killed and its item fails with
    "timed out after N s"; with `memory_limit_mb`, one that needs more memory
    fails with "over the memory limit of N MB". Closing the generator ends
    every worker.
    """
    pool = WorkerPool(workers, timeout_s, memory_limit_mb=memory_limit_mb)
    # Workers fork from the server, so a module it imported once costs no import per worker.
    # This takes effect only if the server is not yet running, and only for importable modules.
    _CONTEXT.set_forkserver_preload([func.__module__])
    pending = iter(items)
    try:
        while True:
            for item in itertools.islice(pending, workers - pool.busy):
                try:
                    pool.submit(func, item)
                except Exception as e:  # noqa: BLE001 - an item that cannot be sent fails alone
                    yield item, Failure(f"cannot start a worker: {e}")
            if not pool.busy:
                return
            yield from pool.collect()
    finally:
        pool.close()
