"""A tiny real disk for tests of a full one: a tmpfs, which only root can mount."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def tiny_disk(folder: Path, size: str = "3m") -> Iterator[Path]:
    """`folder` as a tmpfs of `size` (the test is skipped when it cannot be mounted)."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)]
    if os.geteuid() != 0 or subprocess.run(mount, capture_output=True, check=False).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Write a file in `folder` until its disk is full; delete the file to make room."""
    filler = folder / "filler"
    with filler.open("wb") as out:
        try:
            for _ in range(1024):  # 1 GB at most
                out.write(b"\0" * (1 << 20))
                out.flush()
        except OSError:
            pass
    return filler
