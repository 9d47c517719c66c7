"""A paper's page on the site: its canonical path, `/papers/<id>-<title-slug>`.

Here, beside the records, so that everything that names a paper's page (the
answering core's sources, the site's links, the sitemap, the feeds) makes the
same path.
"""

from __future__ import annotations

import re
import unicodedata

from ingest.index.tex import readable_tex

# A title slug's length at most, cut at a word: enough to read, short enough to share.
MAX_SLUG_CHARS = 60


def title_slug(title: str) -> str:
    """A title as a URL reads it: its TeX made readable, in ASCII lower case, words joined by
    `-`, at most `MAX_SLUG_CHARS` long (cut at a word); "" for a title with no such word."""
    ascii_title = unicodedata.normalize("NFKD", readable_tex(title)).encode("ascii", "ignore")
    words = re.findall(r"[a-z0-9]+", ascii_title.decode().lower())
    slug = ""
    for word in words:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > MAX_SLUG_CHARS:
            break
        slug = longer
    return slug or "-".join(words)[:MAX_SLUG_CHARS]


def paper_path(paper_id: str, title: str, is_arxiv: bool = True) -> str:
    """A paper page's canonical path: `/papers/<id>-<title-slug>` for an arXiv paper
    (`/papers/hep-th/9901001-strings-on-ads5-s5`); a document without an arXiv id, whose
    own id may hold a `-`, is `/papers/<id>`."""
    slug = title_slug(title) if is_arxiv else ""
    return f"/papers/{paper_id}-{slug}" if slug else f"/papers/{paper_id}"
