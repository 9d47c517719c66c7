"""A wheel built as a release is built carries everything paperchat reads at run time, and
installed into a fresh virtual environment it answers from any working directory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from chat.service.web.assets import STATIC_DIR
from chat.service.web.rendering import TEMPLATES_DIR
from prompts import DIRECTORY as PROMPTS
from tests.support.data import ROOT
from tests.support.running.cli import environment

pytestmark = pytest.mark.timeout(300)

QUESTION = "How does Fusion-in-Decoder combine the retrieved passages?"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build --wheel` of a copy of the checkout (the checkout stays clean)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("chat", "ingest", "prompts"):
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    # No isolation: the build backend comes from this environment, not from a registry.
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o", str(root / "dist")],
        cwd=source,
        check=True,
        capture_output=True,
    )
    (built,) = (root / "dist").glob("paperchat-*.whl")
    return built


def _package_files(folder: Path, package: str, pattern: str = "*") -> set[str]:
    return {f"{package}/{path.relative_to(folder)}" for path in folder.rglob(pattern)}


def test_wheel_ships_prompts_pages_static_files_and_migrations(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())

    assert _package_files(PROMPTS, "prompts", "*.txt") <= names
    assert "prompts/answer.txt" in names
    assert _package_files(STATIC_DIR, "chat/service/web/static") <= names
    assert _package_files(TEMPLATES_DIR, "chat/service/web/templates") <= names
    assert "chat/service/storage/migrations/versions/0001_initial.py" in names
    assert "chat/service/storage/migrations/script.py.mako" in names


def test_installed_wheel_answers_from_another_working_directory(
    wheel: Path, small_index_dir: Path, models_cache: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    # The dependencies come from this environment's site-packages (appended to the new
    # one's path; its editable paperchat is not, since .pth files there are not read).
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = environment(small_index_dir, models_cache)

    where = subprocess.run(
        [str(python), "-c", "import chat, prompts; print(chat.__file__); print(prompts.__file__)"],
        cwd=elsewhere, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    asked = subprocess.run(
        [str(venv / "bin" / "paperchat"), "ask", QUESTION, "--json"],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip

    assert all(line.startswith(str(site)) for line in where.stdout.split()), where.stdout
    assert asked.returncode == 0, asked.stderr
    payload = json.loads(asked.stdout)
    assert payload["mode"] == "extractive"
    assert "2007.01282" in payload["citations"]
    assert payload["prompt_version"].startswith("system/")
