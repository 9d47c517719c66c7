from __future__ import annotations

import gzip
import json
import re
from collections.abc import Sequence

import pytest

from chat.rag.extractive.answerer import compose, extract_answer
from chat.rag.sources import Source
from ingest.pdf.parsing import parse_pdf
from tests.support.data import ABSTRACTS, EVAL, PDFS
from tests.support.sources import make_source

pytestmark = pytest.mark.timeout(120)

_REFERENCE_MARK = re.compile(r"\s?\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")


def _source(n: int, paper_id: str, text: str, *, kind: str = "fulltext") -> Source:
    abstract = kind == "abstract"
    return make_source(
        n,
        paper_id,
        text,
        is_arxiv=not paper_id.startswith("doc"),
        kind=kind,
        section="Abstract" if abstract else "Results",
        page=None if abstract else 3,
        title=f"Paper {paper_id}",
        score=1.0 / n,
    )


def _abstract_sources(count: int) -> list[tuple[str, list[Source]]]:
    """Dev questions with their gold abstract first and two other abstracts after it."""
    questions = (EVAL / "questions-abstracts.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in questions]
    rows = [r for r in rows if r["gold_id"]][:count]
    wanted = {r["gold_id"] for r in rows}
    texts: dict[str, str] = {}
    others: list[str] = []
    with gzip.open(ABSTRACTS, "rt", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            text = " ".join(record["title"].split()) + "\n\n" + " ".join(record["abstract"].split())
            if record["id"] in wanted:
                texts[record["id"]] = text
            elif len(others) < 2:
                others.append(text)
            if len(texts) == len(wanted):
                break
    return [
        (
            r["question"],
            [
                _source(n, pid, text, kind="abstract")
                for n, (pid, text) in enumerate(
                    [(r["gold_id"], texts[r["gold_id"]]), ("0704.0001", others[0]),
                     ("0704.0002", others[1])],
                    start=1,
                )
            ],
        )
        for r in rows
    ]  # fmt: skip


def _pdf_sources() -> list[Source]:
    parsed = parse_pdf(str(PDFS / "1706.03762v7.pdf"))
    blocks = [b for b in parsed.blocks if not b.is_references and len(b.text) > 200]
    return [_source(n, "1706.03762", b.text) for n, b in enumerate(blocks[:40], start=1)]


def _sentences(pieces: Sequence[str]) -> list[tuple[str, str]]:
    """(sentence, citation) for every streamed piece."""
    found = [re.fullmatch(r"(.+) (\[[^\]]+\])\s*", piece, re.DOTALL) for piece in pieces]
    return [(m.group(1), m.group(2)) for m in found if m]


def _normal(text: str) -> str:
    return " ".join(_REFERENCE_MARK.sub("", " ".join(text.split())).split())


def test_every_sentence_is_quoted_verbatim_from_the_source_it_cites() -> None:
    cases = _abstract_sources(12)
    pdf_sources = _pdf_sources()
    for question in (
        "What optimizer and beta values were used?",
        "How many encoder layers?",
        "What is multi-head attention?",
        "How does the Transformer use dropout?",
    ):
        cases.append((question, pdf_sources))  # fmt: skip

    answers = [(compose(q, sources), sources) for q, sources in cases]

    for answer, sources in answers:
        assert answer.sentences
        for sentence in answer.sentences:
            assert sentence.text in _normal(sentence.source.text)
            assert sentence.source in sources
        pieces = answer.pieces()
        quoted = pieces[1:] if answer.lead else pieces
        assert [p.rstrip() for p in quoted] == [
            f"{s.text} {s.source.citation}" for s in answer.sentences
        ]


def test_each_sentence_carries_the_citation_of_the_source_it_came_from() -> None:
    sources = [*_pdf_sources()[:8], _source(9, "doc-5f3a", "Attention layers are cheap to run.")]

    pieces = extract_answer("How is attention computed in the encoder layers?", sources)

    pairs = _sentences(pieces)
    assert len(pairs) == len(pieces) > 0
    for sentence, citation in pairs:
        origins = [s for s in sources if sentence in " ".join(s.text.split())]
        assert citation in {s.citation for s in origins}


def test_the_sentence_that_answers_beats_distractors() -> None:
    sources = [
        _source(1, "2401.00001", "Transformers are popular. The model is trained on many GPUs."),
        _source(
            2,
            "2401.00002",
            "We study retrieval. Our retriever reaches 81.2% top-20 accuracy on Natural "
            "Questions. Retrieval is hard for rare entities.",
        ),
        _source(3, "2401.00003", "Natural language is ambiguous. Questions can be long."),
    ]

    pieces = extract_answer(
        "What top-20 accuracy does the retriever reach on Natural Questions?", sources
    )

    assert pieces[0].startswith("Our retriever reaches 81.2% top-20 accuracy")
    assert pieces[0].rstrip().endswith("[arXiv:2401.00002]")


def test_table_debris_is_never_quoted() -> None:
    sources = [
        _source(
            1,
            "2401.00001",
            "GEO 102,400 66,370 64.81% 66,932 65.36% -0.55% -0.85%. The compression of GEO "
            "files improves with the transform by a small margin.",
        )
    ]

    pieces = extract_answer("How does compression of GEO files change?", sources)

    assert pieces == [
        "The compression of GEO files improves with the transform by a small margin. "
        "[arXiv:2401.00001]"
    ]


def test_a_run_on_blob_of_pseudo_code_is_never_quoted() -> None:
    blob = " ".join(
        f"while not converged t <- t + {i} get gradients then update the biased moment "
        "estimates and correct the bias of the moment estimates"
        for i in range(8)
    )
    sources = [_source(1, "1412.6980", f"{blob}. Adam corrects the bias of the moment estimates.")]

    pieces = extract_answer("How does Adam correct the bias of moment estimates?", sources)

    assert pieces == ["Adam corrects the bias of the moment estimates. [arXiv:1412.6980]"]


def test_near_duplicate_sentences_are_not_both_chosen() -> None:
    repeated = "The encoder uses six identical layers with residual connections."
    sources = [
        _source(1, "2401.00001", f"{repeated} It is fast."),
        _source(2, "2401.00001", f"{repeated} Training takes a day."),
        _source(3, "2401.00002", "The encoder uses six identical residual layers in a stack."),
    ]

    pieces = extract_answer("How many layers does the encoder use?", sources)

    quoted = [sentence for sentence, _ in _sentences(pieces)]
    assert quoted.count(repeated) == 1
    assert "The encoder uses six identical residual layers in a stack." not in quoted


def test_question_sharing_no_term_with_the_sources_gets_no_answer() -> None:
    sources = _abstract_sources(1)[0][1]

    pieces = extract_answer("Which recipe uses saffron and cardamom?", sources)

    assert pieces == []


def test_sentences_are_grouped_by_source_rank_then_kept_in_their_order() -> None:
    sources = [
        _source(1, "2401.00001", "Dropout of 0.1 regularises the decoder. Pruning is unrelated "
                "to this. The decoder also uses label smoothing as regularisation."),
        _source(2, "2401.00002", "Weight decay regularises the decoder weights strongly."),
    ]  # fmt: skip

    pieces = extract_answer("How is the decoder regularised?", sources)

    assert pieces == [
        "Dropout of 0.1 regularises the decoder. [arXiv:2401.00001] ",
        "The decoder also uses label smoothing as regularisation. [arXiv:2401.00001]\n\n",
        "Weight decay regularises the decoder weights strongly. [arXiv:2401.00002]",
    ]


def test_abstract_title_is_quoted_only_when_nothing_else_matches() -> None:
    title = "Sparse Mixture Routing for Speech Translation"
    body = "We describe a new system. It improves results on four benchmarks."
    sources = [_source(1, "2401.00001", f"{title}\n\n{body}", kind="abstract")]

    matched_body = extract_answer("Which system improves results on benchmarks?", sources)
    matched_title = extract_answer("Which paper uses sparse routing for speech?", sources)

    assert title not in "".join(matched_body)
    assert matched_title == [f"{title} [arXiv:2401.00001]"]


def test_number_question_prefers_the_sentence_with_a_number() -> None:
    sources = [
        _source(1, "2401.00001", "Specialist models are trained on confusable classes of JFT. "
                "We trained 61 specialist models on JFT with 300 classes each."),
        _source(2, "2401.00002", "Specialist models for JFT are cheap to train in parallel."),
        _source(3, "2401.00003", "Ensembles of specialist models can overfit on JFT."),
    ]  # fmt: skip

    pieces = extract_answer("How many specialist models were trained for JFT?", sources,
                            max_sentences=1)  # fmt: skip

    assert pieces == [
        "We trained 61 specialist models on JFT with 300 classes each. [arXiv:2401.00001]"
    ]


def test_a_source_gives_at_most_three_sentences_when_there_are_many_sources() -> None:
    many = (
        "Early attention heads attend to the previous token. Middle attention heads attend "
        "to rare tokens such as names. Late attention heads attend to punctuation tokens at "
        "sentence ends. Idle attention heads attend to the separator token. Induction "
        "attention heads attend to tokens that followed earlier copies of the current token."
    )
    sources = [
        _source(1, "2401.00001", many),
        _source(2, "2401.00002", "Attention heads attend to distant tokens of the input."),
        _source(3, "2401.00003", "Some attention heads attend to the first token."),
    ]

    pieces = extract_answer("Which tokens do attention heads attend to?", sources, max_sentences=6)

    citations = [citation for _, citation in _sentences(pieces)]
    assert citations.count("[arXiv:2401.00001]") <= 3
    assert len(pieces) > 3


def _pdf_reference_sources() -> list[Source]:
    parsed = parse_pdf(str(PDFS / "1706.03762v7.pdf"))
    blocks = [b for b in parsed.blocks if b.is_references and b.text.startswith("[")]
    return [_source(n, "1706.03762", b.text) for n, b in enumerate(blocks, start=1)]


def test_a_reference_list_gives_no_sentence_to_quote() -> None:
    sources = _pdf_reference_sources()

    pieces = extract_answer("Which papers on attention and neural machine translation?", sources)

    assert len(sources) >= 3
    assert pieces == []


def test_urls_code_and_figure_ticks_are_never_quoted() -> None:
    sources = [
        _source(1, "2401.00001", "The retriever code is at https://github.com/example/retriever "
                "for the retriever experiments. Figure 2: Retriever accuracy by retriever size. "
                "0.2 0.4 0.6 0.8 retriever accuracy 1 2 4 8 16 32 64. "
                "def retrieve(query): return index.search(encode(query), k=retriever_k)."),
        _source(2, "2401.00002", "The retriever finds the passages that hold the answer."),
    ]  # fmt: skip

    pieces = extract_answer("What does the retriever find?", sources)

    assert pieces == ["The retriever finds the passages that hold the answer. [arXiv:2401.00002]"]


def test_a_sentence_repeated_inside_a_longer_one_is_dropped() -> None:
    short = "Dense passage retrieval encodes questions and passages with two BERT encoders."
    longer = (
        "Dense passage retrieval encodes questions and passages with two BERT encoders, "
        "trained on question and passage pairs."
    )
    sources = [
        _source(1, "2004.04906", f"{longer} Retrieval then uses FAISS.", kind="fulltext"),
        _source(2, "2004.04906", f"Title\n\n{short} It beats BM25.", kind="abstract"),
        _source(3, "2401.00003", "Sparse retrieval encodes passages as bags of words."),
    ]

    pieces = extract_answer("How does dense passage retrieval encode passages?", sources)

    quoted = [sentence for sentence, _ in _sentences(pieces)]
    saying_it = [s for s in quoted if s.startswith("Dense passage retrieval encodes")]
    assert saying_it == [longer]


DEFINITION_SOURCES = [
    _source(1, "2007.01282", "Our model processes passages independently in the encoder but "
            "jointly in the decoder. FiD scales with the number of retrieved passages, which "
            "makes FiD accurate on open-domain question answering benchmarks."),
    _source(2, "2401.00002", "FiD is used as a reader by many retrieval-augmented systems that "
            "answer open-domain questions."),
    _source(3, "2007.01282", "We refer to this approach as Fusion-in-Decoder (FiD). Each "
            "passage is encoded with its question."),
]  # fmt: skip


def test_the_defining_sentence_comes_first_for_a_stand_for_question() -> None:
    pieces = extract_answer("What does FiD stand for?", DEFINITION_SOURCES)

    assert pieces[0].startswith("We refer to this approach as Fusion-in-Decoder (FiD).")
    assert pieces[0].rstrip().endswith("[arXiv:2007.01282]")
    assert len(pieces) > 1


def test_the_sentence_that_says_what_it_is_comes_first_for_a_what_is_question() -> None:
    sources = [
        _source(1, "2112.04426", "Retrieval helps language models. RETRO improves results on "
                "Wikitext103 and the Pile with RETRO retrieval over its database."),
        _source(2, "2112.04426", "Retro is trained on MassiveText. RETRO is a retrieval-enhanced "
                "autoregressive language model that conditions on retrieved chunks."),
    ]  # fmt: skip

    pieces = extract_answer("What is RETRO?", sources)

    assert pieces[0].startswith("RETRO is a retrieval-enhanced autoregressive language model")


def test_a_name_matches_only_in_its_own_case() -> None:
    sources = [
        _source(1, "2401.00001", "Zero-shot transfer solves the problem of missing labels with "
                "zero examples."),
        _source(2, "1910.02054", "ZeRO removes the memory redundancies of data-parallel "
                "training, so that models with a trillion parameters fit."),
        _source(3, "2401.00003", "Zero padding solves the problem of variable lengths."),
    ]  # fmt: skip

    pieces = extract_answer("What problem does ZeRO solve?", sources)

    assert len(pieces) == 1
    assert pieces[0].startswith("ZeRO removes the memory redundancies")


def test_the_lead_line_says_what_the_sources_do_not_cover() -> None:
    sources = [
        _source(1, "2112.04426", "RETRO retrieves neighbours from a database of two trillion "
                "tokens. RETRO attends to the neighbours with chunked cross-attention."),
        _source(2, "2401.00002", "Retrieval databases can be updated without retraining."),
    ]  # fmt: skip

    covered = extract_answer("How does RETRO use its database?", sources)
    partly = extract_answer("How does RETRO use its database for saffron and cardamom?", sources)

    assert not covered[0].startswith("Only part")
    assert partly[0] == (
        "Only part of the question is answered here: nothing below mentions "
        '"saffron" or "cardamom".\n\n'
    )
    assert partly[1:] == covered


def test_the_lead_line_says_when_no_source_defines_the_term() -> None:
    sources = [_source(1, "2401.00001", "We compare our reader with FiD on three benchmarks.")]

    pieces = extract_answer("What does FiD stand for?", sources)

    assert pieces == [
        'None of the sources found defines "FiD"; this is what they say about it.\n\n',
        "We compare our reader with FiD on three benchmarks. [arXiv:2401.00001]",
    ]


def test_the_best_sentence_leads_then_its_paper_then_the_others() -> None:
    sources = [
        _source(1, "2401.00001", "A draft model proposes tokens for speculative decoding, which "
                "the target model accepts or rejects while decoding. Speculative decoding speeds "
                "up decoding because the target model checks all the draft tokens in one pass."),
        _source(2, "2401.00002", "Speculative decoding speeds up decoding of large models "
                "without changing their output distribution."),
        _source(3, "2401.00003", "Beam search keeps several hypotheses at every step. Greedy "
                "search keeps the most likely one. Sampling draws each token at random."),
    ]  # fmt: skip

    pieces = extract_answer("How does speculative decoding speed up decoding?", sources)

    assert [p.split(" ", 2)[:2] for p in pieces] == [
        ["Speculative", "decoding"],
        ["A", "draft"],
        ["Speculative", "decoding"],
    ]
    assert pieces[0].startswith("Speculative decoding speeds up decoding")
    assert pieces[1].endswith("[arXiv:2401.00001]\n\n")


def test_no_lead_line_for_a_word_the_sources_put_otherwise_or_a_name_they_hold() -> None:
    sources = [
        _source(1, "1503.02531", "The distilled net achieved 74 test errors on the digits. "
                "Distillation transfers the knowledge of a large net to a small net."),
        _source(2, "1503.02531", "We train on MNIST with 60,000 training cases."),
    ]  # fmt: skip

    pieces = extract_answer("How many test errors did the distilled small net get?", sources)
    named = extract_answer("How many test errors did the distilled net make on MNIST?", sources)

    assert pieces[0].startswith("The distilled net achieved 74 test errors")
    assert named[0].startswith("The distilled net achieved 74 test errors")


def test_a_name_with_a_typographic_possessive_is_the_name() -> None:
    sources = [
        _source(1, "2401.00001", "Our encoder encodes each passage into a sparse vector."),
        _source(2, "2004.04906", "DPR encodes each passage into a dense vector."),
        _source(3, "2401.00003", "Wikipedia is split into sections by its editors."),
    ]

    pieces = extract_answer("How does DPR\u2019s encoder encode each passage?", sources)

    assert pieces[0].startswith("DPR encodes each passage into a dense vector.")


_VIT_TABLE = (
    "Model | Layers | Hidden size D | Params\n"
    "ViT-Base | 12 | 768 | 86M\n"
    "ViT-Large | 24 | 1024 | 307M\n"
    "ViT-Huge | 32 | 1280 | 632M"
)


def _vit_sources() -> list[Source]:
    table = make_source(2, "2010.11929", _VIT_TABLE, kind="table", section="Table 1", page=5)
    prose = _source(1, "2010.11929", "We scale the ViT-Huge model variant to JFT pre-training.")
    return [prose, table]


def test_a_number_question_gets_the_table_row_holding_its_words() -> None:
    sources = _vit_sources()

    answer = compose("How many parameters does the ViT-Huge model variant have?", sources)
    rows = [s for s in answer.sentences if s.is_row]

    assert [r.text for r in rows] == ["ViT-Huge | 32 | 1280 | 632M"]
    assert rows[0].text in sources[1].text.split("\n")  # quoted as printed
    assert (
        "Table 1 (Model | Layers | Hidden size D | Params): ViT-Huge | 32 | 1280 | 632M "
        "[arXiv:2010.11929]"
    ) in "".join(answer.pieces())


def test_no_table_row_for_a_question_that_asks_for_no_number() -> None:
    answer = compose("Which pre-training did the ViT-Huge model variant use?", _vit_sources())

    assert [(s.text, s.is_row) for s in answer.sentences] == [
        ("We scale the ViT-Huge model variant to JFT pre-training.", False)
    ]


def test_a_row_that_holds_none_of_the_question_is_not_quoted() -> None:
    sources = [
        _source(1, "2401.00001", "Our detector reaches a high accuracy on the new benchmark."),
        make_source(2, "2401.00001", "Split | Images\nTrain | 1,000\nTest | 200", kind="table"),
    ]

    answer = compose("What accuracy does the detector reach on the benchmark?", sources)

    assert [(s.text, s.is_row) for s in answer.sentences] == [
        ("Our detector reaches a high accuracy on the new benchmark.", False)
    ]


def test_a_how_many_question_prefers_the_sentence_giving_that_count() -> None:
    sources = [
        _source(1, "2401.00001",
                "The unseen categories of the ILSVRC detection split are rare ones. "
                "Among 200 object categories, we select 23 categories as unseen."),
        _source(2, "2401.00002", "We evaluate on the ILSVRC detection split of seen classes."),
        _source(3, "2401.00003", "Our ILSVRC detection split follows earlier work."),
    ]  # fmt: skip

    pieces = extract_answer(
        "In the ILSVRC detection split, how many categories were held out as unseen?",
        sources,
        max_sentences=1,
    )

    assert pieces == [
        "Among 200 object categories, we select 23 categories as unseen. [arXiv:2401.00001]"
    ]


def test_a_table_rows_reference_numbers_are_left_out_so_they_cite_no_source() -> None:
    table = "Retriever | Top-20 accuracy\nBM25 [3] | 59.1\nDPR [24] | 78.4"
    sources = [
        _source(1, "2004.04906", "The dense retriever reaches a high top-20 accuracy."),
        make_source(2, "2004.04906", table, kind="table", section="Table 2"),
        _source(3, "2401.00003", "Another paper about retrieval accuracy."),
    ]

    answer = compose("What top-20 accuracy does the DPR retriever reach?", sources)
    rows = [s for s in answer.sentences if s.is_row]

    assert [r.text for r in rows] == ["DPR \u00b7 Top-20 accuracy \u00b7 78.4"]
    assert "[24]" not in "".join(answer.pieces())


def test_a_table_row_leads_its_own_papers_sentences() -> None:
    """The number asked for comes before the prose of its paper, even its best sentence."""
    answer = compose("How many parameters does the ViT-Huge model variant have?", _vit_sources())

    assert [s.is_row for s in answer.sentences] == [True, False]


def test_words_typed_apart_are_found_where_a_source_prints_them_joined() -> None:
    """ "deep seek" is DeepSeek: the source that prints it leads, and no lead line says
    that nothing mentions "seek"."""
    sources = [
        _source(1, "2501.00002", "DeepSeek-R1 distils long reasoning traces into small models."),
        _source(2, "2501.00001", "Deep networks learn reasoning shortcuts."),
    ]

    answer = compose("deep seek r1 reasoning", sources)

    assert answer.lead == ""
    assert [s.source.id for s in answer.sentences] == ["2501.00002"]
