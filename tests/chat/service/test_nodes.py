"""Two API nodes, each with a data dir of its own, sharing one PostgreSQL database, one Redis
and one secret key, behave as one service: a session from one is honoured and ended on the
other, the stream cap holds across them, a node that starts leaves the other's answers
streaming, a node that stops beating has its answers marked `interrupted`, and a PDF
ingested through one opens in the other's reader.

The Redis keys a test makes are named by users of its own (fresh ids) and expire with
their limits and slots."""

from __future__ import annotations

import hashlib
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.service.storage.tables import Message
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.index.copying import copy_catalog
from ingest.pdf import PDF_STAGE_VERSION
from ingest.pdf.store import PdfStore
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport
from ingest.sources.units import pdf_items
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.data import PDFS
from tests.support.running.net import serving, unused_port
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    iter_events,
    served_settings,
    wait_for,
)

pytestmark = pytest.mark.timeout(240)

REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET = "the one key every node signs with"
QUESTION = {"message": "How does Fusion-in-Decoder combine the retrieved passages?"}
# Beats and a TTL short enough for a test to see a node go silent.
FAST = {"stream_heartbeat_s": 0.2, "stream_ttl_s": 1.5}

Node = Callable[..., AbstractContextManager[Api]]


@pytest.fixture(name="shared_database")
def shared_database_fixture(small_index: Wiring, database_url: str) -> str:
    """A fresh PostgreSQL schema holding the test index's catalog."""
    shared = Catalog(database_url)
    copy_catalog(Catalog(small_index.settings.catalog_path), shared)
    shared.close()
    return database_url


@pytest.fixture(name="node")
def node_fixture(
    small_index: Wiring, fake_llm: FakeOpenAI, shared_database: str, tmp_path: Path
) -> Node:
    """Start a node on a data dir of its own (a copy of the test index's: its vectors and
    lexical index), on the shared database, Redis and secret key."""

    @contextmanager
    def node(name: str, **more: Any) -> Iterator[Api]:
        data_dir = tmp_path / name
        if not data_dir.exists():
            shutil.copytree(
                small_index.settings.data_dir,
                data_dir,
                ignore=shutil.ignore_patterns("paperchat.sqlite*", "secret_key", "lexical-*"),
            )
        settings = served_settings(
            small_index,
            fake_llm,
            data_dir / "unused.sqlite",
            **{
                "data_dir": data_dir,
                "database_url": shared_database,
                "redis_url": REDIS_URL,
                "secret_key": SecretStr(SECRET),
                **FAST,
                **more,
            },
        )
        prepare_service(settings)
        app = create_app(settings)
        with serving(app, unused_port()) as base_url:
            yield Api(base_url, app, fake_llm)

    return node


def _status(api: Api, message_id: str) -> str:
    with api.services.sessions() as session:
        message = session.get(Message, message_id)
        assert message is not None
        return message.status


def _slow_answer(fake: FakeOpenAI, pieces: int, delay: float) -> None:
    fake.default_script = ChatScript(pieces=tuple(f"word{i} " for i in range(pieces)), delay=delay)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_session_from_one_node_is_honoured_and_signed_out_on_the_other(node: Node) -> None:
    with node("a") as a, node("b") as b:
        email = a.new_user()
        with a.signed_in(email) as on_a, b.client() as on_b:
            on_b.cookies.update(on_a.cookies)
            before = on_b.get("/api/me")
            signed_out = on_a.post("/api/auth/logout")
            after = on_b.get("/api/me")

    assert before.status_code == 200
    assert before.json()["email"] == email
    assert signed_out.status_code == 204
    assert after.status_code == 401


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_stream_cap_holds_across_nodes(node: Node, fake_llm: FakeOpenAI) -> None:
    _slow_answer(fake_llm, pieces=200, delay=0.1)
    with node("a", max_streams_per_user=2) as a, node("b", max_streams_per_user=2) as b:
        key = a.key_for(a.new_user())
        headers = {"Authorization": f"Bearer {key}"}
        with a.client(**headers) as on_a, b.client(**headers) as on_b:
            with (
                on_a.stream("POST", "/api/chat", json=QUESTION) as first,
                on_a.stream("POST", "/api/chat", json=QUESTION) as second,
            ):
                opened = (first.status_code, second.status_code)
                refused_on_a = on_a.post("/api/chat", json=QUESTION)
                refused_on_b = on_b.post("/api/chat", json=QUESTION)
            user_id = on_a.get("/api/me").json()["id"]
            freed = wait_for(lambda: a.services.slots.open_count(user_id) == 0, timeout=10)
            fake_llm.default_script = ChatScript()
            with on_b.stream("POST", "/api/chat", json=QUESTION) as after:
                events = list(iter_events(after))

    assert opened == (200, 200)
    assert refused_on_a.status_code == 429
    assert refused_on_b.status_code == 429
    assert refused_on_b.json() == refused_on_a.json()
    assert refused_on_b.json()["detail"] == "too many open chat streams: at most 2 at a time"
    assert freed
    assert after.status_code == 200
    assert events[-1].name == "done"


