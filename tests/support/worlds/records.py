"""A library of records alone (no passages, nothing embedded) served by the app in-process:
for the pages made of records and what they cost, quick to build."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from fastapi.testclient import TestClient
from pydantic import SecretStr

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.service.web.shared_pages import SharedPages
from chat.settings import Settings
from ingest.index.catalog import Catalog
from ingest.index.records import Paper


def add_records(catalog: Catalog, papers: Iterable[Paper]) -> None:
    """The papers' records in the catalog, as an abstracts ingest writes them, less passages."""
    with catalog.transaction():
        for paper in papers:
            catalog.replace_unit(paper, "metadata", "abstract", f"digest {paper.id}", [])


@contextmanager
def records_site(root: Path, papers: Iterable[Paper]) -> Iterator[TestClient]:
    """The app over a library of `papers`' records in `root`, and a client of it."""
    settings = Settings(
        data_dir=root / "data",
        database_url=f"sqlite:///{root / 'service.sqlite'}",
        secret_key=SecretStr(secrets.token_urlsafe(32)),
        llm="extractive",
    )
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    catalog = Catalog(settings.catalog_path)
    try:
        add_records(catalog, papers)
    finally:
        catalog.close()
    prepare_service(settings)
    # Without the app's lifespan: nothing it starts (the embedder's warm-up, the background
    # readers) is needed to read records.
    app = create_app(settings)
    try:
        yield TestClient(app)
    finally:
        app.state.services.index.close()


@contextmanager
def records_site_read_afresh(root: Path, papers: Iterable[Paper]) -> Iterator[TestClient]:
    """`records_site` whose kept pages read the catalog's generation on every request: a
    test of what they keep needs no wait for a change to show."""
    with records_site(root, papers) as client:
        state = client.app.state  # type: ignore[attr-defined]  # an ASGI app, typed as such
        state.shared_pages = SharedPages(state.services.index.catalog.generation, ttl_s=0)
        yield client
