"""Which paper an answer took a name to mean, when several papers introduce it."""

from __future__ import annotations

from chat.rag.answer.namesakes import namesake_of
from chat.rag.names.matches import NameMatch, Recognised

TITLES = {
    "2112.04426": "Improving language models by retrieving from trillions of tokens",
    "2505.14319": "RETRO: REthinking Tactile Representation Learning with Material PriOrs",
    "2504.05759": "RETROcode: Leveraging a Code Database",
    "2601.00001": "RETRO: A Fourth Reading",
    "2601.00002": "RETRO: A Fifth Reading",
}


def _names(*introducers: str, asked: str = "RETRO") -> Recognised:
    return Recognised((NameMatch("RETRO", asked, (), introducers, introducers=introducers),))


def test_the_answer_names_the_paper_it_cites_and_the_other_readings() -> None:
    names = _names("2112.04426", "2505.14319", "2504.05759")

    found = namesake_of(names, ["2112.04426", "2007.01282"], TITLES.get)

    assert found is not None
    assert found.data() == {
        "name": "RETRO",
        "paper": "2112.04426",
        "title": TITLES["2112.04426"],
        "others": [
            {"id": "2505.14319", "title": TITLES["2505.14319"]},
            {"id": "2504.05759", "title": TITLES["2504.05759"]},
        ],
        "other_count": 2,
    }
    assert found.line() == (
        f"\n\nRETRO here is \u201c{TITLES['2112.04426']}\u201d; other papers also called RETRO: "
        f"\u201c{TITLES['2505.14319']}\u201d, \u201c{TITLES['2504.05759']}\u201d."
    )


def test_the_reading_is_the_one_cited_first_and_the_line_counts_what_it_leaves_out() -> None:
    names = _names("2112.04426", "2505.14319", "2504.05759", "2601.00001", "2601.00002")

    found = namesake_of(names, ["2505.14319"], TITLES.get)

    assert found is not None
    assert found.paper == "2505.14319"
    assert found.other_count == 4
    assert found.line().endswith("\u201cRETRO: A Fourth Reading\u201d and 1 more.")


def test_no_namesake_for_a_name_one_paper_introduces_or_an_answer_citing_none() -> None:
    assert namesake_of(_names("2112.04426"), ["2112.04426"], TITLES.get) is None
    assert namesake_of(_names("2112.04426", "2505.14319"), ["2007.01282"], TITLES.get) is None
    assert namesake_of(Recognised(), ["2112.04426"], TITLES.get) is None


def test_a_follow_up_that_never_writes_the_name_gets_no_namesake_line() -> None:
    names = _names("2112.04426", "2505.14319")
    cited = ["2112.04426"]

    follow_up = namesake_of(names, cited, TITLES.get, "And how big is its retrieval database?")
    asked = namesake_of(names, cited, TITLES.get, "How big is Retro's retrieval database?")

    assert follow_up is None
    assert asked is not None
    assert asked.paper == "2112.04426"


def test_a_name_written_out_in_full_still_gets_its_line() -> None:
    match = NameMatch(
        "RETRO", "RETRO", (), (), introducers=("2112.04426", "2505.14319"),
        written="Retrieval-Enhanced Transformer",
    )  # fmt: skip
    written = "What does the Retrieval-Enhanced Transformer retrieve?"

    found = namesake_of(Recognised((match,)), ["2112.04426"], TITLES.get, written)

    assert found is not None
    assert found.name == "RETRO"
