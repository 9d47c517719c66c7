"""The identifiers a paper is saved under elsewhere: arXiv's DOI and archive id, the
record's abstract on one line, as reference managers keep them."""

from __future__ import annotations

from ingest.index.tex import readable_tex

# arXiv registers a DataCite DOI for every paper: 10.48550/arXiv.<id>.
ARXIV_DOI_PREFIX = "10.48550/arXiv."
ARXIV_PUBLISHER = "arXiv"


def arxiv_doi(paper_id: str) -> str:
    """`1706.03762` as `10.48550/arXiv.1706.03762`."""
    return f"{ARXIV_DOI_PREFIX}{paper_id}"


def archive_id(paper_id: str) -> str:
    """The archive id Zotero keeps for a preprint: `arXiv:1706.03762`."""
    return f"arXiv:{paper_id}"


def one_line(text: str) -> str:
    """The readable text of `text` (TeX made readable) on one line, whole."""
    return " ".join(readable_tex(text).split())
