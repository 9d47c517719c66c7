"""A reader of the Princeton WordNet 3 database files, as Debian's `wordnet-base` installs
them (`/usr/share/wordnet`).

Four parts of speech, each with three files: `index.<pos>` lists each lemma
with the offsets of its senses (synsets), most frequent sense first;
`data.<pos>` holds one synset a line at that byte offset, its words and its
pointers to other synsets (`@` hypernym, `&` similar, ...); `<pos>.exc`
gives irregular inflections ("geese goose"). Lines of the licence at the top
of a file start with two spaces. The data files are mapped, not read, and a
synset is parsed when first asked for.
"""

from __future__ import annotations

import logging
import mmap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

logger = logging.getLogger("paperchat.wordnet")

# The file name of each part of speech, by the letter the database writes for it.
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# Regular inflections undone to find a lemma (WordNet's own detachment rules).
ENDINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y"), ("s", "")),
    "v": (("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", ""), ("s", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}  # fmt: skip
# Pointers followed to related synsets, with the relation each is named by.
RELATIONS = {"@": "hypernym", "@i": "hypernym", "&": "similar"}


class WordNetError(Exception):
    """A WordNet database file cannot be read as one."""


@dataclass(frozen=True)
class Synset:
    """One sense: its words (spaces for WordNet's underscores) and its pointers
    (relation symbol, offset, part of speech)."""

    offset: int
    pos: str
    words: tuple[str, ...]
    pointers: tuple[tuple[str, int, str], ...]


@dataclass(frozen=True)
class Related:
    """A word that one sense of a question's word stands for or is a kind of."""

    word: str
    relation: str  # "synonym", "hypernym" or "similar"
    sense: int  # 0 for the word's most frequent sense


class WordNet:
    """The database in `folder`; `WordNet.open` gives None when the folder lacks it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lemmas: dict[str, dict[str, tuple[int, ...]]] = {}
        self._exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
        self._data: dict[str, mmap.mmap] = {}
        for pos, name in FILES.items():
            self._lemmas[pos] = _read_index(folder / f"index.{name}")
            self._exceptions[pos] = _read_exceptions(folder / f"{name}.exc")
            with (folder / f"data.{name}").open("rb") as data:
                self._data[pos] = mmap.mmap(data.fileno(), 0, access=mmap.ACCESS_READ)
        self.synset = lru_cache(maxsize=8192)(self._synset)

    @staticmethod
    def complete(folder: Path) -> bool:
        """Whether `folder` holds the index and data files of the four parts of speech."""
        names = [f"{kind}.{name}" for name in FILES.values() for kind in ("index", "data")]
        return all((folder / name).is_file() for name in names)

    def lemmas(self, word: str) -> list[tuple[str, str]]:
        """(part of speech, lemma) of each reading of `word` the database knows: the word
        itself, its irregular base forms, then the regular ones."""
        word = word.lower().replace(" ", "_")
        found: list[tuple[str, str]] = []
        for pos, lemmas in self._lemmas.items():
            bases = [word, *self._exceptions[pos].get(word, ())]
            regular = [word[: -len(end)] + base for end, base in ENDINGS[pos] if word.endswith(end)]
            # "forgetting", "stopped": the consonant doubled before the ending.
            bases += regular + [b[:-1] for b in regular if len(b) > 2 and b[-1] == b[-2]]
            found += [(pos, base) for base in dict.fromkeys(bases) if base in lemmas]
        return found

    def senses(self, pos: str, lemma: str) -> list[Synset]:
        """The synsets of `lemma` as part of speech `pos`, most frequent first."""
        return [self.synset(pos, offset) for offset in self._lemmas[pos].get(lemma, ())]

    def related(self, word: str, senses: int = 1) -> list[Related]:
        """The words of the first `senses` senses of each reading of `word`: its synonyms,
        then the words of the senses those point to (`RELATIONS`); `word` itself left out."""
        own = {word.lower(), *(lemma.replace("_", " ") for _, lemma in self.lemmas(word))}
        found: dict[str, Related] = {}
        for pos, lemma in self.lemmas(word):
            for sense, synset in enumerate(self.senses(pos, lemma)[:senses]):
                near = [(w, "synonym") for w in synset.words]
                for symbol, offset, target in synset.pointers:
                    if symbol in RELATIONS:
                        near += [(w, RELATIONS[symbol]) for w in self.synset(target, offset).words]
                for other, relation in near:
                    if other.lower() not in own and other not in found:
                        found[other] = Related(other, relation, sense)
        return list(found.values())

    def _synset(self, pos: str, offset: int) -> Synset:
        data = self._data["a" if pos == "s" else pos]
        end = data.find(b"\n", offset)
        line = data[offset : end if end >= 0 else len(data)].decode("utf-8", "replace")
        return parse_synset(line, "a" if pos == "s" else pos)


def parse_synset(line: str, pos: str) -> Synset:
    """One line of a data file: `offset lex_file type w_cnt (word lex_id)... p_cnt
    (symbol offset pos source/target)... | gloss`; counts of words in hexadecimal."""
    fields = line.split(" | ", 1)[0].split()
    try:
        count = int(fields[3], 16)
        words = tuple(_plain(w) for w in fields[4 : 4 + 2 * count : 2])
        at = 4 + 2 * count
        pointers = tuple(
            (fields[at + 1 + 4 * i], int(fields[at + 2 + 4 * i]), fields[at + 3 + 4 * i])
            for i in range(int(fields[at]))
        )
        return Synset(int(fields[0]), pos, words, pointers)
    except (IndexError, ValueError) as e:
        raise WordNetError(f"cannot parse synset line {line[:60]!r}: {e}") from e


def _plain(word: str) -> str:
    """A data file's word as written: underscores as spaces, an adjective's marker
    ("(a)", "(p)", "(ip)") dropped."""
    return word.split("(", 1)[0].replace("_", " ")


def _read_index(path: Path) -> dict[str, tuple[int, ...]]:
    """lemma -> its synsets' offsets: a line's last `synset_cnt` fields."""
    lemmas: dict[str, tuple[int, ...]] = {}
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("  "):
                continue
            fields = line.split()
            try:
                count = int(fields[2])
                lemmas[fields[0]] = tuple(int(f) for f in fields[len(fields) - count :])
            except (IndexError, ValueError) as e:
                raise WordNetError(f"cannot parse {path.name!r} line {line[:60]!r}") from e
    return lemmas


def _read_exceptions(path: Path) -> dict[str, tuple[str, ...]]:
    """inflected form -> its base forms; no file, none."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", errors="replace") as lines:
        return {f[0]: tuple(f[1:]) for f in (line.split() for line in lines) if len(f) >= 2}


@lru_cache(maxsize=4)
def open_wordnet(folder: str) -> WordNet | None:
    """The database in `folder`, read once per process; None (said once in the log) when
    the folder lacks it or it cannot be read: the BM25 query is then not widened."""
    path = Path(folder)
    if not WordNet.complete(path):
        logger.warning("no WordNet database in %s: questions are searched without synonyms", path)
        return None
    try:
        return WordNet(path)
    except (OSError, ValueError, WordNetError) as e:
        logger.warning("cannot read the WordNet database in %s (%s): no synonyms", path, e)
        return None
