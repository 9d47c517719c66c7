"""Whether a socket has something to read, for any descriptor number.

`select.select` refuses descriptors past 1024, which a long test session's process
reaches; `poll` has no such limit.
"""

from __future__ import annotations

import select
import socket


def readable(connection: socket.socket) -> bool:
    """Whether `connection` has data waiting or its peer has closed it (now, no waiting)."""
    poller = select.poll()
    poller.register(connection, select.POLLIN)
    return bool(poller.poll(0))


__all__ = ["readable"]
