"""A caller's stop sequences and max_tokens end an extractive answer as a model's server would;
usage is counted when nothing reports it."""

from __future__ import annotations

import pytest

from chat.rag.answer.llm import LlmChunk
from chat.rag.answer.sampling import Sampling, counted_usage, cut_at_stop, cut_to_tokens
from chat.rag.extractive.answerer import ExtractiveGenerator
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(30)

QUESTION = "How does the retriever pick passages for the reader?"
SOURCES = (
    make_source(
        1,
        "2007.01282",
        "The retriever picks passages by dense similarity. The reader then fuses the passages.",
    ),
)


def syllables(text: str) -> int:
    """A stand-in tokenizer: one token per three characters of a word, at least one."""
    return sum(max(1, len(word) // 3) for word in text.split())


async def _generate(sampling: Sampling | None) -> list[LlmChunk]:
    generator = ExtractiveGenerator(syllables)
    return [c async for c in generator.generate(QUESTION, SOURCES, (), sampling)]


def test_the_text_ends_before_the_first_stop_sequence() -> None:
    assert cut_at_stop("one. two. three.", (" three", ". ")) == "one"
    assert cut_at_stop("no stops here", ("zzz",)) == "no stops here"


def test_max_tokens_keeps_whole_words_within_the_budget() -> None:
    text = "retrieval augmented generation works"

    kept = cut_to_tokens(text, 5, syllables)

    assert kept == "retrieval"  # 3 + 3 tokens would pass 5: only the first word fits
    assert cut_to_tokens(text, 6, syllables) == "retrieval augmented"
    assert cut_to_tokens(text, 100, syllables) == text


def test_a_cut_for_length_finishes_with_length_and_a_stop_with_stop() -> None:
    text = "alpha beta gamma delta"

    assert Sampling(max_tokens=2).limit(text, syllables) == ("alpha beta", "length")
    assert Sampling(stop=(" gamma",)).limit(text, syllables) == ("alpha beta", "stop")
    assert Sampling(max_tokens=2).limit(text, None) == (text, "stop")


@pytest.mark.parametrize("bad", [{"max_tokens": 0}, {"stop": ("",)}])
def test_impossible_sampling_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"max_tokens|stop sequence"):
        Sampling(**bad)  # type: ignore[arg-type]  # the bad values under test


async def test_extractive_answers_stop_at_a_stop_sequence() -> None:
    whole = await _generate(None)
    stopped = await _generate(Sampling(stop=("dense",)))

    full_text = "".join(c.text for c in whole)
    text = "".join(c.text for c in stopped)
    assert "dense similarity" in full_text
    assert text == full_text[: full_text.index("dense")]
    assert stopped[-1].finish_reason == "stop"


async def test_extractive_answers_cut_at_max_tokens_finish_with_length() -> None:
    chunks = await _generate(Sampling(max_tokens=4))

    text = "".join(c.text for c in chunks)
    assert syllables(text) <= 4
    assert len(text.split()) >= 2
    assert chunks[-1].finish_reason == "length"


def test_counted_usage_sums_the_prompt_and_counts_the_answer() -> None:
    usage = counted_usage(syllables, ["retrieval", "augmented"], "generation")

    assert usage == {"prompt_tokens": 6, "completion_tokens": 3, "total_tokens": 9}
