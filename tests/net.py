"""Ports on 127.0.0.1 for the servers the tests start."""

from __future__ import annotations

import socket


def unused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (to serve on, or to be refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port
