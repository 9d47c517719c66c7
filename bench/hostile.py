"""What a client hammering one public route costs the other readers of the site.

For each route, `ABUSERS` clients ask for it again and again, each as soon as its last
answer came, for `seconds`; meanwhile a reader reads ordinary paper pages, one every
`READ_GAP_S`, each a page not read before (none is kept for it). The row's ratio is the
reader's median time under that load over its median time just before it, with the
server quiet: at most 2 is the goal for every public route. Each route is asked once
before its quiet figures are taken, so what the site keeps for every visitor alike (the
sitemap, the Latest feed) is made, as a crawler finds it.

The routes are those a hostile test found costly: the Latest feed, a paper of thousands
of authors as HTML and as Markdown, a search of 1,000 characters with every filter on
its page 200, the sitemap, a sitemap file past the end, and the page of a researcher
whose co-authors include those thousands; and a PDF page's annotations (its citation
marks and defined terms), which anyone may ask for. The index needs a paper of at least
`CROWD_AUTHORS` authors: `crowd_record` writes one (`paperchat ingest abstracts` it into
the index).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx

from chat.library.researchers import researcher_path
from chat.settings import Settings
from ingest.index.catalog import Catalog

ABUSERS = 4
READ_GAP_S = 0.1
CROWD_AUTHORS = 1_000
SEARCH_CHARS = 1_000


@dataclass(frozen=True)
class Route:
    name: str
    path: str


@dataclass(frozen=True)
class Target:
    """What the routes need from the index: a plain paper, the paper of most authors and
    the page of its first author."""

    plain_papers: tuple[str, ...]  # the reader reads each once: none is kept before
    crowd_paper: str
    crowd_authors: int
    researcher: str
    pdf_paper: str  # a paper whose PDF the reader shows: its page annotations


def target(catalog: Catalog) -> Target:
    """The index's paper of most authors (at least `CROWD_AUTHORS`; SystemExit naming the
    fix otherwise), a plain paper and the crowd's first author's page."""
    row = catalog.db.execute(
        "SELECT paper_id, COUNT(*) AS n FROM paper_authors GROUP BY paper_id ORDER BY n DESC"
        " LIMIT 1"
    ).fetchone()
    if row is None or row[1] < CROWD_AUTHORS:
        raise SystemExit(
            f"the index has no paper of {CROWD_AUTHORS} authors or more: write one with"
            " `python -m bench.hostile crowd.jsonl --data-dir ...` and ingest it with"
            " `paperchat ingest abstracts crowd.jsonl --data-dir ...`"
        )
    crowd, authors = str(row[0]), int(row[1])
    plain = catalog.db.execute(
        "SELECT paper_id FROM paper_authors GROUP BY paper_id HAVING COUNT(*) = 3"
        " ORDER BY paper_id LIMIT 5000"
    ).fetchall()
    first = catalog.bylines([crowd])[crowd][0][0]
    person = catalog.person(first)
    if person is None or not person.names:
        raise SystemExit(f"the first author of {crowd}, {first!r}, names nobody")
    pdf = catalog.db.execute(
        "SELECT id FROM papers WHERE fulltext_hash IS NOT NULL ORDER BY id LIMIT 1"
    ).fetchone()
    if pdf is None:
        raise SystemExit("the index holds no paper's PDF: ingest one with `paperchat ingest pdfs`")
    return Target(
        tuple(str(r[0]) for r in plain), crowd, authors, researcher_path(person), str(pdf[0])
    )


def routes(found: Target) -> list[Route]:
    query = " ".join(["retrieval augmented generation with long contexts"] * 30)[:SEARCH_CHARS]
    search = urlencode(
        {"q": query, "category": "cs.CL", "from": "2000-01-01", "to": "2030-12-31",
         "author": "Wei Wang", "sort": "newest", "page": 200}
    )  # fmt: skip
    crowd = f"paper of {found.crowd_authors:,} authors"
    return [
        Route("/feeds/latest.atom", "/feeds/latest.atom"),
        Route(f"{crowd}, Markdown", f"/papers/{found.crowd_paper}.md"),
        Route(f"{crowd}, HTML", f"/papers/{found.crowd_paper}"),
        Route(f"search of {SEARCH_CHARS:,} characters, every filter, page 200", f"/?{search}"),
        Route("/sitemap.xml", "/sitemap.xml"),
        Route("sitemap file past the end", "/sitemaps/researchers-999.xml"),
        Route("researcher with that paper's authors as co-authors", found.researcher),
        Route("a PDF page's citations and terms", f"/papers/{found.pdf_paper}/pages/2/annotations"),
    ]  # fmt: skip


@dataclass
class Measured:
    route: Route
    quiet_ms: float
    attacked_ms: float
    route_ms: float  # the abusive requests' median
    answers: Counter[int]
    reader_errors: int

    @property
    def ratio(self) -> float:
        return self.attacked_ms / self.quiet_ms


async def _read(
    client: httpx.AsyncClient, paths: Iterator[str], until: float
) -> tuple[list[float], int]:
    """The reader: the next of `paths` every `READ_GAP_S` until `until`; times (ms) and
    failed reads."""
    times, errors = [], 0
    while time.monotonic() < until:
        started = time.perf_counter()
        response = await client.get(next(paths), follow_redirects=True)
        if response.status_code == 200:
            times.append((time.perf_counter() - started) * 1000)
        else:
            errors += 1
        await asyncio.sleep(READ_GAP_S)
    return times, errors


async def _abuse(
    client: httpx.AsyncClient, path: str, until: float, times: list[float], codes: Counter[int]
) -> None:
    while time.monotonic() < until:
        started = time.perf_counter()
        try:
            response = await client.get(path, follow_redirects=True)
            codes[response.status_code] += 1
        except httpx.HTTPError:
            codes[0] += 1
        times.append((time.perf_counter() - started) * 1000)


async def measure(
    api_url: str, route: Route, reader_paths: Iterator[str], seconds: float
) -> Measured:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with (
        httpx.AsyncClient(base_url=api_url, timeout=300.0) as reader,
        httpx.AsyncClient(base_url=api_url, timeout=300.0, limits=limits) as abusers,
    ):
        await abusers.get(route.path, follow_redirects=True)  # what is kept for all, made
        quiet, _ = await _read(reader, reader_paths, time.monotonic() + seconds / 2)
        until = time.monotonic() + seconds
        route_times: list[float] = []
        codes: Counter[int] = Counter()
        hammering = [
            asyncio.create_task(_abuse(abusers, route.path, until, route_times, codes))
            for _ in range(ABUSERS)
        ]
        await asyncio.sleep(0.5)
        attacked, errors = await _read(reader, reader_paths, until)
        await asyncio.gather(*hammering)
    return Measured(
        route, statistics.median(quiet), statistics.median(attacked),
        statistics.median(route_times), codes, errors,
    )  # fmt: skip


def measure_all(api_url: str, found: Target, seconds: float) -> list[Measured]:
    reader_paths = (f"/papers/{paper_id}" for paper_id in found.plain_papers)
    return [asyncio.run(measure(api_url, r, reader_paths, seconds)) for r in routes(found)]


def crowd_record(path: Path, catalog: Catalog, authors: int = 9_500) -> None:
    """A record of `authors` real names from the index (its first a name many papers
    list), as a detector collaboration's paper lists its members, newest of the library."""
    rows = catalog.db.execute(
        "SELECT written, COUNT(*) FROM paper_authors GROUP BY written ORDER BY COUNT(*) DESC,"
        " written LIMIT ?",
        (authors,),
    )
    names = [str(r[0]) for r in rows if "," not in r[0] and " and " not in r[0]]
    record = {
        "id": "2999.00001",
        "title": "A detector collaboration's measurement, signed by all its members",
        "abstract": "We report a measurement made by a large collaboration; every member"
        " signs the paper, as detector collaborations do.",
        "authors": ", ".join(names),
        "categories": "hep-ex cs.CL",
        "versions": [{"version": "v1", "created": "Tue, 1 Dec 2026 10:00:00 GMT"}],
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")


def notes(measured: Measured) -> str:
    codes = ", ".join(f"{code or 'failed'}: {n}" for code, n in sorted(measured.answers.items()))
    return f"{ABUSERS} clients, route median {measured.route_ms:.0f} ms; answers {codes}"


def server_errors(measured: Measured) -> int:
    """The route's 5xx answers (a 503 asks to retry: not one) and the reader's failed reads."""
    failed = sum(n for code, n in measured.answers.items() if code >= 500 and code != 503)
    return failed + measured.answers[0] + measured.reader_errors


def shown(measured: Sequence[Measured]) -> list[tuple[str, float, float, float]]:
    return [(m.route.name, m.quiet_ms, m.attacked_ms, m.ratio) for m in measured]


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a record of thousands of authors.")
    parser.add_argument("out", type=Path, help="The .jsonl file to write.")
    parser.add_argument("--data-dir", type=Path, required=True, help="The index to name from.")
    parser.add_argument("--authors", type=int, default=9_500)
    args = parser.parse_args()
    catalog = Catalog(Settings(data_dir=args.data_dir).catalog_path)
    try:
        crowd_record(args.out, catalog, args.authors)
    finally:
        catalog.close()


if __name__ == "__main__":
    main()
