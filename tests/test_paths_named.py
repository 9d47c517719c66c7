"""The code's comments and docstrings name only files and folders that exist.

A module that moves leaves comments behind that point at its old place
(`chat/feedback.py` once outlived its file); this finds them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.data import ROOT
from tests.support.docs import missing_paths as missing_paths_in

SUFFIXES = (".py", ".toml", ".js", ".css", ".html", ".txt")


def missing_paths(root: Path, files: list[str]) -> dict[str, list[str]]:
    """{path named but absent: [file:line, ...]} over `files` (relative to `root`)."""
    missing: dict[str, list[str]] = {}
    for name in files:
        lines = (root / name).read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            for path in missing_paths_in(line, root):
                missing.setdefault(path, []).append(f"{name}:{number}")
    return missing


def _tracked(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    this = Path(__file__).relative_to(root).as_posix()  # its example names a missing file
    return [
        f
        for f in listed
        if (f.endswith(SUFFIXES) or f.startswith(("scripts/", ".ci/")))
        and (root / f).exists()
        and f != this
    ]


def test_every_path_the_code_names_exists() -> None:
    files = _tracked(ROOT)

    missing = missing_paths(ROOT, files)

    assert len(files) > 200
    assert missing == {}


def test_a_comment_naming_a_moved_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "chat" / "rag").mkdir(parents=True)
    (tmp_path / "chat" / "rag" / "fusion.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "chat" / "rag" / "retriever.py").write_text(
        "# The fusion weights (chat/rag/fusion.py) and the feedback (`chat/feedback.py`).\n"
        '"""Results land in bench/results/, made by `tests/*.py`."""\n',
        encoding="utf-8",
    )

    missing = missing_paths(tmp_path, ["chat/rag/fusion.py", "chat/rag/retriever.py"])

    assert missing == {"chat/feedback.py": ["chat/rag/retriever.py:1"]}
