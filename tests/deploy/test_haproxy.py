"""haproxy with the deployed configuration (deploy/haproxy.cfg) in front of two `paperchat
serve` processes on one index: answers stream through it as they are written, a client that
leaves stops the model upstream, and a new request goes to the node with fewer open ones."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import httpx
import pytest

from bench.balancer import Balancer, balancer
from bench.servers import create_keys
from chat.wiring import Wiring
from ingest.index.vectors.server import VectorServer
from tests.fakes.openai import ChatScript, FakeOpenAI
from tests.support.data import EVAL, ROOT
from tests.support.running.haproxy import haproxy_or_skip
from tests.support.running.net import unused_port
from tests.support.running.processes import stop_process
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    fake_llm_fixture,
    fresh_upstream_fixture,
    iter_events,
    wait_for,
)

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]


@dataclass(frozen=True)
class Cluster:
    balancer: Balancer
    key: str


@pytest.fixture(scope="module")
def cluster(
    small_index: Wiring, fake_llm: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """Two `paperchat serve` processes over one index and one database, behind haproxy: a
    copy of the test index, whose vectors both reach on one Chroma server."""
    haproxy_or_skip()
    scratch = tmp_path_factory.mktemp("cluster")
    data_dir = scratch / "data"
    shutil.copytree(small_index.settings.data_dir, data_dir)
    vectors = VectorServer(data_dir / "chroma", scratch / "chroma.log")
    database_url = f"sqlite:///{scratch / 'service.sqlite'}"
    (key,) = create_keys(database_url, 1)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERCHAT_", "OPENAI_"))}
    env |= {
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_CHROMA_URL": vectors.start(),
        "PAPERCHAT_MODELS_CACHE": str(small_index.settings.models_dir),
        "PAPERCHAT_DATABASE_URL": database_url,
        "PAPERCHAT_SECRET_KEY": secrets.token_urlsafe(32),
        "PAPERCHAT_LLM": "openai",
        "PAPERCHAT_LLM_MODEL": "fake-chat",
        "OPENAI_BASE_URL": fake_llm.base_url,
        "OPENAI_API_KEY": "test-upstream-key",
    }
    ports = [unused_port(), unused_port()]
    with ExitStack() as stack:
        stack.callback(vectors.stop)
        log = stack.enter_context((scratch / "nodes.log").open("ab"))
        for port in ports:
            command = [sys.executable, "-m", "chat.cli", "serve", "--host", "127.0.0.1",
                       "--port", str(port)]  # fmt: skip
            node = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=log)
            stack.callback(stop_process, node)
        nodes = [f"127.0.0.1:{port}" for port in ports]
        running = stack.enter_context(balancer(nodes, unused_port(), scratch / "haproxy.log"))
        yield Cluster(running, key)


def _question() -> str:
    """A dev question whose paper the small index holds."""
    with (EVAL / "questions-abstracts.jsonl").open(encoding="utf-8") as lines:
        return str(json.loads(next(lines))["question"])


def test_an_answer_streams_through_the_balancer_before_it_ends(
    cluster: Cluster, fake_llm: FakeOpenAI
) -> None:
    fake_llm.default_script = ChatScript(pieces=("Rewards", " are pruned."), hang_after=1)
    headers = {"Authorization": f"Bearer {cluster.key}"}
    seen: list[str] = []
    text = ""

    with (
        httpx.Client(base_url=cluster.balancer.url, timeout=30) as client,
        client.stream("POST", "/api/chat", json={"message": _question()}, headers=headers) as r,
    ):
        for event in iter_events(r):
            seen.append(event.name)
            if event.name == "delta":
                text = event.data["text"]
                break
        still_streaming = not fake_llm.client_disconnected.is_set()

    assert r.status_code == 200
    assert seen == ["meta", "sources", "delta"]
    assert text == "Rewards"
    assert still_streaming  # the model had sent one piece and waited: nothing had ended
    # Leaving through the balancer reaches the node, which stops the model.
    assert wait_for(fake_llm.client_disconnected.is_set, timeout=30)


def test_a_new_request_goes_to_the_node_with_fewer_open_ones(
    cluster: Cluster, fake_llm: FakeOpenAI
) -> None:
    fake_llm.default_script = ChatScript(pieces=("Rewards", " are pruned."), hang_after=1)
    headers = {"Authorization": f"Bearer {cluster.key}"}
    before = cluster.balancer.sessions()

    with (
        httpx.Client(base_url=cluster.balancer.url, timeout=30) as client,
        client.stream("POST", "/api/chat", json={"message": _question()}, headers=headers) as r,
    ):
        next(event for event in iter_events(r) if event.name == "delta")
        for _ in range(4):
            with httpx.Client(base_url=cluster.balancer.url, timeout=30) as other:
                other.get("/api/health").raise_for_status()
        after = cluster.balancer.sessions()

    handed = sorted(after[name] - before[name] for name in after)
    assert handed == [1, 4]  # the stream's node got nothing more; round robin gives [3, 2]
