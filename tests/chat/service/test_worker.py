"""A worker's threads for blocking work: as many as `PAPERCHAT_WORKER_THREADS`, no more."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from chat.rag.retrieval.retriever import Retriever
from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.service.worker import use_worker_threads
from chat.wiring import Wiring
from tests.fakes.openai import FakeOpenAI
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    fake_llm_fixture,
    fresh_upstream_fixture,
    served_settings,
)


class _Overlap:
    """How many calls run at once, at most, and on which threads."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.threads: set[str] = set()
        self._lock = threading.Lock()

    def call(self) -> None:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
            self.threads.add(threading.current_thread().name)
        time.sleep(0.02)
        with self._lock:
            self.running -= 1


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_blocking_calls_run_on_the_worker_threads_only(threads: int) -> None:
    overlap = _Overlap()

    async def main() -> None:
        use_worker_threads(threads)
        await asyncio.gather(*(asyncio.to_thread(overlap.call) for _ in range(12)))

    asyncio.run(main())

    # The interpreter's own default would run min(32, cores + 4) of them at once.
    assert overlap.most <= threads
    assert len(overlap.threads) <= threads
    assert all(name.startswith("paperchat-work") for name in overlap.threads)


def test_the_app_retrieves_on_its_worker_threads(
    small_index: Wiring,
    fake_llm: FakeOpenAI,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    retrieve = Retriever.retrieve

    def recorded(self: Retriever, *args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread().name)
        return retrieve(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Retriever, "retrieve", recorded)
    settings = served_settings(small_index, fake_llm, tmp_path / "db.sqlite", worker_threads=1)
    prepare_service(settings)

    with TestClient(create_app(settings)):
        pass

    assert threads  # the warm-up retrieval
    assert all(name.startswith("paperchat-work") for name in threads)
