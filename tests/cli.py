"""Run the real `paperchat` command line in a subprocess, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.data import ROOT


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


def run(env: dict[str, str], *args: str, timeout: float = 600) -> Result:
    done = subprocess.run(
        command(*args), env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    return Result(done.returncode, done.stdout, done.stderr)