def _stream_in_background(api: Api, key: str) -> tuple[threading.Thread, list[Any], dict[str, str]]:
    """An answer streaming from `api` in a thread: its events as they come, and its
    message id once the meta event has come."""
    events: list[Any] = []
    meta: dict[str, str] = {}
    arrived = threading.Event()

    def read() -> None:
        with (
            httpx.Client(base_url=api.base_url, timeout=60) as client,
            client.stream(
                "POST", "/api/chat", json=QUESTION, headers={"Authorization": f"Bearer {key}"}
            ) as response,
        ):
            for event in iter_events(response):
                if event.name == "meta":
                    meta.update(event.data)
                    arrived.set()
                events.append(event)
        arrived.set()

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    assert arrived.wait(30), "the answer began"
    return thread, events, meta


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_node_starting_and_restarting_leaves_the_other_nodes_answer_streaming(
    node: Node, fake_llm: FakeOpenAI
) -> None:
    _slow_answer(fake_llm, pieces=300, delay=0.1)
    with node("a") as a:
        key = a.key_for(a.new_user())
        thread, events, meta = _stream_in_background(a, key)
        for _start in range(2):
            with node("b"):
                # B sweeps every 0.2 s for longer than the TTL while A's answer streams.
                b_saw_it_streaming = not wait_for(
                    lambda: _status(a, meta["message_id"]) != "streaming", timeout=2.5
                )
        while_b_ran = _status(a, meta["message_id"])
        thread.join(60)
        final = _status(a, meta["message_id"])

    assert b_saw_it_streaming
    assert while_b_ran == "streaming"
    assert events[-1].name == "done"
    assert final == "complete"


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_an_answer_whose_node_stopped_beating_is_marked_interrupted_by_another_node(
    node: Node, fake_llm: FakeOpenAI
) -> None:
    _slow_answer(fake_llm, pieces=100, delay=0.1)
    # A beats once a minute: to B, A's answer goes silent after B's TTL.
    with node("a", stream_heartbeat_s=60, stream_ttl_s=120) as a, node("b") as b:
        key = a.key_for(a.new_user())
        thread, _events, meta = _stream_in_background(a, key)
        marked = wait_for(lambda: _status(b, meta["message_id"]) == "interrupted", timeout=10)
        fake_llm.default_script = ChatScript()

    thread.join(30)
    assert marked


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_pdf_ingested_through_one_node_opens_in_the_others_reader(
    node: Node, small_index: Wiring, tmp_path: Path, shared_database: str
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    pdf = inbox / "1502.03167v3.pdf"
    shutil.copy(PDFS / pdf.name, pdf)
    sha256 = hashlib.sha256(pdf.read_bytes()).hexdigest()
    store = tmp_path / "shared-pdfs"
    ingesting = Wiring(
        Settings(
            data_dir=tmp_path / "ingest-node",
            database_url=shared_database,
            models_cache=small_index.settings.models_cache,
            pdf_store=store,
        )
    )
    catalog = ingesting.open_catalog()
    embedder = ingesting.embedder
    pipeline = Pipeline(ingesting.catalog, ingesting.indexer, embedder.embed, NoProgress())
    items = pdf_items([inbox], catalog, embedder.count_tokens, store=PdfStore(store))
    pipeline.run(items, IngestReport())
    paper_id = catalog.current_pdf(sha256, PDF_STAGE_VERSION, str(pdf.resolve()))
    ingesting.close()
    shutil.rmtree(inbox)  # the ingest node's own copy is not where the reader looks

    with node("b", pdf_store=store) as b, b.client() as client:
        page = client.get(f"/papers/{paper_id}/pages/1.webp?w=480")
        (store / sha256[:2] / f"{sha256}.pdf").unlink()
        b.services.pdf_pages.close()
        gone = client.get(f"/papers/{paper_id}/pages/2.json")

    assert paper_id is not None
    assert page.status_code == 200
    assert page.headers["content-type"] == "image/webp"
    assert gone.status_code == 404
    assert "is no longer on this server (in the PDF store" in gone.json()["detail"]
