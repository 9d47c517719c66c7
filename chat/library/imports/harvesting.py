"""An imported file's arXiv papers the library does not hold, fetched through the arXiv
harvester and ingested as `paperchat harvest` adds papers (their records and abstracts),
so that the collection the import makes can hold them.

A request arXiv does not answer costs the import nothing else: every id asked for is then
listed with why it is missing, and the entries the library held are imported all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ingest.chunking import CountTokens
from ingest.index.names.citations import papers_named
from ingest.pipeline import Pipeline
from ingest.report import IngestReport
from ingest.sources.arxiv_api import ArxivClient, Harvested, harvest
from ingest.sources.arxiv_feed import ArxivApiError
from ingest.sources.units import arxiv_items


@dataclass(frozen=True)
class Harvest:
    """What became of each arXiv id asked for: now in the library, or why not."""

    added: frozenset[str]
    failed: dict[str, str]


def harvest_ids(
    client: ArxivClient, ids: Sequence[str], pipeline: Pipeline, count_tokens: CountTokens
) -> Harvest:
    """Fetch the arXiv records of `ids` (without versions) and ingest them with `pipeline`."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return Harvest(frozenset(), {})
    try:
        fetched: list[Harvested] = list(harvest(client, ids=wanted))
    except ArxivApiError as e:
        return Harvest(frozenset(), dict.fromkeys(wanted, f"arXiv could not be asked: {e}"))
    report = pipeline.run(arxiv_items(fetched, pipeline.catalog, count_tokens), IngestReport())
    why = {h.paper.id: h.failure for h in fetched if h.failure is not None}
    why |= {s.source.removeprefix("arXiv:"): s.reason for s in report.skipped}
    added = {i for i in wanted if papers_named(pipeline.catalog.db, i, "", "")[0]}
    failed = {
        i: f"arXiv:{i} could not be harvested: {why.get(i, 'arXiv sent no record of it')}"
        for i in wanted
        if i not in added
    }
    return Harvest(frozenset(added), failed)
