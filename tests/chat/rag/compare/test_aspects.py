"""A comparison's aspects: the defaults, each once, their bounds, and what fits each."""

from __future__ import annotations

import pytest

from chat.rag.compare.aspects import (
    DEFAULT_ASPECTS,
    MAX_ASPECT_CHARS,
    MAX_ASPECTS,
    InvalidAspects,
    aspect,
    aspects_of,
)


def test_no_aspects_asks_for_the_defaults() -> None:
    asked = aspects_of([])

    assert [a.name for a in asked] == list(DEFAULT_ASPECTS)


def test_an_aspect_written_twice_is_compared_once_as_first_written() -> None:
    asked = aspects_of(["Datasets", "datasets ", "main  result"])

    assert [a.name for a in asked] == ["Datasets", "main result"]
    assert asked[0].question == aspect("datasets").question


@pytest.mark.parametrize(
    ("names", "words"),
    [
        ([" "], "blank"),
        (["x" * (MAX_ASPECT_CHARS + 1)], f"longer than {MAX_ASPECT_CHARS}"),
        ([f"aspect {n}" for n in range(MAX_ASPECTS + 1)], f"at most {MAX_ASPECTS}"),
    ],
)
def test_aspects_out_of_bounds_are_refused_saying_why(names: list[str], words: str) -> None:
    with pytest.raises(InvalidAspects) as refused:
        aspects_of(names)

    assert words in str(refused.value)


def test_each_known_aspect_fits_what_it_asks_for_and_not_a_bare_claim() -> None:
    fits = {
        "datasets": "We evaluate on Natural Questions, TriviaQA and WebQuestions.",
        "metrics": "Predictions are evaluated with exact match (EM) and F1.",
        "main result": "Our model outperforms BM25 by 9% absolute in top-20 accuracy.",
        "code availability": "Our code is available at https://github.com/example/model.",
    }
    bare = "Our method works well on many problems."

    assert all(aspect(name).fits(text) for name, text in fits.items())
    assert not any(aspect(name).fits(bare) for name in fits)


def test_an_aspect_not_known_is_asked_as_written() -> None:
    asked = aspect("training  cost")

    assert asked.name == "training cost"
    assert asked.query == "training cost"
    assert asked.fits("Anything at all.")


def test_code_availability_needs_words_saying_so_not_a_tools_address() -> None:
    code = aspect("code availability")

    assert code.fits("1Code to run experiments has been open-sourced at https://github.com/x/y.")
    assert not code.fits("4github.com/huggingface/transformers")
