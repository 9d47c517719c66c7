"""A paper as an OpenURL 1.0 ContextObject in KEV form (Z39.88-2004), the `title` of a
COinS span (`<span class="Z3988">`) by which reference managers (Zotero's COinS
translator) save each paper a list shows as an item of its own.

An arXiv paper is a journal-format preprint (`rft.genre=preprint`, `rft.jtitle=arXiv`)
identified by its arXiv id (`info:arxiv/`), arXiv's DOI (`info:doi/`) and its arxiv.org
page; a document without an arXiv id by its page here.
"""

from __future__ import annotations

from urllib.parse import quote

from chat.library.identifiers import ARXIV_PUBLISHER, arxiv_doi, one_line
from ingest.index.names.people import written_names
from ingest.index.records import Paper, arxiv_url

CONTEXT_VERSION = "Z39.88-2004"
JOURNAL_FORMAT = "info:ofi/fmt:kev:mtx:journal"
REFERRER = "info:sid/paperchat"


def context_object(paper: Paper, page_url: str) -> str:
    """The KEV ContextObject of `paper`, whose page here is `page_url`; every value
    percent-encoded, so no title or name can end a key or the attribute."""
    pairs = [
        ("ctx_ver", CONTEXT_VERSION),
        ("rft_val_fmt", JOURNAL_FORMAT),
        ("rfr_id", REFERRER),
        ("rft.genre", "preprint" if paper.is_arxiv else "article"),
        ("rft.atitle", one_line(paper.title) or paper.id),
    ]
    pairs += [("rft.au", one_line(name)) for name in written_names(paper.authors)]
    if paper.published:
        pairs.append(("rft.date", paper.published))
    if paper.is_arxiv:
        pairs += [
            ("rft.jtitle", ARXIV_PUBLISHER),
            ("rft_id", f"info:arxiv/{paper.id}"),
            ("rft_id", f"info:doi/{arxiv_doi(paper.id)}"),
            ("rft_id", arxiv_url(paper.id)),
        ]
    else:
        if paper.doi:
            pairs.append(("rft_id", f"info:doi/{paper.doi}"))
        pairs.append(("rft_id", page_url))
    return "&".join(f"{key}={quote(value, safe='')}" for key, value in pairs)
