"""Institutions in the catalog: their stable ids, their parents, and the papers naming them.

An institution comes from a paper's affiliations: page 1 of its PDF
(`ingest/pdf/front/affiliations.py`, source "pdf") or the parentheses after a
name in the record's authors ("Noam Shazeer (Google)", source "record").
Names are kept as printed, white space normalised, and keyed without case,
accents or punctuation: "Google Research", "Google Brain" and "Google, Inc."
are three institutions; "GOOGLE RESEARCH" is the first. An institution's id
is the first 40 bits of the SHA-256 of its key in lower-case base 32, like a
researcher's (`researchers.py`): other papers never change it. A parent is
recorded where a PDF names a unit and then its organisation on one line
("Google Brain, Google Inc."), and for a team or group whose name holds no
organisation's, beside the organisation it is printed with ("Google Research,
Brain Team": Brain Team, part of Google Research).

A record's affiliation may carry its ROR id (https://ror.org), written after
the name inside the parentheses: "Noam Shazeer (Google Research
ror:00njsd438)" (`ingest/sources/metadata.py` writes it so from a record's
`affiliations`). The institution named before it keeps it (`institutions.ror`,
'' when unknown), and is found by it there (`find_by_ror`).

Who is where, by page 1 of a paper's PDF (`ingest/pdf/front/placements.py`),
is kept at ingest as each author's place in the byline (the position of
`paper_authors`) and the institution (`paper_author_institutions`), so a page
reads it without reading the PDF again. Catalogs made before it fill it when
`paperchat ingest pdfs` reads their PDFs again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ingest.index.names.people import fold
from ingest.index.names.researchers import researcher_id
from ingest.index.tables.database import CatalogDb

Affiliation = tuple[str, str]  # (institution as printed, its parent as printed or "")

_NOT_KEY_RE: Final = re.compile(r"[^\w]+")
_RECORD_PARENTHESES: Final = re.compile(r"\(([^()]{3,160})\)")
# A ROR id: "0", six characters of Crockford's base 32, two check digits (ISO 7064 97-10).
# (the id or its URL, in either case): the form `ror_id` reads, for the API's schema too.
ROR_ID_PATTERN: Final = (
    r"^(?:[Hh][Tt][Tt][Pp][Ss]?://)?(?:[Ww]{3}\.)?(?:[Rr][Oo][Rr]\.[Oo][Rr][Gg]/)?"
    r"(0[0-9a-hjkmnp-tv-zA-HJKMNP-TV-Z]{6}[0-9]{2})/?$"
)
_ROR_ID_RE: Final = re.compile(ROR_ID_PATTERN)
_ROR_TAG_RE: Final = re.compile(r"\s*\bror:(\S+)\s*$", re.I)
_CROCKFORD: Final = "0123456789abcdefghjkmnpqrstvwxyz"
MAX_NAME_CHARS: Final = 120
# A team or group inside an organisation, named without it: "Brain Team", "Speech Group".
_TEAM_RE: Final = re.compile(r"\b(?:team|group)$", re.I)
# Bumped when record affiliations are read differently: the catalog reads them all again.
# 3: their ROR ids kept on the institutions.
RECORD_INDEX_VERSION: Final = "3"


def institution_key(name: str) -> str:
    return " ".join(_NOT_KEY_RE.sub(" ", fold(name)).split())


def institution_id(name: str) -> str:
    """The id of an institution's name: its key's, made as researchers' ids are."""
    return researcher_id("institution " + institution_key(name))


class InvalidRorId(ValueError):
    """Not a ROR id: not its form (`0` and eight more characters), or a wrong check."""


def ror_id(value: str) -> str:
    """A ROR id as its nine characters ("00njsd438"), from the id or its URL
    ("https://ror.org/00njsd438"); InvalidRorId for anything else."""
    match = _ROR_ID_RE.match(value.strip())
    if match is None:
        raise InvalidRorId(f"{value!r} is not a ROR id (like 00njsd438)")
    found = match[1].lower()
    number = 0
    for char in found[:7]:
        number = number * 32 + _CROCKFORD.index(char)
    if 98 - (number * 100) % 97 != int(found[7:]):
        raise InvalidRorId(f"{value!r} is not a ROR id: its check digits are wrong")
    return found


