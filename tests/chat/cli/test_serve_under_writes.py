"""`paperchat serve` answers for minutes while `paperchat ingest abstracts` and `paperchat
ingest pdfs` write the same data dir beside it, on a machine kept busy: the server never
dies, never answers 5xx (the papers an ingest adds have pages and related papers at once),
and afterwards the vector store checks whole, through the server and opened alone."""

from __future__ import annotations

import gzip
import itertools
import multiprocessing
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from bench.servers import create_keys
from tests.support.data import ABSTRACTS, PDFS, ROOT
from tests.support.running.cli import command, environment, run
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process

pytestmark = [pytest.mark.timeout(1200), pytest.mark.slow, pytest.mark.integration]
FIRST = 200  # abstracts in the library before the server starts
ADDED = 1200  # abstracts the ingest beside it adds
PDF_NAMES = ("1706.03762v7.pdf", "2005.11401v4.pdf", "1810.04805v2.pdf", "2112.04426v1.pdf",
             "1512.03385v1.pdf", "2007.01282v2.pdf")  # fmt: skip
LONGEST_S = 600.0
QUESTIONS = (
    "How does retrieval help a language model?",
    "What is attention?",
    "Which datasets are used to evaluate open-domain question answering?",
)


def _spin(until: float) -> None:  # pragma: no cover - runs in a child process
    while time.monotonic() < until:
        pass


@contextmanager
def _busy_cores(seconds: float) -> Iterator[None]:
    """Every core kept busy by a spinning process, for at most `seconds`."""
    context = multiprocessing.get_context("spawn")
    spinners = [context.Process(target=_spin, args=(time.monotonic() + seconds,), daemon=True)
                for _ in range(multiprocessing.cpu_count())]  # fmt: skip
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.join()


def _records(path: Path, start: int, stop: int) -> list[str]:
    """Records `start` to `stop` of the abstracts, written to `path`; their ids."""
    import json

    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        kept = list(itertools.islice(lines, start, stop))
    path.write_text("".join(kept), encoding="utf-8")
    return [str(json.loads(line)["id"]) for line in kept]


def test_the_server_answers_while_two_ingests_write_beside_it(
    tmp_path: Path, models_cache: Path
) -> None:
    data = tmp_path / "data"
    database = f"sqlite:///{tmp_path / 'service.sqlite'}"
    env = environment(data, models_cache, PAPERCHAT_LLM="extractive",
                      PAPERCHAT_DATABASE_URL=database)  # fmt: skip
    first = run(env, "ingest", "abstracts", str(ABSTRACTS), "--limit", str(FIRST))
    assert first.code == 0, first.stderr
    added_ids = _records(tmp_path / "more.jsonl", FIRST, FIRST + ADDED)
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in PDF_NAMES:
        shutil.copy(PDFS / name, pdfs / name)
    (key,) = create_keys(env["PAPERCHAT_DATABASE_URL"], 1)
    headers = {"Authorization": f"Bearer {key}"}
    port = unused_port()
    statuses: Counter[str] = Counter()
    related_new = 0

    with ExitStack() as stack:
        log = stack.enter_context((tmp_path / "serve.log").open("wb"))
        server = subprocess.Popen(command("serve", "--port", str(port)), env=env, cwd=ROOT,
                                  stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
        stack.callback(stop_process, server)
        client = stack.enter_context(
            httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=120)
        )
        _wait_for(client, server)
        writers = [
            subprocess.Popen(command("ingest", "abstracts", str(tmp_path / "more.jsonl")),
                             env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT),
            subprocess.Popen(command("ingest", "pdfs", str(pdfs)),
                             env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT),
        ]  # fmt: skip
        for writer in writers:
            stack.callback(stop_process, writer)
        stack.enter_context(_busy_cores(LONGEST_S))
        deadline = time.monotonic() + LONGEST_S
        for turn in itertools.count():
            if all(w.poll() is not None for w in writers) or time.monotonic() > deadline:
                break
            asked = client.post("/api/chat", json={"message": QUESTIONS[turn % 3]})
            statuses[f"chat {asked.status_code}"] += 1
            for paper_id in added_ids[turn * 7 % ADDED :: 97][:3]:
                page = client.get(f"/api/papers/{paper_id}")
                statuses[f"paper {page.status_code}"] += 1
                if page.status_code == 200:
                    related = client.get(f"/api/papers/{paper_id}/related")
                    statuses[f"related {related.status_code}"] += 1
                    related_new += related.status_code == 200
        writer_codes = [w.wait(timeout=LONGEST_S) for w in writers]
        health = client.get("/api/health").json()
        through_server = run(env, "index", "check", "--json")
        alive = server.poll() is None

    alone = run(env, "index", "check", "--json")
    served = (tmp_path / "serve.log").read_text(errors="replace")
    assert alive, served[-3000:]
    assert writer_codes == [0, 0], served[-3000:]
    assert not [s for s in statuses if s.split()[1].startswith("5")], statuses
    assert statuses["chat 200"] >= 10, statuses
    assert related_new >= 5, statuses  # new papers' related lists answered while ingesting
    assert health["papers"] >= FIRST + ADDED
    assert health["pdfs"]["read"] == len(PDF_NAMES)
    assert through_server.code == 0, through_server.stdout
    assert alone.code == 0, alone.stdout
    assert alone.json["vectors"] == alone.json["chunks"] == health["chunks"]


def _wait_for(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and server.poll() is None:
        try:
            client.get("/api/health")
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("the server did not start")
