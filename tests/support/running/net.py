"""Free ports on 127.0.0.1, and ASGI apps served there on a uvicorn thread, for the tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import uvicorn
from starlette.types import ASGIApp


def unused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (to serve on, or to be refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def serving(
    app: ASGIApp, port: int, *, lifespan: Literal["auto", "on", "off"] = "on"
) -> Iterator[str]:
    """`app` served at the yielded base URL until the block ends."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan=lifespan,
        proxy_headers=False,  # as `paperchat serve` runs it: the app judges X-Forwarded-For
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
