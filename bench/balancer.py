"""haproxy with the deployed configuration (deploy/haproxy.cfg) in front of API nodes here.

The configuration is the one compose.yaml mounts, with only what ties it to
Docker changed: the frontend listens on 127.0.0.1, the nodes are named by
address instead of found through Docker's DNS, and a stats socket tells how
many connections each node has had.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.running.processes import stop_process

ROOT = Path(__file__).resolve().parents[1]
DEPLOYED = ROOT / "deploy" / "haproxy.cfg"
BACKEND = "api"
STARTUP_TIMEOUT_S = 180.0


class BalancerError(RuntimeError):
    """haproxy is missing, refused its configuration or did not start."""


def local_config(nodes: Sequence[str], port: int, stats: Path, deployed: str) -> str:
    """`deployed` for `nodes` ("127.0.0.1:8001") on this machine, its frontend on `port`."""
    lines: list[str] = []
    section = ""
    for line in deployed.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            section = line.split()[0]
            if section == "resolvers":
                continue
        if section == "resolvers":
            continue
        stripped = line.strip()
        if stripped.startswith("bind "):
            line = f"    bind 127.0.0.1:{port}"
        elif stripped.startswith("server-template "):
            servers = [f"    server node{n} {address} check" for n, address in enumerate(nodes, 1)]
            line = "\n".join(servers)
        lines.append(line)
        if line == "global":
            lines.append(f"    stats socket {stats} mode 600 level admin")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Balancer:
    url: str
    stats: Path
    pid: int

    def node_stats(self) -> dict[str, dict[str, str]]:
        """Each node's row of haproxy's `show stat` (status, scur, stot, ...), by its name."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(self.stats))
            connection.sendall(b"show stat\n")
            received = b""
            while chunk := connection.recv(65536):
                received += chunk
        header, *rows = received.decode().strip().splitlines()
        names = header.lstrip("# ").split(",")
        found = {}
        for row in rows:
            values = dict(zip(names, row.split(","), strict=False))
            if values["pxname"] == BACKEND and values["svname"].startswith("node"):
                found[values["svname"]] = values
        return found

    def sessions(self) -> dict[str, int]:
        """Connections each node was handed so far."""
        return {name: int(row["stot"]) for name, row in self.node_stats().items()}


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or next(
        (p for p in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy") if Path(p).exists()), None
    )
    if found is None:
        raise BalancerError("haproxy is not installed (apt-get install haproxy)")
    return found


def check_config(path: Path) -> str:
    """haproxy's own check of the configuration at `path` (`haproxy -c`): its output."""
    done = subprocess.run(
        [haproxy_binary(), "-c", "-f", str(path)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BalancerError(f"haproxy refused {str(path)!r}: {done.stdout}{done.stderr}")
    return done.stdout + done.stderr


@contextmanager
def balancer(nodes: Sequence[str], port: int, log: Path | None = None) -> Iterator[Balancer]:
    """haproxy in front of `nodes` on 127.0.0.1:`port` until the block ends, once every
    node passed its health check."""
    with tempfile.TemporaryDirectory(prefix="balancer-") as scratch:
        folder = Path(scratch)
        stats = folder / "stats.sock"
        config = folder / "haproxy.cfg"
        config.write_text(local_config(nodes, port, stats, DEPLOYED.read_text()))
        check_config(config)
        with (log or folder / "haproxy.log").open("ab") as output:
            child = subprocess.Popen(
                [haproxy_binary(), "-db", "-f", str(config)],
                stdout=output,
                stderr=subprocess.STDOUT,
            )
            try:
                running = Balancer(f"http://127.0.0.1:{port}", stats, child.pid)
                _wait_until_up(running, child, len(nodes))
                yield running
            finally:
                stop_process(child, timeout=10)


def _wait_until_up(running: Balancer, child: subprocess.Popen[bytes], nodes: int) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise BalancerError(f"haproxy exited with {child.returncode}")
        try:
            rows = running.node_stats()
        except OSError:
            rows = {}
        if len(rows) == nodes and all(r["status"] == "UP" for r in rows.values()):
            return
        time.sleep(0.2)
    raise BalancerError(f"haproxy's nodes were not all up within {STARTUP_TIMEOUT_S:g} s")
