"""The WordNet reader, on a tiny database in the Princeton format written here: its words
for a word's first senses, the lemma behind an inflected word, and no database at all."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from chat.rag.retrieval.wordnet.database import WordNet, WordNetError, open_wordnet, parse_synset

LICENCE = "  1 This software and database is being provided to you, the LICENSEE, by\n"
# Each part of speech's synsets: (key, words, pointers as (symbol, key, part of speech)).
SYNSETS: dict[str, list[tuple[str, list[str], list[tuple[str, str, str]]]]] = {
    "n": [
        ("photo", ["photo", "photograph", "exposure"], [("@", "representation", "n")]),
        ("representation", ["representation"], []),
        ("painting", ["painting", "picture"], []),
        ("image", ["picture", "image"], [("@", "representation", "n")]),
        ("goose", ["goose"], [("@", "bird", "n")]),
        ("bird", ["bird"], []),
    ],
    "v": [
        ("forget", ["forget", "bury"], []),
        ("blank", ["forget", "blank_out", "block"], []),
    ],
    "a": [
        ("cheap", ["cheap", "inexpensive"], [("&", "low-cost", "s")]),
        ("low-cost", ["low-cost(a)"], [("&", "cheap", "a")]),
    ],
    "r": [],
}
# Each lemma's senses, most frequent first.
LEMMAS = {
    "n": {
        "photo": ["photo"],
        "photograph": ["photo"],
        "picture": ["image", "painting"],
        "goose": ["goose"],
    },
    "v": {"forget": ["forget", "blank"]},
    "a": {"cheap": ["cheap"], "low-cost": ["low-cost"]},
    "r": {},
}
NAMES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


def _data_line(offset: int, pos: str, words: list[str], pointers: list[str]) -> str:
    kind = "s" if pos == "a" and words[0].endswith("(a)") else pos
    listed = " ".join(f"{w} 0" for w in words)
    return (
        f"{offset:08d} 00 {kind} {len(words):02x} {listed} {len(pointers):03d} "
        f"{' '.join(pointers)} | a gloss\n"
    ).replace("  |", " |")


def write_wordnet(folder: Path) -> Path:
    """A database of the synsets above, with true byte offsets, and `noun.exc`."""
    folder.mkdir(parents=True, exist_ok=True)
    offsets: dict[str, int] = {}
    for pos, synsets in SYNSETS.items():  # one pass for the lengths: offsets are 8 digits
        at = len(LICENCE)
        for key, words, pointers in synsets:
            offsets[key] = at
            at += len(_data_line(0, pos, words, ["@ 00000000 n 0000"] * len(pointers)))
    for pos, synsets in SYNSETS.items():
        lines = [LICENCE]
        for key, words, pointers in synsets:
            linked = [f"{s} {offsets[k]:08d} {p} 0000" for s, k, p in pointers]
            lines.append(_data_line(offsets[key], pos, words, linked))
        (folder / f"data.{NAMES[pos]}").write_text("".join(lines), encoding="utf-8")
        index = [LICENCE]
        for lemma, keys in sorted(LEMMAS[pos].items()):
            senses = " ".join(f"{offsets[k]:08d}" for k in keys)
            index.append(f"{lemma} {pos} {len(keys)} 1 @ {len(keys)} 0 {senses}\n")
        (folder / f"index.{NAMES[pos]}").write_text("".join(index), encoding="utf-8")
    (folder / "noun.exc").write_text("geese goose\n", encoding="utf-8")
    return folder


@pytest.fixture
def wordnet(tmp_path: Path) -> WordNet:
    return WordNet(write_wordnet(tmp_path / "wordnet"))


def _words(wordnet: WordNet, word: str, senses: int = 1) -> dict[str, str]:
    return {near.word: near.relation for near in wordnet.related(word, senses)}


def test_a_word_gives_its_synonyms_and_the_kind_it_is_of(wordnet: WordNet) -> None:
    found = _words(wordnet, "photo")

    assert found == {"photograph": "synonym", "exposure": "synonym", "representation": "hypernym"}


def test_an_inflected_word_is_read_as_its_lemma(wordnet: WordNet) -> None:
    assert wordnet.lemmas("photos") == [("n", "photo")]
    assert wordnet.lemmas("geese") == [("n", "goose")]
    assert _words(wordnet, "geese") == {"bird": "hypernym"}
    assert wordnet.lemmas("forgetting") == [("v", "forget")]


def test_only_the_most_frequent_senses_are_read(wordnet: WordNet) -> None:
    first = _words(wordnet, "forget", senses=1)
    both = _words(wordnet, "forget", senses=2)

    assert first == {"bury": "synonym"}
    assert both == {"bury": "synonym", "blank out": "synonym", "block": "synonym"}


def test_an_adjective_gives_its_similar_words_without_their_markers(wordnet: WordNet) -> None:
    assert _words(wordnet, "cheap") == {"inexpensive": "synonym", "low-cost": "similar"}


def test_a_word_wordnet_lacks_gives_nothing(wordnet: WordNet) -> None:
    assert wordnet.related("transformer") == []


def test_a_broken_data_line_is_named_in_the_error() -> None:
    with pytest.raises(WordNetError, match="00000042"):
        parse_synset("00000042 00 n zz", "n")


def test_a_folder_without_the_database_gives_none_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="paperchat.wordnet")

    first = open_wordnet(str(tmp_path))
    again = open_wordnet(str(tmp_path))

    assert first is None
    assert again is None
    assert [r.getMessage() for r in caplog.records] == [
        f"no WordNet database in {tmp_path}: questions are searched without synonyms"
    ]


def test_a_folder_with_the_database_is_opened(tmp_path: Path) -> None:
    found = open_wordnet(str(write_wordnet(tmp_path / "wordnet")))

    assert found is not None
    assert found.lemmas("picture") == [("n", "picture")]
