"""`paperchat index prune-changes`: the catalog's change log cut to its latest rows."""

from __future__ import annotations

import click
from click.testing import CliRunner

from chat.settings import get_settings
from ingest.index.catalog import Catalog
from ingest.index.records import Chunk, Paper
from tests.support.running.cli import cli_fixture  # noqa: F401 - a pytest fixture, used by name


def _written(catalog: Catalog, paper_id: str) -> None:
    paper = Paper(id=paper_id, title=f"Paper {paper_id}", authors="Ada Lovelace")
    chunk = Chunk(f"{paper_id}#abstract-0@1", paper_id, "abstract", 0, "words", "", 0, 0, paper)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [chunk])


def test_pruning_the_change_log_keeps_the_latest_rows_and_says_which(cli: click.Group) -> None:
    catalog = Catalog(get_settings().catalog_path)
    for n in range(3):
        _written(catalog, f"2401.0000{n}")  # each: its arrival and its abstract
    catalog.close()

    result = CliRunner().invoke(cli, ["index", "prune-changes", "--keep", "2"])
    refused = CliRunner().invoke(cli, ["index", "prune-changes", "--keep", "0"])

    assert result.exit_code == 0, result.output
    assert result.output == "pruned 4 changes (from 1); the log keeps changes 5 to 6\n"
    assert refused.exit_code == 2
    assert "0 is not in the range x>=1" in refused.output
    catalog = Catalog(get_settings().catalog_path)
    assert [c.seq for c in catalog.changes_after(0, 10)] == [5, 6]
    catalog.close()
