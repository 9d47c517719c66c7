"""Two `paperchat serve` nodes, each with a data dir of its own, serve one library: the
catalog in a PostgreSQL cluster of its own, vectors in `chroma run`, limits in Redis, and
one secret key. Papers ingested through node A are counted, found, answered and cited by
node B; what a user does on one node holds on the other."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ingest.index.catalog import Catalog
from ingest.index.vectors.store import open_chroma
from ingest.jobs.queue import counts, open_queue
from tests.cluster.services import Node, Shared, Worker, chroma, postgres, redis
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.data import ABSTRACTS, PDFS
from tests.support.running.cli import run
from tests.support.running.processes import LATE_COMMIT_REFUSED
from tests.support.running.server import SseEvent, iter_events, read_events

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

PAPERS = 300
PASSWORD = "a long cluster password"
EMAIL = "ada@example.org"
# Two of the smallest shared PDFs, read by the workers.
PDF_FILES = (PDFS / "1502.03167v3.pdf", PDFS / "1201.3077v1.pdf")


@dataclass
class Cluster:
    shared: Shared
    a: Node
    b: Node
    llm: FakeOpenAI
    papers: list[dict[str, str]]
    root: Path
    workers: list[Worker]

    def cli(self, node: Node, *args: str) -> dict[str, object]:
        done = run(node.env, *args, timeout=300)
        assert done.code == 0, done.stderr
        return dict(json.loads(done.stdout)) if "--json" in args else {}


def _records(count: int) -> list[dict[str, str]]:
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for _, line in zip(range(count), lines, strict=False)]


@contextmanager
def _signed_in(node: Node, email: str = EMAIL) -> Iterator[httpx.Client]:
    """A client signed in on `node` with a browser session, sending its CSRF token."""
    with httpx.Client(base_url=node.url, timeout=60) as client:
        response = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
        response.raise_for_status()
        client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        yield client


def _wait_for(condition: object, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.5)
    return False


@pytest.fixture(scope="module", name="cluster")
def cluster_fixture(
    tmp_path_factory: pytest.TempPathFactory, models_cache: Path
) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("cluster")
    records = _records(PAPERS)
    metadata = root / "abstracts.jsonl"
    first = records[: PAPERS - 20]
    metadata.write_text("".join(json.dumps(r) + "\n" for r in first), encoding="utf-8")
    with (
        postgres() as server,
        chroma(root) as chroma_url,
        redis(root) as redis_url,
        FakeOpenAI() as llm,
    ):
        shared = Shared(
            server.url, chroma_url, redis_url, models_cache,
            {"PAPERCHAT_LLM": "openai", "PAPERCHAT_OPENAI_BASE_URL": llm.base_url,
             "PAPERCHAT_OPENAI_API_KEY": "test", "PAPERCHAT_MAX_STREAMS_PER_USER": "2",
             "PAPERCHAT_PDF_STORE": str(root / "pdf-store"),
             "PAPERCHAT_UPLOADS_DIR": str(root / "uploads"),
             # Every client here is 127.0.0.1: only the per-email sign-in limit is tested.
             "PAPERCHAT_LOGIN_ADDRESS_RATE_LIMIT": "1000/minute"},
        )  # fmt: skip
        a, b = Node("a", shared, root), Node("b", shared, root)
        cluster = Cluster(shared, a, b, llm, records, root, [])
        _ingest_with_workers(cluster, metadata)
        done = run(a.env, "users", "create", EMAIL, "--password-stdin", input_text=PASSWORD)
        assert done.code == 0, done.stderr
        for node in (a, b):
            node.start()
        try:
            yield cluster
        finally:
            for node in (a, b):
                node.stop()


def _ingest_with_workers(cluster: Cluster, metadata: Path) -> None:
    """The first papers and the PDFs go through the queue to two workers: one is killed
    between the Chroma upsert and the catalog commit, the other stopped there past its
    lease; the first, started again, does every job."""
    a = cluster.a
    queued = run(a.env, "jobs", "enqueue", "abstracts", str(metadata), "--batch", "40", "--json")
    assert queued.code == 0, queued.stderr
    assert run(a.env, "jobs", "enqueue", "pdfs", *map(str, PDF_FILES)).code == 0
    jobs = int(queued.json["jobs"]) + len(PDF_FILES)
    killed, paused = Worker("w1", cluster.shared, cluster.root), Worker("w2", cluster.shared,
                                                                         cluster.root)  # fmt: skip
    cluster.workers.extend([killed, paused])
    try:
        first = killed.start(PAPERCHAT_FAILPOINT="after-chroma-upsert")
        paused.start(PAPERCHAT_FAILPOINT="after-chroma-upsert:pause")
        assert _wait_for(lambda: first.poll() is not None and paused.stopped(), timeout=240)
        assert first.returncode == -signal.SIGKILL
        killed.start()

        queue = open_queue(cluster.shared.database_url)
        with queue.open():
            done = _wait_for(lambda: counts(queue)["succeeded"] == jobs, timeout=300)
        assert done, killed.text()
        assert paused.process is not None
        os.kill(paused.process.pid, signal.SIGCONT)
        # Its late commit is refused, then its job's end is not recorded as its own.
        refused = _wait_for(lambda: "lease was lost" in paused.text(), timeout=60)
        assert refused, paused.text()
        assert re.search(LATE_COMMIT_REFUSED, paused.text()), paused.text()
    finally:
        for worker in (killed, paused):
            worker.stop()


def test_papers_ingested_through_a_are_counted_on_b(cluster: Cluster) -> None:
    stats = cluster.cli(cluster.b, "index", "stats", "--json")

    assert stats["papers"] == PAPERS - 20 + len(PDF_FILES)
    assert stats["papers_with_fulltext"] == len(PDF_FILES)
    assert stats["vectors"] == stats["chunks"]
    assert _wait_for(lambda: cluster.b.health()["lexical_replica"]["lag"] == 0)  # type: ignore[index]
    assert cluster.b.health()["chunks"] == stats["chunks"]


def test_a_paper_ingested_through_a_while_b_serves_is_found_and_cited_by_b(
    cluster: Cluster,
) -> None:
    metadata = cluster.root / "later.jsonl"
    later = cluster.papers[PAPERS - 20 :]
    metadata.write_text("".join(json.dumps(r) + "\n" for r in later), encoding="utf-8")
    cluster.cli(cluster.a, "ingest", "abstracts", str(metadata))
    paper = later[-1]
    cluster.llm.default_script = ChatScript(
        pieces=("The paper answers it ", f"[arXiv:{paper['id']}]", ".")
    )
    question = f"What does the paper '{' '.join(paper['title'].split())}' propose?"

    with _signed_in(cluster.b) as client:

        def found_on_b() -> bool:
            found = client.get("/api/search", params={"q": paper["title"][:80], "limit": 5})
            return paper["id"] in [r["id"] for r in found.json()["results"]]

        assert _wait_for(found_on_b, timeout=60), "B finds A's new paper within a minute"
        with client.stream("POST", "/api/chat", json={"message": question}) as response:
            events = read_events(response)

    sources = next(e.data["sources"] for e in events if e.name == "sources")
    done = events[-1]
    assert paper["id"] in [s["id"] for s in sources]
    assert done.name == "done"
    assert done.data["citations"] == [paper["id"]]


def test_signing_out_on_a_signs_out_on_b(cluster: Cluster) -> None:
    with _signed_in(cluster.a) as client:
        cookies = dict(client.cookies)
        with httpx.Client(base_url=cluster.b.url, cookies=cookies) as on_b:
            assert on_b.get("/api/me").status_code == 200

            assert client.post("/api/auth/logout").status_code == 204

            assert on_b.get("/api/me").status_code == 401


def _about(cluster: Cluster) -> str:
    """A question the library answers, so that the model is asked (one about nothing in
    it is declined at once, and its stream ends before it could hold a slot)."""
    title = " ".join(cluster.papers[0]["title"].split())
    return f"What does the paper '{title}' propose?"


def test_the_stream_cap_holds_across_nodes(cluster: Cluster) -> None:
    cluster.llm.default_script = ChatScript(pieces=tuple(f"part {n} " for n in range(40)),
                                            delay=0.2)  # fmt: skip
    # Each stream's event reader is kept: one dropped is closed when collected, and it
    # closes its response, which ended the first answer (and gave back its slot) early.
    opened: list[tuple[httpx.Response, Iterator[SseEvent]]] = []
    with ExitStack() as stack:
        clients = [stack.enter_context(_signed_in(cluster.a)) for _ in range(2)]
        for client in clients:  # the cap: two streams, both on A
            response = client.send(
                client.build_request("POST", "/api/chat", json={"message": _about(cluster)}),
                stream=True,
            )
            stack.callback(response.close)
            events = iter_events(response)
            # Mid-answer: the model's first words have come, the slot is held.
            assert next(e for e in events if e.name in ("delta", "done", "error")).name == "delta"
            opened.append((response, events))
        with _signed_in(cluster.b) as on_b:
            third = on_b.post("/api/chat", json={"message": _about(cluster)})
    assert len(opened) == 2
    assert third.status_code == 429


def test_restarting_b_while_a_streams_leaves_as_answer_complete(cluster: Cluster) -> None:
    pieces = tuple(f"piece {n} " for n in range(30))
    cluster.llm.default_script = ChatScript(pieces=pieces, delay=0.3)
    finished: list[list[str]] = []

    def ask_a() -> None:
        with (
            _signed_in(cluster.a) as client,
            client.stream("POST", "/api/chat", json={"message": _about(cluster)}) as stream,
        ):
            finished.append([e.name for e in iter_events(stream)])

    asking = threading.Thread(target=ask_a)
    asking.start()
    time.sleep(2)
    cluster.b.stop()
    cluster.b.start()
    asking.join(timeout=120)

    assert [names[-1] for names in finished] == ["done"]
    with _signed_in(cluster.a) as client:
        latest = client.get("/api/conversations").json()[0]
        messages = client.get(f"/api/conversations/{latest['id']}").json()["messages"]
    assert messages[-1]["status"] == "complete"
    assert messages[-1]["content"] == "".join(pieces)


def test_the_catalog_lists_exactly_what_chroma_holds_after_the_kills(cluster: Cluster) -> None:
    catalog = Catalog(cluster.shared.database_url)
    in_catalog = sorted(str(r[0]) for r in catalog.db.execute("SELECT id FROM chunks"))
    pending = catalog.pending_units()
    catalog.close()
    client = open_chroma(Path(), cluster.shared.chroma_url)
    in_chroma = sorted(i for c in client.list_collections() for i in c.get(include=[])["ids"])

    assert pending == []
    assert in_catalog == in_chroma
    assert re.search(LATE_COMMIT_REFUSED, cluster.workers[1].text())  # its late commit refused


def test_b_reads_a_pdf_that_a_worker_ingested(cluster: Cluster) -> None:
    paper_id = "1502.03167"
    with _signed_in(cluster.b) as client:
        page = client.get(f"/papers/{paper_id}/pages/1.webp")

    assert page.status_code == 200
    assert page.headers["content-type"] == "image/webp"
    assert len(page.content) > 10_000


def test_the_sign_in_limit_holds_across_nodes(cluster: Cluster) -> None:
    """PAPERCHAT_LOGIN_RATE_LIMIT (10 a minute per address and email) counts the attempts
    made on both nodes together."""
    wrong = {"email": "grace@example.org", "password": "not the password"}
    answers = []
    for attempt in range(12):
        node = cluster.a if attempt % 2 == 0 else cluster.b
        answers.append(httpx.post(f"{node.url}/api/auth/login", json=wrong, timeout=30).status_code)

    assert answers[:10] == [401] * 10
    assert answers[10:] == [429, 429]


def _key_client(cluster: Cluster, node: Node, email: str) -> httpx.Client:
    """A client of `node` with a new API key of `email`'s (made with the CLI on node A)."""
    made = run(cluster.a.env, "keys", "create", email)
    assert made.code == 0, made.stderr
    key = made.stdout.strip().split()[-1]
    return httpx.Client(base_url=node.url, timeout=60, headers={"Authorization": f"Bearer {key}"})


