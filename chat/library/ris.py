"""Papers as RIS records (`application/x-research-info-systems`), the format reference
managers import most widely: one record per paper, a tag and its value per line.

An arXiv paper is a `GEN` record (the type Zotero writes a preprint as) with its title,
every author in order, the first submission's date as precise as known (`2019/07/03/`,
`2019/07//`), the whole abstract, arXiv's DOI, its arxiv.org page and PDF, and its archive
id (`arXiv:ID`, under `AN`, with arXiv as the archive, `DB`).
"""

from __future__ import annotations

from collections.abc import Iterable

from chat.library.identifiers import ARXIV_PUBLISHER, archive_id, arxiv_doi, one_line
from ingest.index.names.people import written_names
from ingest.index.records import Paper, arxiv_pdf_url, arxiv_url

MEDIA_TYPE = "application/x-research-info-systems; charset=utf-8"


def ris_date(iso: str) -> str:
    """`2019-07-03` as RIS's `2019/07/03/`, `2019-07` as `2019/07//`."""
    parts = iso.split("-")
    return "/".join([*parts, *[""] * (3 - len(parts))]) + "/"


def record(paper: Paper, page_url: str) -> str:
    """The RIS record of `paper`, whose page here is `page_url`."""
    lines = [("TY", "GEN"), ("TI", one_line(paper.title) or paper.id)]
    lines += [("AU", one_line(name)) for name in written_names(paper.authors)]
    if paper.published:
        lines += [("PY", paper.published[:4]), ("DA", ris_date(paper.published))]
    if paper.abstract:
        lines.append(("AB", one_line(paper.abstract)))
    if paper.is_arxiv:
        lines += [
            ("DO", arxiv_doi(paper.id)),
            ("UR", arxiv_url(paper.id)),
            ("L1", arxiv_pdf_url(paper.id)),
            ("PB", ARXIV_PUBLISHER),
            ("DB", ARXIV_PUBLISHER),
            ("AN", archive_id(paper.id)),
        ]
    else:
        if paper.doi:
            lines.append(("DO", paper.doi))
        lines.append(("UR", page_url))
    lines += [("KW", category) for category in paper.categories]
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {value}\n".replace(" \n", "\n") for tag, value in lines)


def records(papers: Iterable[tuple[Paper, str]]) -> str:
    """Several papers' records, each with its page, one after another."""
    return "\n".join(record(paper, page) for paper, page in papers)
