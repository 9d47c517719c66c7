"""The citation guard's CPU per streamed piece: model answers fed to it as a model streams them.

Each answer (a few hundred words of Markdown with `[arXiv:...]` citations of its
sources, numbered ones, a made-up one, references in prose, links and numbers) is cut
at random into pieces of `--min-piece` to `--max-piece` characters, as a model streams
tokens, and fed to a new `CitationGuard` piece by piece, then flushed. A run feeds every
answer `--repeats` times and is timed with `time.process_time` (this process's CPU);
the table gives, of `--runs` runs, the median CPU per piece and per answer, and the
fastest run's beside it. Nothing but the guard is timed: no server, no model.

    python -m bench.speed.guard --runs 7 --repeats 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench import results
from chat.rag.citations.guard import CitationGuard
from chat.rag.sources import Source

PAPERS = ("1706.03762", "1810.04805", "2005.14165", "2010.11929", "2005.11401", "2007.01282")

# Answers as models write them over those sources (numbered 1 to 6 in that order).
ANSWERS = {
    "cited prose": (
        "The Transformer replaces recurrence with self-attention entirely [arXiv:1706.03762]. "
        "On the WMT 2014 English-to-German task it reaches 28.4 BLEU, more than 2 BLEU above "
        "the best ensembles reported before, after 3.5 days of training on 8 P100 GPUs "
        "[arXiv:1706.03762v7]. BERT builds on the same encoder but pre-trains it with a masked "
        "language model, predicting 15% of the tokens from both sides of their context "
        "[arXiv:1810.04805]; its input starts with a [CLS] token whose final state feeds the "
        "classifier, and sentences are separated by [SEP].\n\n"
        "Scale changes what these models can do. GPT-3, with 175 billion parameters, learns "
        "tasks from a few examples in its prompt, without any gradient update (arXiv:2005.14165). "
        "The Vision Transformer (ViT) applies the same architecture to patches of 16x16 pixels "
        "and reaches 88.55% top-1 accuracy on ImageNet when pre-trained on JFT-300M "
        "[arXiv: 2010.11929]. Some claim an accuracy of 91.0% for a larger variant "
        "[arXiv:2106.99999], which none of the sources supports.\n\n"
        "Retrieval offers another path to knowledge than parameters alone. RAG combines a "
        "pre-trained seq2seq model with a dense index of 21M Wikipedia passages "
        "[arXiv:2005.11401], see https://arxiv.org/abs/2005.11401 for the details, and "
        "Fusion-in-Decoder encodes each of up to 100 retrieved passages on its own, then "
        "attends over all of them in the decoder [arXiv:2007.01282]. On Natural Questions it "
        "reaches 51.4% exact match, against 44.5% for RAG [2007.01282, 2005.11401]. In short, "
        "attention (Vaswani et al., 2017) is the common ground of all six papers, from the "
        "original model to the readers of retrieved text (1706.03762)."
    ),
    "numbered list": (
        "Here is how the sources compare:\n\n"
        "1. **Architecture.** The Transformer [1] uses 6 encoder and 6 decoder layers with "
        "d_model = 512 and 8 heads; BERT-large [2] has 24 layers, 1024 hidden units and 340M "
        "parameters in all.\n"
        "2. **Pre-training data.** BERT reads BooksCorpus (800M words) and English Wikipedia "
        "(2,500M words) [2], while GPT-3 [3] trains on 300 billion tokens drawn from Common "
        "Crawl, WebText2, two book corpora and Wikipedia.\n"
        "3. **Vision.** ViT-H/14 [4] reaches 88.55% on ImageNet, 90.72% on ImageNet-ReaL and "
        "94.55% on CIFAR-100, with 2.5k TPUv3-core-days of pre-training, about four times less "
        "than the best CNN of the time [4, 7].\n"
        "4. **Retrieval.** RAG [5] marginalises over the top k = 5 or 10 documents; FiD [6] "
        "scales to 100 passages and gains on TriviaQA (67.6 to 72.1 exact match) as more are "
        "retrieved [5][6].\n\n"
        "| model | parameters | year |\n|---|---|---|\n"
        "| Transformer (big) | 213M | 2017 |\n| BERT-large | 340M | 2018 |\n"
        "| GPT-3 | 175B | 2020 |\n| ViT-H/14 | 632M | 2020 |\n\n"
        "For the ablations of attention heads, see Table 3 of arXiv:1706.03762 and the "
        "appendix of <https://arxiv.org/pdf/2010.11929v2>; the scaling curves of GPT-3 are in "
        "its Figure 3.1 [arXiv:2005.14165]. A follow-up (arXiv:2201.99999) reports further "
        "gains, but it is not among the sources. Version 1.2.0 of the released code runs on "
        "PyTorch 1.13, and the intervals given are [0, 1) for dropout rates."
    ),
    "typography": (
        "In short \u2013 and this is where the papers differ most \u2013 \u201cattention is "
        "all you need\u201d holds for translation [arXiv:1706.03762], while for images the "
        "authors of ViT stress that \u201cinductive biases\u201d matter less at scale "
        "(\u2248 300M images) [arXiv:2010.11929]. Training the base model takes 12 hours "
        "on 8 GPUs, i.e. 3.3 \u00d7 10\u00b9\u2078 FLOPs, and its attention costs O(n\u00b2 "
        "\u00b7 d) per layer [1]. BERT\u2019s masking rate of 15 % (80 % [MASK], 10 % random, "
        "10 % unchanged) is kept by most successors \u2014 \u00e0 la RoBERTa \u2014 [2]; "
        "Sch\u00fctze\u2019s survey, cited in [arXiv:1810.04805], calls it \u201csimple but "
        "effective\u201d. Retrieval-augmented models answer in \u2264 1 s per question on "
        "a single V100 [arXiv:2005.11401]\u2026 and FiD\u2019s reader needs \u2248 4\u00d7 "
        "the memory of RAG\u2019s (see Table\u00a02 of arXiv:2007.01282). GPT\u20113 "
        "\u201cfew-shot\u201d results [3] rest on 175\u00a0B parameters; a claim of 1 T "
        "[arXiv:2301.99999] is not in the sources. Overall: p \u2264 0.05 in 4/6 ablations, "
        "\u00b1 0.3 BLEU between runs, and r\u00e9sum\u00e9s of each paper at arxiv.org."
    ),
}


@dataclass(frozen=True)
class Run:
    """One run's CPU: every answer fed `repeats` times."""

    seconds: float
    pieces: int
    answers: int


