"""Fine-tune the packaged MiniLM on pairs mined from the library (`paperchat embedder train`).

The library says what each of its texts is about, in pairs (`mine_pairs`):

- a paper's title and its abstract;
- a section's heading and its passages (headings that say what the section
  is about, not "Introduction");
- a figure's or table's caption and the passage that cites it ("Figure 3");
- a name's long form and the abstract sentence that defines it
  ("cone-beam computed tomography (CBCT) ...");
- the sentence that cites a reference ("... as in [12]") and the abstract of
  that reference, when it is a paper of the library.

Each pair a step reaches gets a hard negative: the best BM25 passage for its
first text from another paper (`hard_negative`), looked up as training goes, so
a large library costs no search for pairs a time budget never reaches. The
model learns with in-batch negatives and those (sentence-transformers'
MultipleNegativesRankingLoss), on the CPU, for a bounded time or number of
steps, deterministically for a seed (`fine_tune`). Papers whose questions
evaluate a model are never in a pair.

The result is a versioned folder (`train_embedder`): the model as
sentence-transformers saves it, its int8 ONNX graph built as the packaged
model's is (`ingest.embedders.onnx_embedder`), and a model card
(`card.json`, `README.md`) giving the data, the steps and the figures before
and after. `PAPERCHAT_EMBEDDER_MODEL` names the folder to use it.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ingest.embedders.base import (
    MODEL_MAX_TOKENS,
    MODEL_NAME,
    EmbedderError,
    model_dir,
    normalise,
    stay_offline,
)
from ingest.embedders.trained import CARD

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from ingest.index.catalog import Catalog
    from ingest.index.lexical.bm25 import LexicalIndex

PAIR_KINDS = ("title", "section", "caption", "name", "citation")
# Headings that name a part of every paper rather than what this one is about.
GENERIC_HEADINGS = frozenset(
    (
        "abstract", "introduction", "background", "related", "work", "works", "preliminaries",
        "method", "methods", "methodology", "approach", "experiments", "experiment",
        "experimental", "setup", "results", "discussion", "conclusion", "conclusions",
        "future", "limitations", "acknowledgments", "acknowledgements", "references",
        "appendix", "evaluation", "analysis", "overview", "summary", "and", "the", "of",
    )
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
_FIGURE = re.compile(r"^\s*(fig(?:ure)?|table)\.?\s*(\d+)", re.IGNORECASE)
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Pair:
    anchor: str  # what a searcher might write: a title, a heading, a long form
    positive: str  # the passage it is about
    kind: str  # one of PAIR_KINDS
    paper_id: str  # the paper of the positive


@dataclass(frozen=True)
class TrainingConfig:
    """How long and how the model learns."""

    seed: int = 13
    batch_size: int = 32
    learning_rate: float = 3e-5
    max_seconds: float = 600.0  # stop after the step that passes this; 0: no time limit
    max_steps: int = 0  # 0: as many as the pairs and the time give
    epochs: int = 1
    max_tokens: int = 128  # word pieces read of each text while training
    warmup_share: float = 0.1
    threads: int | None = None  # torch threads; None: torch's default
    pairs_per_kind: int = 50_000  # at most this many pairs of one kind

    def __post_init__(self) -> None:
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2: the other pairs are the negatives")
        if self.learning_rate <= 0 or self.max_seconds < 0 or self.max_steps < 0:
            raise ValueError("learning_rate must be above 0, max_seconds and max_steps at least 0")
        if self.epochs < 1 or self.max_tokens < 8 or not 0 <= self.warmup_share < 1:
            raise ValueError("epochs at least 1, max_tokens at least 8, warmup_share in [0, 1)")


@dataclass
class TrainingRun:
    """What `fine_tune` did."""

    steps: int = 0
    pairs_seen: int = 0
    seconds: float = 0.0
    stopped_by: str = "pairs"  # "pairs", "steps" or "time"
    first_loss: float | None = None
    last_loss: float | None = None
    # pairs a step found a BM25 hard negative for (a batch uses them when all its pairs have one)
    with_hard_negative: int = 0


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _meaningful_heading(section: str) -> str:
    """The heading without its number, or "" for one every paper has."""
    heading = re.sub(r"^[\dIVX.\s]+", "", section).strip()
    words = heading.lower().split()
    if len(words) < 2 or set(words) <= GENERIC_HEADINGS:
        return ""
    return heading


def mine_pairs(catalog: Catalog, excluded: set[str], per_kind: int, seed: int) -> list[Pair]:
    """Every pair the library gives (see the module's docstring), none from an `excluded`
    paper; at most `per_kind` of one kind, chosen by `seed`."""
    found: dict[str, list[Pair]] = {kind: [] for kind in PAIR_KINDS}
    abstracts: dict[str, str] = {}
    for paper_id, title, abstract in catalog.db.execute("SELECT id, title, abstract FROM papers"):
        if paper_id in excluded or not abstract:
            continue
        abstracts[paper_id] = abstract
        if title:
            found["title"].append(Pair(title, abstract, "title", paper_id))
    body: dict[str, list[tuple[str, str, str]]] = {}
    rows = catalog.db.execute(
        "SELECT paper_id, kind, section, text FROM chunks WHERE kind <> 'abstract' "
        "ORDER BY paper_id, number"
    )
    for paper_id, kind, section, text in rows:
        if paper_id not in excluded:
            body.setdefault(paper_id, []).append((kind, section or "", text))
    for paper_id, chunks in body.items():
        found["section"] += _section_pairs(paper_id, chunks)
        found["caption"] += _caption_pairs(paper_id, chunks)
    names = catalog.db.execute(
        "SELECT paper_id, name, long_form FROM names WHERE long_form IS NOT NULL "
        "AND long_form <> ''"
    )
    for paper_id, name, long_form in names:
        if paper_id in abstracts:
            sentence = next((s for s in _sentences(abstracts[paper_id]) if name in s), "")
            if sentence and long_form.lower() in sentence.lower():
                found["name"].append(Pair(long_form, sentence, "name", paper_id))
    found["citation"] = _citation_pairs(catalog, body, abstracts, excluded)
    chooser = random.Random(seed)
    pairs = []
    for kind in PAIR_KINDS:
        unique = list({(p.anchor, p.positive): p for p in found[kind]}.values())
        if len(unique) > per_kind:
            unique = chooser.sample(unique, per_kind)
        pairs += unique
    return pairs


def _section_pairs(paper_id: str, chunks: Sequence[tuple[str, str, str]]) -> list[Pair]:
    pairs = []
    seen: set[str] = set()
    for kind, section, text in chunks:
        heading = _meaningful_heading(section)
        if kind == "fulltext" and heading and heading not in seen:
            seen.add(heading)  # a section's first passage says what it is about
            pairs.append(Pair(heading, text, "section", paper_id))
    return pairs


def _caption_pairs(paper_id: str, chunks: Sequence[tuple[str, str, str]]) -> list[Pair]:
    pairs = []
    passages = [text for kind, _, text in chunks if kind == "fulltext"]
    for kind, _, text in chunks:
        label = _FIGURE.match(text) if kind != "fulltext" else None
        if label is None:
            continue
        word = "table" if label.group(1).lower() == "table" else "fig"
        cited = re.compile(rf"\b{word}(?:ure)?\.?\s*{label.group(2)}\b", re.IGNORECASE)
        citing = next((p for p in passages if cited.search(p) and p != text), None)
        if citing is not None:
            pairs.append(Pair(text, citing, "caption", paper_id))
    return pairs


def _citation_pairs(
    catalog: Catalog,
    body: dict[str, list[tuple[str, str, str]]],
    abstracts: dict[str, str],
    excluded: set[str],
) -> list[Pair]:
    """The sentence citing a numbered reference ("[12]") that is a paper of the library,
    with that paper's abstract."""
    pairs = []
    rows = catalog.db.execute(
        "SELECT paper_id, position, arxiv_id FROM paper_references WHERE arxiv_id IS NOT NULL "
        "AND arxiv_id <> ''"
    )
    for paper_id, position, arxiv_id in rows:
        cited = catalog.resolve_id(arxiv_id)
        if paper_id not in body or cited is None or cited in excluded or cited not in abstracts:
            continue
        marker = re.compile(rf"\[[^\]]*\b{int(position) + 1}\b[^\]]*\]")
        for _, _, text in body[paper_id]:
            sentence = next((s for s in _sentences(text) if marker.search(s)), None)
            if sentence is not None:
                pairs.append(Pair(sentence, abstracts[cited], "citation", cited))
                break
    return pairs


def hard_negative(
    pair: Pair, lexical: LexicalIndex, catalog: Catalog, excluded: set[str]
) -> str | None:
    """The best BM25 passage for the pair's anchor from another paper (not an excluded
    one); None when BM25 finds none."""
    hits = lexical.search(pair.anchor, 5, fix_typos=False)
    other = next((c for c, p, _ in hits if p != pair.paper_id and p not in excluded), None)
    if other is None:
        return None
    row = catalog.chunk_rows([other]).get(other)
    return row.text if row is not None else None


def load_model(directory: Path, max_tokens: int) -> SentenceTransformer:
    stay_offline()
    from sentence_transformers import SentenceTransformer

    from ingest.embedders.onnx_export import quiet_progress_bars

    try:
        with quiet_progress_bars():
            model = SentenceTransformer(str(directory), device="cpu", local_files_only=True)
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot load model from {str(directory)!r}: {e}") from e
    model.max_seq_length = max_tokens
    return model


def fine_tune(
    model: SentenceTransformer,
    pairs: Sequence[tuple[str, str]],
    config: TrainingConfig,
    progress: Progress | None = None,
    negative: Callable[[int], str | None] | None = None,
) -> TrainingRun:
    """Train `model` in place on (anchor, positive) pairs with in-batch negatives and, for
    the pairs a step reaches, `negative(index)`'s hard negative, in an order and with
    dropout fixed by `config.seed`.

    The learning rate warms up over `warmup_share` of the steps the run will take and then
    falls linearly to 0 at its last: all the batches, `max_steps`, or, with only a time
    budget, as many as fit in it at the pace so far (judged again after every step from
    the third: the first steps are the slowest)."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    order = random.Random(config.seed)
    batches: list[list[int]] = []
    for _ in range(config.epochs):
        shuffled = list(range(len(pairs)))
        order.shuffle(shuffled)
        size = config.batch_size
        batches += [shuffled[i : i + size] for i in range(0, len(shuffled) - size + 1, size)]
    if config.max_steps:
        batches = batches[: config.max_steps]
    if not batches:
        raise EmbedderError(
            f"{len(pairs)} pairs make no batch of {config.batch_size}: the library is too "
            "small to train on (or lower --batch-size)"
        )
    loss = MultipleNegativesRankingLoss(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    horizon = _Horizon(len(batches), config.warmup_share)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, horizon.rate)
    paced = bool(config.max_seconds) and not config.max_steps
    model.train()
    run = TrainingRun()
    started = time.perf_counter()
    for number, batch in enumerate(batches, start=1):
        anchors = [pairs[i][0] for i in batch]
        positives = [pairs[i][1] for i in batch]
        found = [negative(i) for i in batch] if negative is not None else []
        # The hard negatives join the batch's candidates only when every pair has one.
        negatives = [n for n in found if n is not None]
        run.with_hard_negative += len(negatives)
        columns = [anchors, positives] + ([negatives] if len(negatives) == len(batch) else [])
        features = [model.preprocess(texts) for texts in columns]
        value = loss(features, torch.empty(0))
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        schedule.step()
        run.steps, run.pairs_seen = number, run.pairs_seen + len(batch)
        run.last_loss = float(value.detach())
        run.first_loss = run.first_loss if run.first_loss is not None else run.last_loss
        run.seconds = time.perf_counter() - started
        if paced and number >= _PACE_STEPS:
            horizon.fit(int(config.max_seconds / (run.seconds / number)))
        if progress is not None and (number % 10 == 0 or number == len(batches)):
            progress(f"step {number}/{horizon.steps}, loss {run.last_loss:.3f}, {run.seconds:.0f}s")
        if config.max_seconds and run.seconds >= config.max_seconds and number < len(batches):
            run.stopped_by = "time"
            break
    else:
        run.stopped_by = "steps" if config.max_steps else "pairs"
    model.eval()
    return run


_PACE_STEPS = 3  # steps timed to learn how many fit in a time budget


class _Horizon:
    """The learning rate's schedule over the steps a run will take, which a time budget
    learns as it goes: linear warm-up, then linear decay to 0."""

    def __init__(self, steps: int, warmup_share: float) -> None:
        self.batches = self.steps = steps
        self.share = warmup_share

    def fit(self, steps: int) -> None:
        """The run will take `steps`: never more than the batches, nor fewer than paced."""
        self.steps = max(_PACE_STEPS, min(self.batches, steps))

    def rate(self, step: int) -> float:
        warmup = max(1, int(self.steps * self.share))
        return min((step + 1) / warmup, max(0.0, (self.steps - step) / self.steps))


@dataclass(frozen=True)
class HeldOut:
    """Questions a model is judged on: their papers are in no pair."""

    questions: tuple[tuple[str, str], ...]  # (question, gold paper id)
    pool: tuple[str, ...]  # the papers searched: the gold ones and others of the library

    @property
    def papers(self) -> set[str]:
        return {gold for _, gold in self.questions}


def read_questions(paths: Iterable[Path]) -> list[tuple[str, str]]:
    """(question, gold paper id) of JSON-lines question files (`question`, `gold_id`);
    unanswerable questions (no gold paper) are left out."""
    found = []
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise EmbedderError(f"cannot read questions {str(path)!r}: {e}") from e
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                question, gold = row["question"], row.get("gold_id")
            except (ValueError, KeyError, TypeError) as e:
                raise EmbedderError(f"{path}:{number}: not a question with gold_id: {e}") from e
            if gold:
                found.append((str(question), str(gold)))
    return found


def held_out(
    catalog: Catalog, questions: Sequence[tuple[str, str]], others: int, seed: int
) -> HeldOut:
    """The questions whose gold paper the library holds, and a pool of their papers and
    `others` more, chosen by `seed`."""
    kept = []
    for question, gold in questions:
        resolved = catalog.resolve_id(gold)
        if resolved is not None:
            kept.append((question, resolved))
    golds = {gold for _, gold in kept}
    rest = sorted(str(r[0]) for r in catalog.db.execute("SELECT id FROM papers"))
    rest = [p for p in rest if p not in golds]
    chosen = random.Random(seed).sample(rest, min(others, len(rest)))
    return HeldOut(tuple(kept), tuple(sorted(golds) + chosen))


def dense_recall(
    model: SentenceTransformer, catalog: Catalog, held: HeldOut, at: int = 5
) -> float | None:
    """Recall@`at` of the gold paper among the pool's papers, each scored by its best
    abstract chunk's cosine to the question; None without questions."""
    if not held.questions:
        return None
    texts, owners = [], []
    for paper in held.pool:
        for chunk in catalog.unit_chunks(paper, "abstract"):
            texts.append(chunk.text)
            owners.append(paper)
    documents = _encode(model, texts)
    queries = _encode(model, [q for q, _ in held.questions])
    papers = sorted(set(owners))
    column = {p: i for i, p in enumerate(papers)}
    hits = 0
    similarity = queries @ documents.T
    for row, (_, gold) in enumerate(held.questions):
        best = np.full(len(papers), -2.0, dtype=np.float32)
        for j, owner in enumerate(owners):
            best[column[owner]] = max(best[column[owner]], similarity[row, j])
        ranked = np.argsort(-best, kind="stable")[:at]
        hits += any(papers[i] == gold for i in ranked)
    return hits / len(held.questions)


def _encode(model: SentenceTransformer, texts: Sequence[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vectors = model.encode(
        list(texts), batch_size=32, convert_to_numpy=True, show_progress_bar=False
    )
    return normalise(vectors)


@dataclass
class TrainedModel:
    directory: Path
    card: dict[str, Any] = field(default_factory=dict)


def train_embedder(
    catalog: Catalog,
    lexical: LexicalIndex,
    out_root: Path,
    questions: Sequence[tuple[str, str]],
    config: TrainingConfig,
    *,
    models_cache: Path,
    pool: int = 1000,
    base: Path | None = None,
    progress: Progress | None = None,
) -> TrainedModel:
    """Mine, train, judge before and after on `questions` (whose papers are in no pair),
    export int8 ONNX and write the versioned folder under `out_root` with its card."""
    from ingest.embedders.onnx_embedder import cached_onnx_model
    from ingest.embedders.onnx_export import quiet_progress_bars

    say = progress or (lambda _: None)
    base = base or model_dir()
    started = time.perf_counter()
    held = held_out(catalog, questions, pool, config.seed)
    excluded = held.papers
    say(f"mining pairs ({len(excluded)} papers held out for evaluation)")
    pairs = mine_pairs(catalog, excluded, config.pairs_per_kind, config.seed)
    say(f"{len(pairs)} pairs")
    mined_seconds = time.perf_counter() - started
    if config.threads:
        import torch

        torch.set_num_threads(config.threads)
    model = load_model(base, config.max_tokens)
    say("judging the base model")
    before = dense_recall(model, catalog, held)
    run = fine_tune(
        model,
        [(p.anchor, p.positive) for p in pairs],
        config,
        say,
        lambda index: hard_negative(pairs[index], lexical, catalog, excluded),
    )
    model.max_seq_length = MODEL_MAX_TOKENS
    say("judging the trained model")
    after = dense_recall(model, catalog, held)
    now = datetime.now(UTC).replace(microsecond=0)
    version = f"{now.strftime('%Y%m%dT%H%M%SZ')}-s{config.seed}"
    directory = out_root / f"minilm-library-{version}"
    try:
        out_root.mkdir(parents=True, exist_ok=True)
        with quiet_progress_bars():
            model.save(str(directory))
    except OSError as e:
        raise EmbedderError(f"cannot write the model to {str(directory)!r}: {e}") from e
    say("exporting int8 ONNX")
    onnx = cached_onnx_model(directory, models_cache, quantize=True)
    counts = {kind: sum(1 for p in pairs if p.kind == kind) for kind in PAIR_KINDS}
    card = {
        "name": f"paperchat/minilm-library-{version}",
        "version": version,
        "base": MODEL_NAME if base == model_dir() else str(base),
        "created": now.isoformat().replace("+00:00", "Z"),
        "data": {
            "papers": _count(catalog, "papers"),
            "pairs": counts,
            "held_out_papers": len(excluded),
        },
        "training": {**asdict(config), **asdict(run), "mining_seconds": round(mined_seconds, 1)},
        "evaluation": {
            "questions": len(held.questions),
            "pool_papers": len(held.pool),
            "dense_recall_at_5_before": before,
            "dense_recall_at_5_after": after,
        },
        "onnx_int8": {"file": onnx.name, "bytes": onnx.stat().st_size},
    }
    (directory / CARD).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (directory / "README.md").write_text(model_card(card), encoding="utf-8")
    return TrainedModel(directory, card)


def _count(catalog: Catalog, table: str) -> int:
    return int(catalog.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def model_card(card: dict[str, Any]) -> str:
    """The card in words, for README.md."""
    data, training, evaluation = card["data"], card["training"], card["evaluation"]
    pairs = ", ".join(f"{n:,} {kind}" for kind, n in data["pairs"].items())

    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    return "\n".join(
        [
            f"# {card['name']}",
            "",
            f"{card['base']} fine-tuned on pairs mined from a library of {data['papers']:,} "
            "papers by `paperchat embedder train`, for retrieval over that library.",
            "",
            "## Data",
            "",
            f"Pairs: {pairs}. {data['held_out_papers']:,} papers whose "
            "questions judge the model are in no pair.",
            "",
            "## Training",
            "",
            f"MultipleNegativesRankingLoss (in-batch and hard negatives), batch "
            f"{training['batch_size']}, learning rate {training['learning_rate']}, "
            f"{training['max_tokens']} word pieces per text, seed {training['seed']}: "
            f"{training['steps']} steps ({training['pairs_seen']:,} pairs) in "
            f"{training['seconds']:.0f} s on the CPU, stopped by {training['stopped_by']}; "
            f"{training['with_hard_negative']:,} of them with a hard negative (BM25's best "
            "passage from another paper); "
            f"loss {figure(training['first_loss'])} -> {figure(training['last_loss'])}.",
            "",
            "## Figures",
            "",
            f"Dense recall@5 of the gold paper for {evaluation['questions']} held-out questions "
            f"among {evaluation['pool_papers']:,} papers: "
            f"{figure(evaluation['dense_recall_at_5_before'])} before, "
            f"{figure(evaluation['dense_recall_at_5_after'])} after.",
            "",
            f"int8 ONNX graph: {card['onnx_int8']['file']}, "
            f"{card['onnx_int8']['bytes'] / 1e6:.1f} MB.",
            "",
            "Use it with `PAPERCHAT_EMBEDDER_MODEL=<this folder>`, then `paperchat index reembed`.",
            "",
        ]
    )
