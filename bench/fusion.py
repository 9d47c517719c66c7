"""How the fusion settings trade off across question kinds, from one retrieval pass.

Each question's dense and lexical candidates are fetched once; every fusion
setting is then scored on the same candidates, so the table compares the
settings and nothing else. Recall@1 / recall@5 of the gold paper per question kind.

    python -m bench.fusion --data-dir /path/to/full/index
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from chat.components import Index
from chat.evaluation import Question, load_questions
from chat.fusion import FusionConfig, Hit, fuse
from chat.retrieval import Filters
from chat.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "data" / "eval"
FILES = ("questions-abstracts.jsonl", "questions-pdfs.jsonl", "questions-hard.jsonl")

SETTINGS = (
    ("RRF k 60, dense weight 0.5 (first version)", FusionConfig(60, 0.5, 1.0, 0.0, 0.0, 1.0)),
    ("RRF k 10, dense 0.5, scores 0.1", FusionConfig(10, 0.5, 1.0, 0.1, 0.0, 1.0)),
    ("the same, leaning lexical when BM25's best paper leads by 1.3x", FusionConfig()),
    ("dense 1.0, scores 0.03, leaning lexical at 1.3x", FusionConfig(10, 1.0, 1.0, 0.03, 1.3, 0.1)),
    ("dense 0.3, scores 0.1, leaning lexical at 1.3x", FusionConfig(10, 0.3, 1.0, 0.1, 1.3, 0.3)),
    ("the default, dense 1.0 from 20 words", FusionConfig(long_query_words=20)),
    (
        "the default, dense 1.5 from 20 words",
        FusionConfig(long_query_words=20, long_dense_weight=1.5),
    ),
    (
        "the default, feedback terms from 6 dense passages, weight 0.5",
        FusionConfig(feedback_weight=0.5),
    ),
    (
        "the default, feedback terms from 6 dense passages, weight 1.0",
        FusionConfig(feedback_weight=1.0),
    ),
)
# question, gold paper id, dense, lexical, lexical with feedback terms
Pass = tuple[Question, str, list[Hit], list[Hit], list[Hit]]


def candidates(index: Index, files: list[str]) -> list[Pass]:
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


def recall_at(passes: list[Pass], config: FusionConfig | None, which: str, k: int = 5) -> float:
    hits = 0
    for question, gold, dense, lexical, again in passes:
        if which == "dense":
            ranked = [paper for _, paper, _ in dense]
        elif which == "bm25":
            ranked = [paper for _, paper, _ in lexical]
        else:
            assert config is not None
            fused = fuse(question.question, dense, lexical, config, again)
            ranked = [c.paper_id for c in fused]
        hits += gold in list(dict.fromkeys(ranked))[:k]
    return hits / max(len(passes), 1)


def _cell(passes: list[Pass], config: FusionConfig | None, which: str) -> str:
    """Recall@1 / recall@5."""
    return f"{recall_at(passes, config, which, 1):.2f} / {recall_at(passes, config, which, 5):.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--models-cache", type=Path, default=ROOT / ".cache" / "models")
    parser.add_argument("--files", nargs="*", default=list(FILES))
    args = parser.parse_args()
    index = Index(Settings(data_dir=args.data_dir, models_cache=args.models_cache))
    passes = candidates(index, args.files)
    kinds = sorted({q.type for q, *_ in passes})
    by_kind = {kind: [p for p in passes if p[0].type == kind] for kind in kinds}
    print(f"command: python -m bench.fusion {' '.join(shlex.quote(a) for a in sys.argv[1:])}\n")
    print("| setting | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for which in ("dense", "bm25"):
        cells = [_cell(by_kind[k], None, which) for k in kinds]
        print(f"| {which} alone | " + " | ".join(cells) + " |")
    for label, config in SETTINGS:
        cells = [_cell(by_kind[k], config, "hybrid") for k in kinds]
        print(f"| {label} | " + " | ".join(cells) + " |")
    index.close()


if __name__ == "__main__":
    main()
