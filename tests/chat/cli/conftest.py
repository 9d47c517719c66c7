"""What the `paperchat ingest` tests share: an environment with a data dir of the test's own,
and real PDFs copied into a folder to ingest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.data import PDFS
from tests.support.running.cli import environment

SMALL = ["2304.02623v1.pdf", "1503.02531v1.pdf"]


def copy_pdfs(names: list[str], folder: Path) -> Path:
    """The shared PDFs `names` copied into `folder` (made if missing): `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(PDFS / name, folder / name)
    return folder


@pytest.fixture
def env(tmp_path: Path, models_cache: Path) -> dict[str, str]:
    """`paperchat`'s environment with a data dir in `tmp_path`."""
    return environment(tmp_path / "data", models_cache)