# An upload's reader, read through node B: its page, a page image and a page's text.
READER_PAGES = ("read", "pages/1.webp", "pages/1.json")


def test_an_upload_sent_to_a_is_read_and_asked_through_b_by_its_owner_alone(
    cluster: Cluster,
) -> None:
    other = "mallory@example.org"
    made = run(cluster.a.env, "users", "create", other, "--password-stdin", input_text=PASSWORD)
    assert made.code == 0, made.stderr
    files = {"file": ("longeval.pdf", (PDFS / "2023.eacl-main.121.pdf").read_bytes())}
    cluster.llm.default_script = ChatScript(pieces=("Just 12 papers did.",))
    question = "How many of the surveyed papers carried out any kind of statistical analysis?"

    with _key_client(cluster, cluster.a, EMAIL) as on_a:
        upload_id = on_a.post("/api/uploads", files=files).json()["id"]
    with _key_client(cluster, cluster.b, EMAIL) as on_b:

        def read_on_b() -> bool:
            return bool(on_b.get(f"/api/uploads/{upload_id}").json()["status"] != "processing")

        assert _wait_for(read_on_b, timeout=300)
        upload = on_b.get(f"/api/uploads/{upload_id}").json()
        body = {"message": question, "upload_ids": [upload_id]}
        with on_b.stream("POST", "/api/chat", json=body) as response:
            events = read_events(response)
        reader = [on_b.get(f"/uploads/{upload_id}/{page}") for page in READER_PAGES]
    reader_paths = [f"/uploads/{upload_id}/{page}" for page in READER_PAGES]
    with _key_client(cluster, cluster.b, other) as stranger:
        theirs = [stranger.get(f"/api/uploads/{upload_id}"), stranger.post("/api/chat", json=body)]
        theirs += [stranger.get(path) for path in reader_paths]
        theirs += [stranger.get(f"/api/uploads/{upload_id}/pdf")]
        listed = stranger.get("/api/uploads").json()["uploads"]
        searched = stranger.get("/api/search", params={"q": upload["title"], "limit": 50})

    sources = next(e.data["sources"] for e in events if e.name == "sources")
    assert upload["status"] == "ready", upload
    assert {s["id"] for s in sources} == {upload["doc_id"]}
    assert [r.status_code for r in reader] == [200, 200, 200]
    assert all("no-store" in r.headers["cache-control"] for r in reader)
    assert [r.status_code for r in theirs] == [404] * 6
    assert listed == []
    assert upload["doc_id"] not in {r["id"] for r in searched.json()["results"]}
