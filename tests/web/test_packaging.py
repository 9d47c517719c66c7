"""A wheel of the project carries the dock's static files and templates, not only the
editable install of a checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from chat.service.web.assets import STATIC_DIR
from chat.service.web.rendering import TEMPLATES_DIR
from tests.data import ROOT

pytestmark = pytest.mark.timeout(180)


def test_wheel_ships_static_files_and_templates(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("chat", "ingest"):
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    wanted = {
        f"chat/web/{folder.name}/{path.name}"
        for folder in (STATIC_DIR, TEMPLATES_DIR)
        for path in folder.iterdir()
    }

    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"),
            *("-w", str(tmp_path / "dist"), str(source)),
        ],
        check=True,
        capture_output=True,
    )

    (wheel,) = (tmp_path / "dist").glob("paperchat-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "chat/web/static/dock.js" in wanted
    assert wanted <= names
