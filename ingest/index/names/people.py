"""Author names as the catalog's author index keys them, and which written names are one person.

A paper's `authors` is one string as arXiv writes it ("Ashish Vaswani, Noam
Shazeer and Niki Parmar", sometimes with `;`, TeX accents or affiliations in
parentheses). Each name is keyed without case, accents, dots or hyphens
("Jean-Pierre Müller" -> "jean pierre muller"), and split into its given
names and its surname (the last word, suffixes such as "Jr." left out).

Two written names may be the same person when their surnames are equal and
their given names agree word by word, an initial standing for any name it
starts ("A. Vaswani" and "Ashish Vaswani", "Ashish K. Vaswani" and "Ashish
Vaswani"). An initial-only name is taken to be the person with a full first
name only when exactly one such person with that surname and initial is
indexed; otherwise it stays a name of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from ingest.index.tables.database import CatalogDb
from ingest.index.tables.steps import AUTHOR_NAME_INDEX

# Letters that Unicode does not decompose into a base letter and an accent.
_LETTERS: Final = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae", "Æ": "AE",
     "œ": "oe", "Œ": "OE", "\u0131": "i", "þ": "th", "ð": "d"}
)  # fmt: skip
# TeX accents and letters as arXiv metadata writes them: \"u, \'{e}, \d{o}, {\o}, \ss.
_TEX_LETTER: Final = re.compile(r"\\(ss|ae|oe|aa|o|l|i)(?![a-zA-Z])", re.IGNORECASE)
_TEX_ACCENT: Final = re.compile(r"\\(?:[\"'`^~=.]|[uvHcdbkrt](?![a-zA-Z]))\s*")
_TEX_COMMAND: Final = re.compile(r"\\[a-zA-Z]+\s*")
_TEX_PUNCTUATION: Final = str.maketrans("", "", "\\{}")
_PARENTHESES: Final = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_SEPARATORS: Final = re.compile(r"\s*(?:[,;]|\band\b|&)\s*", re.IGNORECASE)
_WORD: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_SUFFIXES: Final = frozenset({"jr", "sr", "ii", "iii", "iv", "phd"})
_NOT_NAMES: Final = frozenset({"et al", "al", "others", "et", "and"})
MAX_NAME_CHARS: Final = 200


def fold(text: str) -> str:
    """Lower case, without accents or TeX accent commands."""
    if text.isascii() and "\\" not in text and "{" not in text:
        return text.casefold()
    text = _TEX_LETTER.sub(lambda m: m[1], text)
    text = _TEX_ACCENT.sub("", text)
    text = _TEX_COMMAND.sub("", text).translate(_TEX_PUNCTUATION)
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@dataclass(frozen=True)
class Name:
    """One written author name, keyed: given names and surname, folded."""

    written: str  # as the paper lists it, white space normalised
    given: tuple[str, ...]
    surname: str
    papers: int = field(default=0, compare=False)  # how many indexed papers list it so

    @property
    def key(self) -> str:
        return " ".join((*self.given, self.surname))

    @property
    def first(self) -> str:
        return self.given[0] if self.given else ""

    @property
    def has_full_first_name(self) -> bool:
        return len(self.first) > 1


def parse_name(written: str) -> Name | None:
    """`written` keyed, or None when it holds no name (empty, "et al.")."""
    text = " ".join(_PARENTHESES.sub(" ", written[:MAX_NAME_CHARS]).split()).strip(" .\\")
    # A hyphenated name is one name: "Wei-An" is not "Wei".
    words = _WORD.findall(fold(text).replace("-", ""))
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    if not words or " ".join(words) in _NOT_NAMES:
        return None
    return Name(text, tuple(words[:-1]), words[-1])


def written_parts(authors: str) -> list[str]:
    """The pieces of a paper's `authors` string between its separators, affiliations in
    parentheses left out: each a name as written, or nothing a name is made of ("et al.")."""
    return _SEPARATORS.split(_PARENTHESES.sub(" ", authors))


def split_authors(authors: str) -> list[Name]:
    """The names of a paper's `authors` string, in order, each once."""
    names: dict[str, Name] = {}
    for part in written_parts(authors):
        name = parse_name(part)
        if name is not None:
            names.setdefault(name.key, name)
    return list(names.values())


def surnames(authors: str) -> list[str]:
    """The surnames of an author list, in order: what who-is-where is kept by."""
    return [name.surname for name in split_authors(authors)]


def written_names(authors: str) -> list[str]:
    """The names of `authors` as written, for showing each as a link."""
    return [name.written for name in split_authors(authors)]


def first_names(authors: str, limit: int) -> tuple[list[str], int]:
    """The first `limit` names of `authors` as written, and how many more it lists: a list
    of papers shows a collaboration's thousands of authors by its first few."""
    parts = [part for part in written_parts(authors) if part.strip()]
    names: dict[str, str] = {}
    read = 0
    for part in parts:
        if len(names) == limit:
            break
        read += 1
        name = parse_name(part)
        if name is not None:
            names.setdefault(name.key, name.written)
    return list(names.values()), len(parts) - read


