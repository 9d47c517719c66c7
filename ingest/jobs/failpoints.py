"""Crash points for tests: `PAPERCHAT_FAILPOINT=after-chroma-upsert` kills the process where
the writer reaches that point; `after-chroma-upsert:pause` stops it there (SIGSTOP, the first
time only), as a machine that hangs would, until something sends it SIGCONT."""

from __future__ import annotations

import os
import signal

FAILPOINT_ENV = "PAPERCHAT_FAILPOINT"
_paused: set[str] = set()


def failpoint(name: str) -> None:
    """Kill or stop this process here when `PAPERCHAT_FAILPOINT` names `name`."""
    wanted = os.environ.get(FAILPOINT_ENV, "")
    if wanted == name:
        os.kill(os.getpid(), signal.SIGKILL)
    elif wanted == f"{name}:pause" and name not in _paused:
        _paused.add(name)
        os.kill(os.getpid(), signal.SIGSTOP)
