"""`paperchat ingest` shows its progress on stderr: a bar at a terminal (here a pseudo-terminal),
a plain line every few seconds into a pipe or file, and `--json` keeps stdout one JSON object."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.data import ABSTRACTS, ROOT
from tests.support.running.cli import command, environment, run

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _with_terminal_stderr(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """Run `paperchat args` with stderr on a pseudo-terminal: (exit code, stdout, the terminal's
    text without its escape codes)."""
    main, side = pty.openpty()
    process = subprocess.Popen(
        command(*args), env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=side
    )
    os.close(side)
    shown = b""
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the terminal closed: the command has ended
            break
        if not data:
            break
        shown += data
    stdout = process.communicate(timeout=240)[0]
    os.close(main)
    return process.returncode, stdout.decode(), ANSI.sub("", shown.decode(errors="replace"))


@pytest.fixture
def env(tmp_path: Path, models_cache: Path) -> dict[str, str]:
    return environment(tmp_path / "data", models_cache, COLUMNS="120")


def test_a_terminal_gets_a_bar_with_counts_rate_and_time(env: dict[str, str]) -> None:
    code, stdout, terminal = _with_terminal_stderr(
        env, "ingest", "abstracts", str(ABSTRACTS), "--limit", "20"
    )

    assert code == 0, terminal
    assert re.search(r"abstracts .*20/20 .*items/s", terminal), terminal
    assert "read," not in terminal  # no plain lines beside the bar
    assert stdout.startswith("20 papers added")


def test_a_pipe_gets_plain_lines(env: dict[str, str]) -> None:
    result = run(env, "ingest", "abstracts", str(ABSTRACTS), "--limit", "20")

    assert result.code == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "abstracts: loading the embedding model"
    assert re.fullmatch(r"abstracts: 20/20 read, [0-9.]+/s, \d+s", lines[-1]), lines
    assert "\x1b[" not in result.stderr


def test_json_on_stdout_stays_one_object_beside_the_terminal(env: dict[str, str]) -> None:
    code, stdout, terminal = _with_terminal_stderr(
        env, "ingest", "abstracts", str(ABSTRACTS), "--limit", "20", "--json"
    )

    assert code == 0, terminal
    assert json.loads(stdout)["added_papers"] == 20
    assert "abstracts: 20/20 read" in terminal