def compatible(a: Name, b: Name) -> bool:
    """Whether two names may be one person: the same surname, and given names that agree
    word by word (an initial agrees with any name it starts); where one has more given names
    than the other, the extra ones are initials ("Vishal M. Patel" and "Vishal Patel", not
    "Yang Janet Liu" and "Yang Liu"). A name without given names agrees only with itself."""
    if a.surname != b.surname:
        return False
    if not a.given or not b.given:
        return a.given == b.given
    shorter, longer = sorted((a.given, b.given), key=len)
    if any(len(extra) > 1 for extra in longer[len(shorter) :]):
        return False
    return all(
        x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y))
        for x, y in zip(shorter, longer, strict=False)
    )


@dataclass(frozen=True)
class Person:
    """What one asked-for name stands for among the indexed names with its surname."""

    asked: Name
    names: tuple[Name, ...]  # every indexed name taken to be this person
    # Indexed names that may be this person but were not taken: another person with the same
    # initial shares the surname.
    ambiguous: tuple[Name, ...] = ()

    @property
    def display(self) -> str:
        """How to name the person: the spelling with a full first name on most papers."""
        best = max(self.names, key=lambda n: (n.has_full_first_name, n.papers, len(n.given)))
        return best.written


def same_person(asked: Name, indexed: Sequence[Name]) -> Person:
    """The names among `indexed` (all with `asked`'s surname) that are `asked`'s person
    (`Surname.person`)."""
    return Surname(indexed).person(asked)


class Surname:
    """The indexed names of one surname, by first initial, for telling who a name is; what
    each name's one person is, once worked out, is kept for the next name asked."""

    def __init__(self, indexed: Sequence[Name]) -> None:
        self.by_initial: dict[str, list[Name]] = {}
        self.by_first: dict[str, list[tuple[int, Name]]] = {}  # by first given name, placed
        for place, name in enumerate(indexed):
            self.by_initial.setdefault(name.first[:1], []).append(name)
            self.by_first.setdefault(name.first, []).append((place, name))
        self.full_names = {
            initial: [n for n in names if n.has_full_first_name]
            for initial, names in self.by_initial.items()
        }
        self._only: dict[str, str | None] = {}

    def person(self, asked: Name) -> Person:
        """A full first name is that person; an initial-only name is the one person with a
        full first name that agrees with it, when there is exactly one (or none: then every
        initial-only name that agrees). An initial-only name that agrees with two or more
        such people is theirs only by its exact spelling."""
        agreeing = [n for n in self._candidates(asked) if compatible(asked, n)]
        person = asked.first if asked.has_full_first_name else self.only_person(asked)
        if person is None:
            exact = tuple(n for n in agreeing if n.key == asked.key)
            return Person(asked, exact, tuple(n for n in agreeing if n not in exact))
        taken: list[Name] = []
        left: list[Name] = []
        for name in agreeing:
            if name.has_full_first_name:
                (taken if name.first == person else left).append(name)
            else:
                (taken if self.only_person(name) in (person, "") else left).append(name)
        return Person(asked, tuple(taken), tuple(left))

    def _candidates(self, asked: Name) -> list[Name]:
        """The names that may agree with `asked`, in their order: a full first name agrees
        only with itself and its initial, an initial with every name it starts."""
        if not asked.has_full_first_name:
            return self.by_initial.get(asked.first[:1], [])
        placed = self.by_first.get(asked.first, []) + self.by_first.get(asked.first[0], [])
        return [name for _, name in sorted(placed, key=lambda each: each[0])]

    def only_person(self, name: Name) -> str | None:
        """The one full first name among the indexed names that agree with `name`: "" when
        none does, None when several do."""
        if name.key not in self._only:
            self._only[name.key] = _only_person(name, self.full_names)
        return self._only[name.key]


def _only_person(name: Name, full_names: dict[str, list[Name]]) -> str | None:
    if not name.first:
        return ""
    found: str | None = None
    for other in full_names.get(name.first[0], ()):
        if other.first != found and compatible(name, other):
            if found is not None:
                return None  # a second person: no need to look further
            found = other.first
    return found or ""


# The catalog's author index, `paper_authors` (`ingest/index/tables/schema.py` makes it): one row
# per paper and author, looked up by surname through this covering index.
_NAME_INDEX: Final = "paper_authors_name"
# Bumped when keying changes: the catalog then indexes every paper's authors again.
INDEX_VERSION: Final = "1"


_INSERT: Final = (
    "INSERT INTO paper_authors (paper_id, position, written, given, surname) VALUES (?,?,?,?,?)"
)


def _rows(paper_id: str, authors: str) -> list[tuple[str, int, str, str, str]]:
    return [
        (paper_id, position, name.written, " ".join(name.given), name.surname)
        for position, name in enumerate(split_authors(authors))
    ]


def index_authors(db: CatalogDb, paper_id: str, authors: str) -> None:
    """Within the caller's transaction: the paper's rows of the author index, new for old."""
    db.execute("DELETE FROM paper_authors WHERE paper_id = ?", (paper_id,))
    db.executemany(_INSERT, _rows(paper_id, authors))


