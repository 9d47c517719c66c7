"""compose.yaml and deploy/haproxy.cfg: every node shares what it must and keeps its own data
dir, and haproxy accepts the balancer's configuration."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML (a chromadb dependency) ships no types

from bench.balancer import DEPLOYED, BalancerError, check_config
from tests.support.data import ROOT
from tests.support.running import haproxy

SHARED = (
    "PAPERCHAT_DATABASE_URL", "PAPERCHAT_CHROMA_URL", "PAPERCHAT_REDIS_URL",
    "PAPERCHAT_SECRET_KEY", "PAPERCHAT_PDF_STORE",
)  # fmt: skip
NODES = ("api", "worker")


@pytest.fixture(name="services")
def services_fixture() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services: dict[str, Any] = compose["services"]
    return services


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_every_node_shares_the_catalog_vectors_redis_secret_and_pdfs(
    services: dict[str, Any],
) -> None:
    environments = [services[name]["environment"] for name in NODES]

    shared = [{key: env[key] for key in SHARED} for env in environments]

    assert shared[0] == shared[1]
    assert shared[0]["PAPERCHAT_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@postgres:5432/" in shared[0]["PAPERCHAT_DATABASE_URL"]
    chroma_port = _option(services["chroma"]["command"], "--port")
    assert shared[0]["PAPERCHAT_CHROMA_URL"] == f"http://chroma:{chroma_port}"
    assert shared[0]["PAPERCHAT_REDIS_URL"].startswith("redis://redis:6379/")
    # No default secret: compose refuses to start without one.
    assert shared[0]["PAPERCHAT_SECRET_KEY"].startswith("${PAPERCHAT_SECRET_KEY:?")


def test_each_node_keeps_its_own_data_dir_and_shares_the_pdf_store(
    services: dict[str, Any],
) -> None:
    for name in NODES:
        service = services[name]
        data_dir = service["environment"]["PAPERCHAT_DATA_DIR"]
        store = service["environment"]["PAPERCHAT_PDF_STORE"]

        assert data_dir in service["volumes"]  # anonymous: one volume per container
        assert f"pdfs:{store}" in service["volumes"]
        assert service["deploy"]["replicas"] >= 2


def test_haproxy_balances_the_api_nodes_on_their_health_with_long_stream_timeouts(
    services: dict[str, Any],
) -> None:
    config = DEPLOYED.read_text(encoding="utf-8")
    api_port = _option(services["api"]["command"], "--port")

    mounted = services["haproxy"]["volumes"]
    timeouts = dict(re.findall(r"^\s*timeout (server|tunnel|client) (\d+)m", config, re.M))
    hours = dict(re.findall(r"^\s*timeout (tunnel) (\d+)h", config, re.M))

    assert f"./{DEPLOYED.relative_to(ROOT)}:/usr/local/etc/haproxy/haproxy.cfg:ro" in mounted
    assert re.search(rf"server-template api \S+ api:{api_port} check", config)
    assert re.search(r"^\s*balance leastconn$", config, re.M)
    assert re.search(r"^\s*option httpchk GET /api/health$", config, re.M)
    assert int(timeouts["server"]) >= 5
    assert int(timeouts["client"]) >= 5
    assert int(hours["tunnel"]) >= 1
    assert not re.search(r"^\s*(compression|option http-buffer-request)", config, re.M)


def test_haproxy_accepts_the_deployed_configuration() -> None:
    haproxy.haproxy_or_skip()

    checked = check_config(DEPLOYED)

    assert "Configuration file is valid" in checked


def _no_haproxy() -> str:
    raise BalancerError("haproxy is not installed (apt-get install haproxy)")


def test_without_haproxy_its_tests_skip_saying_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(haproxy, "haproxy_binary", _no_haproxy)
    monkeypatch.delenv("CI", raising=False)

    with pytest.raises(pytest.skip.Exception) as skipped:
        haproxy.haproxy_or_skip()

    assert "apt-get install haproxy" in str(skipped.value)
    assert ".ci/run" in str(skipped.value)


def test_on_ci_a_missing_haproxy_fails_its_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(haproxy, "haproxy_binary", _no_haproxy)
    monkeypatch.setenv("CI", "true")

    with pytest.raises(pytest.fail.Exception) as failed:
        haproxy.haproxy_or_skip()

    assert "CI=true" in str(failed.value)
    assert "apt-get install haproxy" in str(failed.value)


def test_the_image_is_built_from_the_package_alone_and_serves_by_default() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()

    copied = {Path(path).name for path in re.findall(r"^COPY (\S+)", dockerfile, re.M)}
    patterns = [line for line in ignored if line and not line.startswith("#")]
    sent = {line.strip("!/") for line in patterns if line.startswith("!")}

    assert {"chat", "ingest", "prompts", "pyproject.toml"} <= copied
    assert patterns[0] == "*"  # the data dir, .venv and caches stay out of the build
    assert copied <= sent
    assert re.search(r'^CMD \["paperchat", "serve", "--host", "0\.0\.0\.0"', dockerfile, re.M)
