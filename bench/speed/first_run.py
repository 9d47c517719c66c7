"""The first start: from `./scripts/start` on a fresh clone and data dir to the first answer.

Clones this repository's HEAD into a scratch folder (`git clone`, local), gives
the clone this checkout's `.venv` (the install step is not timed: it depends on
the network and the package caches), and runs its `scripts/start` with a fresh
data dir, the shared corpus and a free port. The script announces each step
(`start: ...`) on stderr; each step's seconds run from its announcement to the
next. The server is up when `/api/health` answers; then one question is asked
over HTTP with the API key the script printed, and the clock stops at its `done`
event. The PDFs, read in the background meanwhile, are waited for too.

    python -m bench.speed.first_run [--limit 2000] [--question "..."]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench import results
from tests.support.running.net import unused_port

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
GOAL_S = 180.0
TIMEOUT_S = 1200.0
STEP = re.compile(r"^start: ([^:]+)")  # the step's name, without the path or URL after it
KEY = re.compile(r"^API key: (\S+)$")
REPORT = re.compile(r"^\d+ papers added, ")  # an ingest's report, at its end


@dataclass
class Watched:
    """The start script's output lines, each with the seconds since it started."""

    started: float = field(default_factory=time.monotonic)
    steps: list[tuple[str, float]] = field(default_factory=list)
    key: str | None = None
    reports: list[float] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def read(self, stream: object) -> None:
        for raw in stream:  # type: ignore[attr-defined] # a binary pipe
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            if step := STEP.match(line):
                self.steps.append((step.group(1), time.monotonic() - self.started))
            elif key := KEY.match(line):
                self.key = key.group(1)
            elif REPORT.match(line):
                self.reports.append(time.monotonic() - self.started)

    def since_start(self) -> float:
        return time.monotonic() - self.started


def _clone(scratch: Path) -> Path:
    clone = scratch / "paperchat"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    return clone


def _environment(clone: Path, data_dir: Path, port: int, limit: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERCHAT_", "OPENAI_"))}
    return env | {
        "PAPERCHAT_START_INSTALL": "0",
        "PYTHONPATH": str(clone),  # the clone's code, not the checkout's editable install
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_PORT": str(port),
        "PAPERCHAT_CORPUS_ABSTRACTS": str(SHARED / "arxiv" / "abstracts.jsonl.gz"),
        "PAPERCHAT_CORPUS_PDFS": str(SHARED / "pdfs"),
        "PAPERCHAT_CORPUS_LIMIT": str(limit),
    }


def _until(check: Callable[[], bool], watched: Watched, start: subprocess.Popen[bytes]) -> float:
    """Seconds since the start when `check()` first holds; exits if the script ends first."""
    while watched.since_start() < TIMEOUT_S:
        if start.poll() is not None:
            raise SystemExit("scripts/start ended:\n" + "\n".join(watched.lines[-30:]))
        try:
            if check():
                return watched.since_start()
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise SystemExit(f"no answer within {TIMEOUT_S:g} s")


def _answered(url: str, key: str, question: str) -> bool:
    with httpx.stream(
        "POST", f"{url}/api/chat", json={"message": question},
        headers={"Authorization": f"Bearer {key}"}, timeout=120,
    ) as response:  # fmt: skip
        return "event: done" in list(response.iter_lines())


def measure(limit: int, question: str, log: Path | None = None) -> dict[str, float]:
    """Each step's seconds, and the seconds to the first answer and to the PDFs read; the
    script's output goes to `log` when given."""
    with tempfile.TemporaryDirectory(prefix="bench-first-run-") as folder:
        scratch = Path(folder)
        clone = _clone(scratch)
        port = unused_port()
        url = f"http://127.0.0.1:{port}"
        env = _environment(clone, scratch / "data", port, limit)
        watched = Watched()
        start = subprocess.Popen(
            [str(clone / "scripts" / "start")], cwd=clone, env=env, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        threading.Thread(target=watched.read, args=(start.stdout,), daemon=True).start()
        try:
            up = _until(
                lambda: httpx.get(f"{url}/api/health", timeout=5).is_success, watched, start
            )
            key = watched.key or ""
            answered = _until(lambda: _answered(url, key, question), watched, start)
            # The abstracts' report, then the PDFs'.
            _until(lambda: len(watched.reports) >= 2, watched, start)
            read = watched.reports[1]
        finally:
            os.killpg(start.pid, signal.SIGTERM)
            start.wait(timeout=60)
            if log is not None:
                log.write_text("\n".join(watched.lines) + "\n", encoding="utf-8")
    # The steps up to the server's answering; the PDFs' reading starts once it answers.
    moments = [*((name, at) for name, at in watched.steps if at <= up), ("up", up)]
    seconds = {name: later - at for (name, at), (_, later) in itertools.pairwise(moments)}
    return seconds | {"server up to answer": answered - up, "first answer": answered,
                      "PDFs read": read}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--limit", type=int, default=2000, help="abstracts, as the script's default"
    )
    parser.add_argument(
        "--question",
        default="How does RETRO use its retrieval database?",
        help="the first question",
    )
    parser.add_argument("--log", type=Path, default=None, help="where to keep the script's output")
    args = parser.parse_args()
    # Stopped, it still stops the script it started (the `finally` in `measure`).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    seconds = measure(args.limit, args.question, args.log)
    rows: list[list[results.Cell]] = [[name, value] for name, value in seconds.items()]
    table = results.table(
        f"./scripts/start on a fresh clone, {args.limit:,} abstracts, to the first answer "
        f"(goal: within {GOAL_S:g} s)",
        ["step", "seconds"],
        rows,
        {"seconds": ".1f"},
    )
    width = max(len(name) for name in seconds)
    print(f"| {'step':<{width}} | seconds |")
    print(f"|{'-' * (width + 2)}|---------|")
    for name, value in seconds.items():
        print(f"| {name:<{width}} | {value:7.1f} |")
    results.record(
        "first_run",
        [table],
        about=__doc__,
        settings=vars(args),
        setup=f"{args.limit:,} abstracts and the shared PDFs",
    )


if __name__ == "__main__":
    main()
