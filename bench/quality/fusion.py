"""How the fusion settings trade off across question kinds, from one retrieval pass.

Each question's dense and lexical candidates are fetched once; every fusion
setting is then scored on the same candidates, so the table compares the
settings and nothing else. Recall@1 / recall@5 of the gold paper per question kind.

Over the full index (`.cache/full-index`; `python -m bench.full_index` builds it) unless
`--data-dir` names another; `--data-dir .cache/dev-index`, the development index, is the
quick loop. The result says which index it ran over.

    python -m bench.quality.fusion [--data-dir .cache/dev-index]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from bench import results
from bench.dev_index import data_dir_option, index_at
from chat.rag.retrieval.coverage import CoverageConfig
from chat.rag.retrieval.evaluation import Question, load_questions
from chat.rag.retrieval.fusion import FusionConfig, Hit, fuse
from chat.rag.retrieval.retriever import Retriever
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.filters import Filters

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "data" / "eval"
FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl", "questions-hard.jsonl")

OFF = CoverageConfig(depth=0)
# The settings before the long-description rule, which later rows add.
THIRD = FusionConfig(long_query_words=0)
SETTINGS: tuple[tuple[str, FusionConfig, CoverageConfig], ...] = (
    (
        "RRF k 60, dense weight 0.5 (first version)",
        FusionConfig(60, 0.5, 1.0, 0.0, 0.0, 1.0, long_query_words=0),
        OFF,
    ),
    ("RRF k 10, dense 0.5, scores 0.1", replace(THIRD, lexical_margin=0.0), OFF),
    ("the same, leaning lexical when BM25's best paper leads by 1.3x", THIRD, OFF),
    (
        "dense 1.0, scores 0.03, leaning lexical at 1.3x",
        replace(THIRD, dense_weight=1.0, score_weight=0.03, confident_dense_factor=0.1),
        OFF,
    ),
    ("dense 0.3, scores 0.1, leaning lexical at 1.3x", replace(THIRD, dense_weight=0.3), OFF),
    (
        "the same as the third, dense 1.0 from 20 words",
        replace(THIRD, long_query_words=20, long_dense_weight=1.0, long_query_max_share=0.0),
        OFF,
    ),
    (
        "the same as the third, dense 1.5 from 20 words",
        replace(THIRD, long_query_words=20, long_dense_weight=1.5, long_query_max_share=0.0),
        OFF,
    ),
    (
        "the same as the third, feedback terms from 6 dense passages, weight 0.5",
        replace(THIRD, feedback_weight=0.5),
        OFF,
    ),
    (
        "the same as the third, feedback terms from 6 dense passages, weight 1.0",
        replace(THIRD, feedback_weight=1.0),
        OFF,
    ),
    (
        "the third with a second look at its best 40 by coverage, weight 0.5",
        THIRD,
        CoverageConfig(40, 0.5),
    ),
    ("the same, coverage weight 1.0", THIRD, CoverageConfig()),
    ("the same, coverage weight 2.0", THIRD, CoverageConfig(40, 2.0)),
    (
        "coverage 1.0, dense 1.5 from 20 words when BM25's best holds < 0.5 of the question",
        FusionConfig(),
        CoverageConfig(),
    ),
    (
        "the same, share < 0.6",
        FusionConfig(long_query_max_share=0.6),
        CoverageConfig(),
    ),
    (
        "the same, share < 0.5, dense 3.0",
        FusionConfig(long_dense_weight=3.0),
        CoverageConfig(),
    ),
)
# question, gold paper id, dense, lexical, lexical with feedback terms
Pass = tuple[Question, str, list[Hit], list[Hit], list[Hit]]


def candidates(index: Wiring, files: list[str]) -> list[Pass]:
    retriever = index.retriever
    passes = []
    for name in files:
        for question in load_questions(EVAL / name):
            if question.gold_id is None:
                continue
            gold = index.catalog.resolve_id(question.gold_id) or question.gold_id
            dense = retriever.dense(question.question, Filters())
            lexical = retriever.lexical_search(question.question, Filters())
            again = retriever.feedback(question.question, dense, Filters())
            asked = Question(question.qid, question.question, gold, question.type)
            passes.append((asked, gold, dense, lexical, again))
    return passes


Setting = tuple[str, FusionConfig, CoverageConfig]


def ranking(one: Pass, which: str, setting: Setting | None, retriever: Retriever) -> list[str]:
    """Distinct papers, best first, as `which` ("dense", "bm25", "hybrid") ranks them."""
    question, _, dense, lexical, again = one
    if which == "dense":
        ranked = [paper for _, paper, _ in dense]
    elif which == "bm25":
        ranked = [paper for _, paper, _ in lexical]
    else:
        assert setting is not None
        _, fusion, coverage = setting
        idf = retriever.question_idf(question.question)
        fused = fuse(question.question, dense, lexical, fusion, again, sum(idf.values()))
        config = replace(retriever.config, coverage=coverage)
        fused = retriever.with_config(config).rerank(question.question, fused, idf)
        ranked = [c.paper_id for c in fused]
    return list(dict.fromkeys(ranked))


def _cell(
    passes: list[Pass], which: str, setting: Setting | None, retriever: Retriever
) -> list[float]:
    """[recall@1, recall@5]."""
    ranks = [ranking(one, which, setting, retriever) for one in passes]
    at1 = sum(one[1] in papers[:1] for one, papers in zip(passes, ranks, strict=True))
    at5 = sum(one[1] in papers[:5] for one, papers in zip(passes, ranks, strict=True))
    return [at1 / max(len(passes), 1), at5 / max(len(passes), 1)]


def _printed(cells: list[list[float]]) -> str:
    return " | ".join(f"{at1:.2f} / {at5:.2f}" for at1, at5 in cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    data_dir_option(parser)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--files", nargs="*", default=list(FILES))
    args = parser.parse_args()
    index_at(args.data_dir)
    index = Wiring(Settings(data_dir=args.data_dir, models_cache=args.models_cache))
    passes = candidates(index, args.files)
    kinds = sorted({q.type for q, *_ in passes})
    by_kind = {kind: [p for p in passes if p[0].type == kind] for kind in kinds}
    print(f"command: {results.command('fusion')}\n")
    print("| setting | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    retriever = index.retriever
    rows: list[list[results.Cell]] = []
    for which in ("dense", "bm25"):
        cells = [_cell(by_kind[k], which, None, retriever) for k in kinds]
        print(f"| {which} alone | {_printed(cells)} |")
        rows.append([f"{which} alone", *cells])
    for setting in SETTINGS:
        cells = [_cell(by_kind[k], "hybrid", setting, retriever) for k in kinds]
        print(f"| {setting[0]} | {_printed(cells)} |")
        rows.append([setting[0], *cells])
    stats = index.catalog.stats()
    index.close()
    recall = results.table(
        "recall@1 / recall@5 by question kind",
        ["setting", *kinds],
        rows,
        dict.fromkeys(kinds, ".2f"),
    )
    results.record(
        "fusion",
        [recall],
        about=__doc__,
        settings={**vars(args), "index": stats, "questions": len(passes)},
        setup=results.index_setup(stats, args.data_dir),
    )


if __name__ == "__main__":
    main()