def unindex_authors(db: CatalogDb, paper_id: str) -> None:
    db.execute("DELETE FROM paper_authors WHERE paper_id = ?", (paper_id,))


def reindex_all(db: CatalogDb) -> int:
    """Within the caller's transaction: the author index made again from every paper."""
    db.execute("DELETE FROM paper_authors")
    # The name index is made again once at the end, as the schema defines it: faster.
    db.execute(f"DROP INDEX {_NAME_INDEX}")
    papers = db.execute("SELECT id, authors FROM papers").fetchall()
    rows = (row for paper_id, authors in papers for row in _rows(paper_id, authors))
    db.executemany(_INSERT, rows)
    db.execute(AUTHOR_NAME_INDEX)
    return len(papers)


def find_person(db: CatalogDb, written: str) -> Person | None:
    """Who `written` names among the indexed authors; None when no indexed name may be
    theirs. A Person without `names` but with `ambiguous` ones: several people may be meant."""
    return find_people(db, [written]).get(written)


# Surnames, or (surname, initial) pairs, read in one query, at most.
_GROUPS_READ: Final = 200
# The most names asked at once whose names are read by initial: more read whole surnames.
_BY_INITIAL: Final = 2_000


def find_people(db: CatalogDb, written: Iterable[str]) -> dict[str, Person | None]:
    """`find_person` for each of `written`. Only the indexed names that may be theirs are
    read: those of their surname and first initial (who a name is never depends on another
    initial's names), each such group read and compared once for all the names asked."""
    asked: dict[str, Name] = {}
    found: dict[str, Person | None] = {}
    for each in dict.fromkeys(written):
        name = parse_name(each)
        if name is None:
            found[each] = None
        else:
            asked[each] = name
    groups: dict[tuple[str, str], list[Name]] = {}
    for g, s, w, n in _indexed_names(db, list(asked.values())):
        groups.setdefault((s, g[:1]), []).append(Name(w, tuple(g.split()), s, n))
    people = {key: Surname(names) for key, names in groups.items()}
    for each, name in asked.items():
        group = people.get((name.surname, name.first[:1]))
        person = group.person(name) if group is not None else None
        found[each] = person if person is not None and (person.names or person.ambiguous) else None
    return found


def _indexed_names(db: CatalogDb, asked: list[Name]) -> Iterator[tuple[str, str, str, int]]:
    """(given, surname, a spelling, papers) of each indexed name of the asked names'
    surnames and first initials: by surname and initial for a few names, by whole
    surnames for many (the sitemap's every author), in queries of `_GROUPS_READ` each."""
    by_initial = len(asked) <= _BY_INITIAL
    wanted = sorted({(n.surname, n.first[:1]) if by_initial else (n.surname,) for n in asked})
    term = "(surname = ? AND substr(given, 1, 1) = ?)" if by_initial else "surname = ?"
    for start in range(0, len(wanted), _GROUPS_READ):
        part = wanted[start : start + _GROUPS_READ]
        yield from db.execute(
            "SELECT given, surname, MIN(written), COUNT(*) FROM paper_authors"
            f" WHERE {' OR '.join([term] * len(part))} GROUP BY surname, given"
            " ORDER BY surname, given",
            [value for key in part for value in key],
        )


def person_paper_ids(db: CatalogDb, person: Person) -> list[str]:
    """The ids of the papers that list one of the person's names, each once."""
    if not person.names:
        return []
    givens = [" ".join(n.given) for n in person.names]
    marks = ",".join("?" * len(givens))
    rows = db.execute(
        f"SELECT DISTINCT paper_id FROM paper_authors WHERE surname = ? AND given IN ({marks})",
        (person.asked.surname, *givens),
    )
    return [str(row[0]) for row in rows]


def papers_by_surname(db: CatalogDb, written: str, most: int) -> set[str]:
    """The papers listing an author of surname `written` (folded as the index keys it),
    read from the author index alone; `most` of them at most (a name ten thousand papers
    list costs no more than one `most` list)."""
    name = parse_name(written)
    if name is None:
        return set()
    rows = db.execute(
        "SELECT DISTINCT paper_id FROM paper_authors WHERE surname = ? LIMIT ?",
        (name.surname, most),
    )
    return {str(paper) for (paper,) in rows}


def byline_places(db: CatalogDb, paper_ids: Sequence[str], written: str) -> dict[str, int]:
    """For each of `paper_ids` listing an author of surname `written`, the first place such
    an author holds in its byline (0: the first author)."""
    name = parse_name(written)
    if name is None or not paper_ids:
        return {}
    found: dict[str, int] = {}
    for start in range(0, len(paper_ids), 500):
        part = list(paper_ids[start : start + 500])
        rows = db.execute(
            "SELECT paper_id, MIN(position) FROM paper_authors WHERE surname = ?"
            f" AND paper_id IN ({','.join('?' * len(part))}) GROUP BY paper_id",
            (name.surname, *part),
        )
        found.update((str(paper), int(place)) for paper, place in rows)
    return found