def ror_url(rid: str) -> str:
    return f"https://ror.org/{rid}"


def _record_names(authors: str) -> dict[str, str]:
    """Each affiliation a record's authors string gives in parentheses, once, with the ROR
    id written after it ("" without one)."""
    found: dict[str, str] = {}
    for group in _RECORD_PARENTHESES.findall(authors):
        for piece in group.split(";"):
            text = " ".join(piece.split())
            tag = _ROR_TAG_RE.search(text)
            name = (text[: tag.start()] if tag else text).strip()[:MAX_NAME_CHARS]
            if not name:
                continue
            try:
                rid = ror_id(tag[1]) if tag else ""
            except InvalidRorId:
                rid = ""
            if not found.get(name):
                found[name] = rid
    return found


def record_affiliations(authors: str) -> tuple[Affiliation, ...]:
    """The affiliations a record's authors string gives in parentheses, each once."""
    return tuple((name, "") for name in _record_names(authors))


def record_rors(db: CatalogDb, authors: str) -> None:
    """Within the caller's transaction: the ROR ids a record's `authors` string gives its
    affiliations, kept on those institutions (a later record's id replaces an earlier)."""
    for name, rid in _record_names(authors).items():
        if rid and institution_key(name):
            db.execute(
                "UPDATE institutions SET ror = ? WHERE id = ? AND ror != ?",
                (rid, institution_id(name), rid),
            )


def find_by_ror(db: CatalogDb, rid: str) -> str | None:
    """The id of the institution a record names with the ROR id `rid` (as `ror_id` gives
    it), None when no record does; of several so named, the first by name."""
    row = db.execute(
        "SELECT id FROM institutions WHERE ror = ? ORDER BY name, id LIMIT 1", (rid,)
    ).fetchone()
    return None if row is None else str(row[0])


def ror_of(db: CatalogDb, iid: str) -> str:
    """The ROR id the records naming the institution give it; "" when none does."""
    row = db.execute("SELECT ror FROM institutions WHERE id = ?", (iid,)).fetchone()
    return "" if row is None else str(row[0])


def with_team_parents(affiliations: Sequence[Affiliation]) -> list[Affiliation]:
    """`affiliations`, a team printed beside its organisation ("Google Research, Brain
    Team", in either order) given that organisation as its parent when it has none."""
    found = list(affiliations)
    for index, (name, parent) in enumerate(found):
        if parent or not _TEAM_RE.search(name):
            continue
        beside = [found[i][0] for i in (index - 1, index + 1) if 0 <= i < len(found)]
        organisations = [other for other in beside if not _TEAM_RE.search(other)]
        if organisations:
            found[index] = (name, organisations[0])
    return found


def replace_affiliations(
    db: CatalogDb, paper_id: str, source: str, affiliations: Sequence[Affiliation]
) -> None:
    """Within the caller's transaction: the paper's institutions from `source`, new for old."""
    db.execute(
        "DELETE FROM paper_institutions WHERE paper_id = ? AND source = ?", (paper_id, source)
    )
    for name, parent in with_team_parents(affiliations):
        if not institution_key(name):
            continue
        parent_id = institution_id(parent) if institution_key(parent) else ""
        if parent_id:
            _record(db, parent, "")
        _record(db, name, parent_id)
        db.execute(
            "INSERT INTO paper_institutions (paper_id, institution_id, source)"
            " VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (paper_id, institution_id(name), source),
        )


def _record(db: CatalogDb, name: str, parent_id: str) -> None:
    """The institution's row: its first printed name kept, a parent once one is known."""
    db.execute(
        "INSERT INTO institutions (id, name, parent_id) VALUES (?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET parent_id = excluded.parent_id"
        " WHERE institutions.parent_id = '' AND excluded.parent_id != ''",
        (institution_id(name), name[:MAX_NAME_CHARS], parent_id),
    )


def reindex_records(db: CatalogDb) -> int:
    """Within the caller's transaction: every paper's record affiliations read again; how
    many papers there are."""
    papers = db.execute("SELECT id, authors FROM papers").fetchall()
    for paper_id, authors in papers:
        replace_affiliations(db, paper_id, "record", record_affiliations(authors))
        record_rors(db, str(authors))
    return len(papers)


