"""scripts/install: pip runs on the first install, then again only when pyproject.toml or the
torch pin changes or the installed packages stop importing.

The script runs for real, in a copy of the checkout whose `.venv` has a python that records
what it is asked to do (no package is installed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.data import ROOT

pytestmark = pytest.mark.timeout(60)

# Records its arguments; the import check (`python -I -c ...`) fails when IMPORTS_FAIL=1.
RECORDING_PYTHON = """#!/usr/bin/env bash
printf '%s\\n' "$*" >>"$PYTHON_CALLS"
if [ "$1" = -I ]; then exit "${IMPORTS_FAIL:-0}"; fi
"""
ACTIVATE = 'PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd):$PATH"\n'
PIP_STEPS = 3  # pip itself, torch, paperchat with its development tools


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "install", tmp_path / "scripts" / "install")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(RECORDING_PYTHON, encoding="utf-8")
    (bin_dir / "python").chmod(0o755)
    (bin_dir / "activate").write_text(ACTIVATE, encoding="utf-8")
    return tmp_path


def _pip_steps(checkout: Path, *, imports_fail: bool = False) -> list[str]:
    """Run the checkout's scripts/install; the pip commands it ran."""
    calls = checkout / "python-calls.log"
    calls.unlink(missing_ok=True)
    env = {**os.environ, "PYTHON_CALLS": str(calls), "IMPORTS_FAIL": str(int(imports_fail))}
    done = subprocess.run(
        [checkout / "scripts" / "install"], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    asked = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return [line for line in asked if line.startswith("-m pip install")]


def test_a_second_install_from_the_same_pyproject_runs_no_pip(checkout: Path) -> None:
    first = _pip_steps(checkout)

    second = _pip_steps(checkout)

    assert len(first) == PIP_STEPS
    assert any("torch==" in step for step in first)
    assert second == []


def test_a_changed_pyproject_installs_again(checkout: Path) -> None:
    _pip_steps(checkout)
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n# changed\n", "utf-8")

    again = _pip_steps(checkout)

    assert len(again) == PIP_STEPS


def test_a_venv_whose_packages_no_longer_import_installs_again(checkout: Path) -> None:
    _pip_steps(checkout)

    again = _pip_steps(checkout, imports_fail=True)
    after = _pip_steps(checkout)

    assert len(again) == PIP_STEPS
    assert after == []


def _without_npm(tmp_path: Path) -> str:
    """A PATH holding only the tools the script uses, npm not among them."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("bash", "cat", "cut", "dirname", "rm", "sha256sum"):
        found = shutil.which(tool)
        assert found is not None, tool
        (tools / tool).symlink_to(found)
    return str(tools)


def test_without_npm_the_install_says_so_and_goes_on(checkout: Path, tmp_path: Path) -> None:
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(ROOT / name, checkout / name)
    calls = checkout / "python-calls.log"
    env = {"PATH": _without_npm(tmp_path), "PYTHON_CALLS": str(calls), "IMPORTS_FAIL": "0"}

    done = subprocess.run(
        [checkout / "scripts" / "install"], env=env, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    assert "npm is missing" in done.stderr
    pip = [line for line in calls.read_text(encoding="utf-8").splitlines() if "pip install" in line]
    assert len(pip) == PIP_STEPS
    assert not (checkout / "node_modules").exists()