def sources() -> list[Source]:
    """The answers' sources, numbered as `PAPERS` lists them (abstracts of arXiv papers)."""
    return [
        Source(n=n, id=paper, is_arxiv=True, title=f"Paper {paper}",
               chunk_id=f"{paper}#abstract", kind="abstract", section="", page=None,
               text="Some passage.", score=0.5, url=f"https://arxiv.org/abs/{paper}")
        for n, paper in enumerate(PAPERS, start=1)
    ]  # fmt: skip


def pieces_of(text: str, shortest: int, longest: int, seed: int) -> list[str]:
    """`text` cut into pieces of `shortest` to `longest` characters, at random."""
    chance = random.Random(seed)
    pieces, start = [], 0
    while start < len(text):
        end = start + chance.randint(shortest, longest)
        pieces.append(text[start:end])
        start = end
    return pieces


def guarded(pieces: Sequence[str], cited: Sequence[Source]) -> str:
    """The guard's output for an answer streamed in `pieces`."""
    guard = CitationGuard(cited)
    out = [guard.feed(piece) for piece in pieces]
    return "".join(out) + guard.flush()


def timed(streams: Sequence[Sequence[str]], cited: Sequence[Source], repeats: int) -> Run:
    began = time.process_time()
    for _ in range(repeats):
        for pieces in streams:
            guarded(pieces, cited)
    seconds = time.process_time() - began
    return Run(seconds, repeats * sum(map(len, streams)), repeats * len(streams))


COLUMNS = [
    "answers", "words per answer", "pieces per answer", "CPU per piece, µs (median run)",
    "CPU per answer, ms (median run)", "CPU per piece, µs (fastest run)",
]  # fmt: skip


def row(name: str, streams: Sequence[Sequence[str]], runs: Sequence[Run]) -> list[results.Cell]:
    words = sum(len("".join(pieces).split()) for pieces in streams) / len(streams)
    per_piece = [run.seconds / run.pieces * 1e6 for run in runs]
    per_answer = [run.seconds / run.answers * 1e3 for run in runs]
    pieces = runs[0].pieces / runs[0].answers
    return [name, words, pieces, statistics.median(per_piece),
            statistics.median(per_answer), min(per_piece)]  # fmt: skip


def measure(args: argparse.Namespace) -> list[list[results.Cell]]:
    """A row per answer and one for all, each from `args.runs` runs taken in turn."""
    cited = sources()
    streams = {
        name: [pieces_of(text, args.min_piece, args.max_piece, args.seed)]
        for name, text in ANSWERS.items()
    }
    streams["all"] = [stream for [stream] in streams.values()]
    timed(streams["all"], cited, 2)  # warm-up: compiled patterns, the fold cache
    runs: dict[str, list[Run]] = {name: [] for name in streams}
    for _ in range(args.runs):
        for name, answer in streams.items():
            runs[name].append(timed(answer, cited, args.repeats))
    return [row(name, streams[name], runs[name]) for name in streams]


def print_table(rows: Sequence[Sequence[results.Cell]]) -> None:
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for cells in rows:
        shown = [f"{c:.1f}" if isinstance(c, float) else str(c) for c in cells]
        print("| " + " | ".join(shown) + " |")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs (default 7)")
    parser.add_argument("--repeats", type=int, default=100, help="answers fed per run")
    parser.add_argument("--min-piece", type=int, default=3, help="shortest piece (chars)")
    parser.add_argument("--max-piece", type=int, default=8, help="longest piece (chars)")
    parser.add_argument("--seed", type=int, default=44, help="of the random cuts")
    args = parser.parse_args(argv)
    rows = measure(args)
    print(f"command: {results.command('guard', argv)}")
    print_table(rows)
    formats = dict.fromkeys(COLUMNS[1:], ".1f")
    formats[COLUMNS[4]] = ".2f"
    title = "the citation guard's CPU, answers streamed in pieces (this process, one thread)"
    results.record(
        "guard",
        [results.table(title, COLUMNS, rows, formats)],
        about=__doc__,
        settings=vars(args),
        setup=f"{len(ANSWERS)} answers, pieces of {args.min_piece}-{args.max_piece} characters",
        argv=argv,
    )


if __name__ == "__main__":
    main()