def replace_placements(db: CatalogDb, paper_id: str, placed: Sequence[tuple[int, str]]) -> None:
    """Within the caller's transaction: who is where by the paper's page 1, new for old, as
    (the author's position in `paper_authors`, institution as printed)."""
    db.execute("DELETE FROM paper_author_institutions WHERE paper_id = ?", (paper_id,))
    for position, name in placed:
        if not institution_key(name):
            continue
        _record(db, name, "")
        db.execute(
            "INSERT INTO paper_author_institutions (paper_id, position, institution_id)"
            " VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (paper_id, position, institution_id(name)),
        )


def forget_placements(db: CatalogDb, paper_id: str) -> None:
    """Within the caller's transaction: who is where on the paper, no longer known."""
    db.execute("DELETE FROM paper_author_institutions WHERE paper_id = ?", (paper_id,))


def unindex_institutions(db: CatalogDb, paper_id: str) -> None:
    db.execute("DELETE FROM paper_institutions WHERE paper_id = ?", (paper_id,))
    db.execute("DELETE FROM paper_author_institutions WHERE paper_id = ?", (paper_id,))


# Reading


def find_institution(db: CatalogDb, iid: str) -> tuple[str, str, str] | None:
    """(id, name, parent id) of an institution, None for an id none has."""
    row = db.execute("SELECT id, name, parent_id FROM institutions WHERE id = ?", (iid,)).fetchone()
    return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def institution_papers(db: CatalogDb, iid: str) -> list[tuple[str, str]]:
    """(paper id, source: "pdf" or "record") of each paper naming the institution."""
    rows = db.execute(
        "SELECT paper_id, source FROM paper_institutions WHERE institution_id = ?"
        " ORDER BY paper_id",
        (iid,),
    )
    return [(str(p), str(s)) for p, s in rows]


def placements_at(
    db: CatalogDb, iids: Sequence[str], paper_ids: Sequence[str]
) -> dict[str, set[int]]:
    """For each of `paper_ids` whose page 1 says who is where: the positions of its authors
    the page puts at one of the institutions `iids` (an empty set: it puts them elsewhere)."""
    found: dict[str, set[int]] = {}
    wanted = set(iids)
    for start in range(0, len(paper_ids), 500):
        part = list(paper_ids[start : start + 500])
        if not part:
            continue
        marks = ",".join("?" * len(part))
        rows = db.execute(
            "SELECT paper_id, position, institution_id FROM paper_author_institutions"
            f" WHERE paper_id IN ({marks})",
            part,
        )
        for paper_id, position, iid in rows:
            at = found.setdefault(str(paper_id), set())
            if str(iid) in wanted:
                at.add(int(position))
    return found


def units_of(db: CatalogDb, iid: str) -> list[tuple[str, str]]:
    """(id, name) of the institutions whose parent it is."""
    rows = db.execute("SELECT id, name FROM institutions WHERE parent_id = ? ORDER BY name", (iid,))
    return [(str(i), str(n)) for i, n in rows]


def listed_institutions(
    db: CatalogDb, contains: str = "", limit: int = 1000
) -> list[tuple[str, str, int]]:
    """(id, name, papers) of the institutions with papers (their own or their units'),
    most papers first; with `contains`, only those whose name holds it (without case)."""
    rows = db.execute(
        "SELECT i.id, i.name, COUNT(DISTINCT p.paper_id) AS papers FROM institutions i"
        # Each institution with itself and with each of its units: equal keys to join on.
        " JOIN (SELECT id AS owner, id AS member FROM institutions"
        "  UNION ALL SELECT parent_id, id FROM institutions WHERE parent_id != '') m"
        " ON m.owner = i.id"
        " JOIN paper_institutions p ON p.institution_id = m.member"
        f" WHERE i.name {db.ilike} ? ESCAPE '\\' GROUP BY i.id, i.name"
        " ORDER BY papers DESC, i.name LIMIT ?",
        (f"%{_like(contains)}%", limit),
    )
    return [(str(i), str(n), int(c)) for i, n, c in rows]


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
