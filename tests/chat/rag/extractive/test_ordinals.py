""" "The second one" after a question about the parts of one thing is the part in that place:
the one the previous answer, or the sources, list there, else the counted noun there."""

from __future__ import annotations

import pytest

from chat.rag.answer.answering import Turn
from chat.rag.extractive.answerer import ExtractiveGenerator
from chat.rag.extractive.ordinals import listed, resolved
from tests.support.worlds.sources import make_source

pytestmark = pytest.mark.timeout(60)

ASKED = "What agents does PaSa consist of?"
LISTING = (
    "As illustrated in Figure 1, PaSa consists of two LLM agents: the Crawler and the Selector."
)
HISTORY = (Turn("user", ASKED), Turn("assistant", f"{LISTING} [arXiv:2501.10120]"))


@pytest.mark.parametrize(
    ("question", "previous", "texts", "expected"),
    [
        ("what does the second one do?", ASKED, [LISTING], "what does the Selector do?"),
        ("and the first one?", ASKED, [LISTING], "and the Crawler?"),
        ("what does the last one do?", "Which stages make up X?",
         ["X runs in three stages: Planning, Search, and Writing."], "what does the Writing do?"),
        # Listed nowhere: the noun in that place, as papers count ("In the second stage").
        ("what does the second one do?", ASKED, ["PaSa is an agent."],
         "what does the second agent do?"),
        ("what happens in the first step?", "What is X?", [], "what happens in the first step?"),
        ("what happens in the first step?", "What is X?", ["X has two steps: Retrieval and "
         "Reading."], "what happens in the first step (Retrieval)?"),
        ("how fast is it?", ASKED, [LISTING], "how fast is it?"),  # no place pointed at
        # One of several things the previous question named: read by its name elsewhere.
        ("how many chips was the second one trained on?", "Which has more parameters, "
         "OPT-175B or PaLM?", [], "how many chips was the second one trained on?"),
    ],
)  # fmt: skip
def test_the_place_pointed_at_is_what_was_listed_there(
    question: str, previous: str, texts: list[str], expected: str
) -> None:
    assert resolved(question, previous, texts) == expected


def test_a_listing_is_read_after_the_plural_noun() -> None:
    assert listed("agent", [LISTING]) == ["Crawler", "Selector"]
    assert listed("agent", ["Our agents are strong."]) == []


async def test_a_follow_up_pointing_at_a_place_is_searched_for_what_is_there() -> None:
    generator = ExtractiveGenerator()

    standalone = await generator.standalone("what does the second one do?", HISTORY)

    assert standalone == "what does the Selector do? PaSa"


async def test_the_answer_to_the_second_one_is_about_what_was_listed_second() -> None:
    sources = [
        make_source(1, "2501.10120", "In the second stage, we apply PPO training to the model."),
        make_source(2, "2501.10120", "The Selector of PaSa reads each paper to see whether it "
                    "meets the requirements of the user query."),
    ]  # fmt: skip
    generator = ExtractiveGenerator()

    chunks = [c async for c in generator.generate("what does the second one do?", sources, HISTORY)]
    text = "".join(c.text or "" for c in chunks)

    assert text.startswith("The Selector of PaSa reads each paper")
