"""Run the real `paperchat` command line in a subprocess, as a user would, or in this process
(the `cli` fixture, with click's runner) where a test needs to reach inside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest

from chat.cli.main import main
from chat.settings import get_settings
from tests.support.data import ROOT


@dataclass(frozen=True)
class Result:
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        return json.loads(self.stdout)


def environment(data_dir: Path, models: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no real OpenAI settings leak into a test."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERCHAT_", "OPENAI_"))}
    env.update(
        PAPERCHAT_DATA_DIR=str(data_dir),
        PAPERCHAT_MODELS_CACHE=str(models),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    env.update(extra)
    return env


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "chat.cli", *args]


def run(
    env: dict[str, str], *args: str, timeout: float = 600, input_text: str | None = None
) -> Result:
    done = subprocess.run(
        command(*args), env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
        input=input_text,
    )  # fmt: skip
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture(name="cli")
def cli_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[click.Group]:
    """The `paperchat` command for click's runner, on settings from a clean environment
    (the default data dir in `tmp_path`)."""
    for name in list(os.environ):
        if name.startswith(("PAPERCHAT_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PAPERCHAT_DATA_DIR", str(tmp_path / "default"))
    get_settings.cache_clear()
    yield main
    get_settings.cache_clear()
