"""Doing the same thing from several threads at once, as several processes or nodes would."""

from __future__ import annotations

import threading
from collections.abc import Callable


def at_once(
    action: Callable[[], object],
    times: int = 4,
    catching: tuple[type[Exception], ...] = (Exception,),
    timeout: float = 120,
) -> list[Exception]:
    """Run `action` in `times` threads released together; the exceptions of the kinds
    `catching` they raised (any other fails the thread loudly)."""
    start = threading.Barrier(times)
    failures: list[Exception] = []

    def run() -> None:
        start.wait()
        try:
            action()
        except catching as e:  # returned for the caller's assertion
            failures.append(e)

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return failures
