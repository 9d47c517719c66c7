"""`paperchat serve`: the HTTP API under uvicorn, with one or more worker processes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from chat.cli.main import data_dir_option, names_a_full_disk, settings_for


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Server processes.")  # fmt: skip
@data_dir_option
@names_a_full_disk
def serve(host: str, port: int, workers: int, data_dir: Path | None) -> None:
    """Serve the HTTP API with uvicorn until interrupted.

    The database is migrated and the secret key made here, once, before any
    worker starts; each worker's app then finds both ready.
    """
    import uvicorn

    from chat.service.bootstrap import prepare_service
    from chat.service.logs import configure_logging

    configure_logging()
    settings = settings_for(data_dir)
    prepare_service(settings)
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": None,
        "timeout_graceful_shutdown": 10,
        # The app reads X-Forwarded-* itself, from PAPERCHAT_TRUSTED_PROXIES only
        # (chat/service/access/proxies.py); uvicorn's default believes any client on 127.0.0.1.
        "proxy_headers": False,
        # A deadline on reading each request (PAPERCHAT_REQUEST_TIMEOUT_S), against slow clients.
        "http": "chat.service.protocol:RequestDeadlineProtocol",
    }
    if workers == 1:
        from chat.service.app import create_app

        uvicorn.run(create_app(settings), **options)
        return
    if data_dir is not None:
        # Each worker process reads its settings from the environment.
        os.environ["PAPERCHAT_DATA_DIR"] = str(data_dir)
    uvicorn.run("chat.service.app:create_app_from_env", factory=True, workers=workers, **options)
