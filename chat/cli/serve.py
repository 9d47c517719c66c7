"""`paperchat serve`: the HTTP API under uvicorn, with one or more worker processes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from chat.cli.main import CommandError, data_dir_option, names_a_full_disk, settings_for

if TYPE_CHECKING:
    from chat.settings import Settings
    from ingest.index.vectors.check import Finding


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Server processes. Default: one per core this process may run on when "
                   "PAPERCHAT_REDIS_URL shares the limits between them, else 1.")  # fmt: skip
@data_dir_option
@names_a_full_disk
def serve(host: str, port: int, workers: int | None, data_dir: Path | None) -> None:
    """Serve the HTTP API with uvicorn until interrupted.

    The database is migrated and the secret key made here, once, before any
    worker starts; each worker's app then finds both ready. An embedded vector
    store is run as a Chroma server of this process's own, which the workers and
    any command run beside the server share; a damaged store is refused here.
    """
    from chat.service.bootstrap import prepare_service
    from chat.service.logs import configure_logging

    configure_logging()
    settings = settings_for(data_dir)
    prepare_service(settings)
    with vector_store(settings) as settings:
        _run(settings, host, port, workers or default_workers(settings), data_dir)


def default_workers(settings: Settings) -> int:
    """One worker per core this process may run on when Redis shares the rate limits and
    the stream caps between them (the sessions, keys, conversations and the secret key are
    in the database and the data dir, shared already); else one, since each worker would
    count those limits on its own."""
    return usable_cores() if settings.redis_url else 1


def usable_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _run(settings: Settings, host: str, port: int, workers: int, data_dir: Path | None) -> None:
    import uvicorn

    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_config": None,
        # Each request's line is the app's own (chat/service/app.py, RequestContext): its
        # route, status, time, client and path, never the query string uvicorn's line logs.
        "access_log": False,
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
    os.environ["PAPERCHAT_CHROMA_URL"] = settings.chroma_url
    uvicorn.run("chat.service.app:create_app_from_env", factory=True, workers=workers, **options)


@contextmanager
def vector_store(settings: Settings) -> Iterator[Settings]:
    """The settings with the vector store's address: the configured Chroma server, or the
    one this process runs on the embedded store, checked before anything is served."""
    from chat.wiring import Wiring
    from ingest.embedders.rebuilding import rebuilding_marker
    from ingest.index.vectors.check import Finding, check, check_files
    from ingest.index.vectors.server import VectorServerFailed
    from ingest.index.vectors.store import open_chroma

    path = settings.chroma_path
    if not settings.chroma_url and rebuilding_marker(path).exists():
        raise CommandError(
            f"a rebuild of the vectors in {str(path)!r} was interrupted: run "
            "`paperchat index rebuild-vectors` again to finish it"
        )
    # The files first: a damaged graph can crash the server that opens it.
    files = [] if settings.chroma_url else check_files(path)
    if files:
        raise CommandError(_damaged(files))
    try:
        with _served(settings) as served:
            wiring = Wiring(served)
            try:
                report = check(open_chroma(path, served.chroma_url), wiring.catalog)
            finally:
                wiring.close()
            if report.damaged:
                raise CommandError(_damaged(report.findings))
            for finding in report.findings:
                click.echo(f"paperchat: warning: {finding.text}", err=True)
            yield served
    except VectorServerFailed as e:
        raise CommandError(_damaged([Finding("damaged", str(e))])) from e


@contextmanager
def _served(settings: Settings) -> Iterator[Settings]:
    from ingest.index.vectors.server import serving_directory

    if settings.chroma_url:
        yield settings
        return
    log = settings.data_dir / "logs" / "chroma.log"
    with serving_directory(settings.chroma_path, log) as server:
        try:
            yield settings.model_copy(update={"chroma_url": server.url})
        except CommandError as e:
            if not server.stopped():
                raise
            raise CommandError(f"{e} (its server stopped: {server.stopped()})") from e


def _damaged(findings: list[Finding]) -> str:
    found = "; ".join(f.text for f in findings)
    return (
        f"the vector index is damaged ({found}); nothing was served. `paperchat index check` "
        "says more, and `paperchat index rebuild-vectors` makes it again from the catalog, "
        "keeping every account, key and conversation"
    )
