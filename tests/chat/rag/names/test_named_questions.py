"""Questions that name a method: recognised case-sensitively, expanded, their papers first;
everyday questions and gibberish refused."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from wordfreq import zipf_frequency

from chat.library.papers import find_papers
from chat.rag.extractive.answerer import extract_answer
from chat.rag.names.matches import NameMatch, Recognised, named_phrases
from chat.rag.names.recognition import NameRecogniser
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.relevance import NOT_SCHOLARLY, RelevancePolicy
from chat.settings import Settings
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.index.lexical.analysis import terms
from ingest.index.name_catalog import NameCatalog
from ingest.index.records import Chunk, Paper
from ingest.pipeline import Pipeline
from ingest.progress import NoProgress
from ingest.report import IngestReport
from ingest.sources.units import metadata_items, pdf_items
from tests.support.data import ABSTRACTS, PDFS

pytestmark = pytest.mark.timeout(900)

ZERO = "1910.02054"
FID = "2007.01282"
PDF_FILES = ("1910.02054v3.pdf", "2007.01282v2.pdf")
POLICY = RelevancePolicy()


def _abstracts(path: Path, zero_shot: int, others: int, fid_titles: int = 3) -> Path:
    """Papers that print "zero" in lower case (zero-shot, zero-order...), papers whose
    titles name FID (the image metric, which the index stems as it stems FiD), and some
    others."""
    kept: list[str] = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            text = record["abstract"]
            if "FID" in record["title"].replace(":", " ").split() and fid_titles:
                kept.append(line)
                fid_titles -= 1
            elif "zero" in text.split() and zero_shot:
                kept.append(line)
                zero_shot -= 1
            elif others:
                kept.append(line)
                others -= 1
            if not zero_shot and not others and not fid_titles:
                break
    path.write_text("".join(kept), encoding="utf-8")
    return path


def _ingest(index: Wiring, abstracts: Path, pdfs: Path) -> None:
    embedder = index.embedder
    pipeline = Pipeline(index.catalog, index.indexer, embedder.embed, NoProgress())
    pipeline.run(metadata_items(abstracts, embedder.count_tokens), IngestReport())
    pipeline.run(pdf_items([pdfs], index.open_catalog(), embedder.count_tokens), IngestReport())


@pytest.fixture(scope="module")
def named_index(tmp_path_factory: pytest.TempPathFactory, models_cache: Path) -> Iterator[Wiring]:
    """ZeRO's and FiD's PDFs among abstracts where "zero" is a common word."""
    root = tmp_path_factory.mktemp("named-index")
    abstracts = _abstracts(root / "abstracts.jsonl", zero_shot=60, others=60)
    pdfs = root / "pdfs"
    pdfs.mkdir()
    for name in PDF_FILES:
        shutil.copy(PDFS / name, pdfs / name)
    index = Wiring(Settings(data_dir=root / "data", models_cache=models_cache))
    _ingest(index, abstracts, pdfs)
    index.abstracts, index.pdfs = abstracts, pdfs  # type: ignore[attr-defined] # for re-ingest
    yield index
    index.close()


def test_what_does_fid_stand_for_finds_the_fid_paper_first(named_index: Wiring) -> None:
    retrieved = named_index.retriever.retrieve("What does FiD stand for?")

    assert retrieved.paper_ranking()[0] == FID
    assert retrieved.sources[0].id == FID
    assert POLICY.judge(retrieved).relevant
    assert "Fusion-in-Decoder" in retrieved.names.long_forms()
    assert "Fusion-in-Decoder" in retrieved.names.long_forms_by_term()["fid"]


def test_a_paper_about_fid_the_metric_is_not_taken_for_fid(named_index: Wiring) -> None:
    """Stemmed alike, "FiD" and "FID" are one index term; only FiD's passages print the
    name in the case the question asks it in, and the answer says what it stands for."""
    retrieved = named_index.retriever.retrieve("What does FiD stand for?")
    abstracts: Path = named_index.abstracts  # type: ignore[attr-defined]
    records = [json.loads(line) for line in abstracts.read_text().splitlines()]
    metric = [r["id"] for r in records if "FID" in r["title"].replace(":", " ").split()]
    answer = "".join(extract_answer("What does FiD stand for?", retrieved.sources))

    assert metric  # the fixture holds papers titled with FID
    ranking = retrieved.paper_ranking()
    assert all(ranking.index(FID) < ranking.index(p) for p in metric if p in ranking)
    assert not any(s.id in metric for s in retrieved.sources[:3])
    assert "Fusion-in-Decoder" in answer.split("[")[0]
    assert retrieved.names.cased() == {"fid": "FiD"}


def test_what_problem_does_zero_solve_finds_a_zero_passage(named_index: Wiring) -> None:
    retrieved = named_index.retriever.retrieve("What problem does ZeRO solve?")

    assert retrieved.sources[0].id == ZERO
    assert "ZeRO" in retrieved.sources[0].text
    assert POLICY.judge(retrieved).relevant


def test_zero_in_lower_case_is_the_word_not_the_method(named_index: Wiring) -> None:
    recognise = named_index.retriever.names
    assert recognise is not None

    method = recognise.recognise("What problem does ZeRO solve?")
    word = recognise.recognise("what problem does zero solve?")
    folded = recognise.recognise("what does fid stand for")

    assert [m.name for m in method.matches] == ["ZeRO"]
    assert ZERO in method.boosted
    assert word.matches == ()
    # In lower case, the name the papers print most: three papers print FID (Frechet), and
    # FiD's own paper writes "Fusion-in-Decoder".
    assert [m.name for m in folded.matches] == ["FID"]


def test_a_written_out_long_form_finds_its_name(named_index: Wiring) -> None:
    recognise = named_index.retriever.names
    assert recognise is not None

    found = recognise.recognise("How does the zero redundancy optimizer save memory?")

    assert [m.name for m in found.matches] == ["ZeRO"]


def test_a_written_out_long_form_weighs_as_its_words_in_the_question(
    named_index: Wiring,
) -> None:
    retriever = named_index.retriever
    question = "How does the zero redundancy optimizer save memory?"

    retrieved = retriever.retrieve(question)
    (match,) = retrieved.names.matches

    assert match.written.lower() == "zero redundancy optimizer"
    share = retrieved.names.share(match, retrieved.question_idf)
    bare = retrieved.names.share(dataclasses.replace(match, written=""), retrieved.question_idf)
    assert share > bare
    assert share >= retriever.config.names.min_share


def test_a_name_among_several_topics_neither_expands_nor_boosts(named_index: Wiring) -> None:
    retriever = named_index.retriever
    config = retriever.config
    unboosted = retriever.with_config(
        dataclasses.replace(config, names=dataclasses.replace(config.names, boost=0.0))
    )
    question = (
        "Which distributed training methods combine ZeRO with tensor slicing, pipeline"
        " stages, activation recomputation and mixed precision to reach high throughput?"
    )

    retrieved = retriever.retrieve(question)
    steering = retrieved.names.steering(
        retrieved.question_idf, config.names.min_share, config.names.max_steering_definers
    )

    assert [m.name for m in retrieved.names.matches] == ["ZeRO"]
    assert steering.matches == ()
    assert steering.boosting == ()
    assert [c.chunk_id for c in retrieved.ranked] == [
        c.chunk_id for c in unboosted.retrieve(question).ranked
    ]


def test_the_boost_is_what_puts_the_defining_paper_first(named_index: Wiring) -> None:
    retriever = named_index.retriever
    config = retriever.config
    unboosted = retriever.with_config(
        dataclasses.replace(config, names=dataclasses.replace(config.names, boost=0.0))
    )
    question = "ZeRO results"

    with_boost = retriever.retrieve(question).paper_ranking()
    without = unboosted.retrieve(question).paper_ranking()

    assert with_boost[0] == ZERO
    assert with_boost.index(ZERO) <= without.index(ZERO) if ZERO in without else True


def test_best_pizza_in_naples_is_refused_as_everyday(named_index: Wiring) -> None:
    retrieved = named_index.retriever.retrieve("Best pizza in Naples?")

    judged = POLICY.judge(retrieved)

    assert (judged.relevant, judged.reason) == (False, NOT_SCHOLARLY)


def test_gibberish_search_finds_no_papers(named_index: Wiring) -> None:
    found = find_papers(named_index.retriever, "zzzxxqq", 20)
    sensible = find_papers(named_index.retriever, "Fusion-in-Decoder passages", 20)

    assert found.results == []
    assert found.no_match_reason
    assert sensible.results[0].id == FID
    assert sensible.no_match_reason is None


def test_a_real_word_beside_gibberish_finds_no_papers_and_alone_lists_only_its_papers(
    named_index: Wiring,
) -> None:
    """'asdfgh qwerty': one word of a single passage does not make the search match;
    searched alone, it lists the papers holding it, not the nearest others too."""
    retriever = named_index.retriever
    catalog = named_index.catalog
    held: dict[str, set[str]] = {}
    for paper_id, unit in catalog.all_units():
        for chunk in catalog.unit_chunks(paper_id, unit):
            held.setdefault(paper_id, set()).update(terms(f"{chunk.paper.title} {chunk.text}"))
    titles = [paper.title for p in held if (paper := catalog.get_paper(p)) is not None]
    # An everyday English word that one paper happens to use: no scholarly term.
    words = sorted({w.lower() for t in titles for w in t.split() if w.isalpha() and len(w) > 4})
    words = [w for w in words if zipf_frequency(w, "en") >= 4.0]
    frequency = retriever.lexical.document_frequencies([t for w in words for t in terms(w)])
    rare = next(w for w in words if len(terms(w)) == 1 and frequency[terms(w)[0]] == 1)

    beside = find_papers(retriever, f"{rare} qzxvbnm", 20)
    alone = find_papers(retriever, rare, 20)

    assert beside.results == []
    assert beside.no_match_reason
    assert alone.results
    assert all(terms(rare)[0] in held[result.id] for result in alone.results), rare


def test_names_survive_reingest_and_are_backfilled_without_reembedding(
    named_index: Wiring,
) -> None:
    names = NameCatalog(named_index.catalog)
    before = names.of_paper(ZERO)
    chunks = named_index.catalog.chunk_count()

    _ingest(named_index, named_index.abstracts, named_index.pdfs)  # type: ignore[attr-defined]
    after_reingest = names.of_paper(ZERO)
    with named_index.catalog.transaction():
        named_index.catalog.db.execute("DELETE FROM names")
        named_index.catalog.db.execute("DELETE FROM meta WHERE key = 'names_version'")
    mined = names.backfill()

    assert ("ZeRO", "Zero Redundancy Optimizer") in {(r.name, r.long_form) for r in before}
    assert after_reingest == before
    assert mined == named_index.catalog.stats()["papers"]
    assert names.of_paper(ZERO) == before
    assert named_index.catalog.chunk_count() == chunks


def test_retrieval_without_a_names_table_still_works(named_index: Wiring) -> None:
    plain = named_index.retriever
    bare = type(plain)(plain.catalog, plain.store, plain.lexical, plain.embedder, RetrievalConfig())

    retrieved = bare.retrieve("What does FiD stand for?")

    assert retrieved.names.matches == ()
    assert retrieved.sources


def test_a_defined_name_spelling_a_word_is_scholarly_only_when_nearly_all_the_question(
    named_index: Wiring,
) -> None:
    retriever = named_index.retriever
    nba = NameMatch("NBA", "NBA", ("National Basketball Association",), ("x",), marked=False)
    names = Recognised((nba,), papers_in_index=named_index.catalog.stats()["papers"])

    _, in_passing = retriever.question_statistics(
        "Which NBA team has the best record this season?", names
    )
    _, alone = retriever.question_statistics("What is NBA?", names)
    _, marked = retriever.question_statistics(
        "Which NBA team has the best record this season?",
        Recognised((dataclasses.replace(nba, marked=True),), papers_in_index=names.papers_in_index),
    )

    assert "nba" not in in_passing
    assert "nba" in alone
    assert "nba" in marked


def test_a_title_name_of_two_words_is_recognised_beside_the_name_it_builds_on(
    tmp_path: Path,
) -> None:
    """ "CAV-MAE Sync" is the method of the paper whose title gives it; the question about
    it raises that paper, not only the one that coined CAV-MAE."""
    catalog = Catalog(tmp_path / "catalog.sqlite")
    coined = Paper(
        id="2210.07839",
        title="Contrastive Audio-Visual Masked Autoencoder",
        abstract="",
        authors="A. Author",
    )
    sync = Paper(
        id="2505.01237",
        title="CAV-MAE Sync: Improving Audio-Visual Alignment",
        abstract="",
        authors="B. Author",
    )
    texts = {
        coined: "We propose the Contrastive Audio-Visual Masked Autoencoder (CAV-MAE).",
        sync: "We build on CAV-MAE and align audio with video frames.",
    }  # fmt: skip
    for paper, text in texts.items():
        chunk = Chunk(f"{paper.id}#abstract-0", paper.id, "abstract", 0, text, "Abstract", 0, 0,
                      paper)  # fmt: skip
        with catalog.transaction():
            catalog.replace_unit(paper, "metadata", "abstract", "d", [chunk])
    names = NameCatalog(catalog)
    names.backfill()

    asked = NameRecogniser(names).recognise(
        "What changes does CAV-MAE Sync make to the original CAV-MAE?"
    )
    alone = NameRecogniser(names).recognise("What is CAV-MAE?")

    by_name = {m.name: m for m in asked.matches}
    assert set(by_name) == {"CAV-MAE", "CAV-MAE Sync"}
    assert by_name["CAV-MAE Sync"].introducers == (sync.id,)
    assert {sync.id, coined.id} <= asked.boosted
    assert [m.name for m in alone.matches] == ["CAV-MAE"]
    assert named_phrases("Is CAV-MAE Sync better than CAV-MAE?", ["CAV-MAE"]) == ["CAV-MAE Sync"]
