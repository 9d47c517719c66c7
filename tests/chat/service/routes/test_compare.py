"""`POST /api/compare`: a table of papers by aspects, each cell quoted from its own paper and
citing its chunk; as JSON, CSV, Markdown or a stream; its bounds, sign-in and budget; and
the cells a model answers, checked by the citation guard."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest

from chat.rag.compare.aspects import DEFAULT_ASPECTS, MAX_ASPECTS, MAX_PAPERS, NOT_FOUND
from chat.rag.compare.exports import spreadsheet_safe
from chat.service.access.ratelimit import build_rate_limiter
from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)
from tests.support.worlds.compare import (  # noqa: F401 - pytest fixtures, used by name
    DPR,
    FID,
    compare_api_fixture,
    compare_index_fixture,
    compare_model_api_fixture,
)

pytestmark = pytest.mark.timeout(600)  # the first test of a run builds the index

JSON = {"Content-Type": "application/json"}
# Nothing in either paper is about this.
ABSENT = "protein folding"


def _compare(api: Api, body: dict[str, Any], **params: str) -> Any:
    with api.key_client() as client:
        response = client.post("/api/compare", json=body, params=params)
    assert response.status_code == 200, response.text
    return response


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_each_cell_is_quoted_from_a_chunk_of_its_own_paper(compare_api: Api) -> None:
    table = _compare(compare_api, {"paper_ids": [DPR, FID]}).json()

    catalog = compare_api.services.index.catalog
    cited = [
        (row["paper_id"], cell)
        for row in table["rows"]
        for cell in row["cells"].values()
        if cell["citation"]
    ]
    chunks = catalog.chunk_rows([cell["citation"] for _, cell in cited])
    assert table["aspects"] == list(DEFAULT_ASPECTS)
    assert [row["paper_id"] for row in table["rows"]] == [DPR, FID]
    assert len(cited) >= len(DEFAULT_ASPECTS)
    for paper_id, cell in cited:
        chunk = chunks[cell["citation"]]
        assert chunk.paper_id == paper_id
        quoted = _flat(cell["text"]).rstrip("\u2026")
        if chunk.kind == "table":
            # A column's row labels after its header: "Dataset: Natural Questions, ..."
            assert all(part in chunk.text for part in re.split(r": |, ", quoted))
        else:
            assert quoted in _flat(chunk.text)


def test_the_datasets_of_dpr_name_natural_questions(compare_api: Api) -> None:
    table = _compare(compare_api, {"paper_ids": [DPR], "aspects": ["datasets"]}).json()

    [cell] = [row["cells"]["datasets"] for row in table["rows"]]
    assert "Natural Questions" in cell["text"]
    assert cell["citation"].startswith(f"{DPR}#")


def test_what_a_paper_does_not_say_is_not_found_and_cites_nothing(compare_api: Api) -> None:
    table = _compare(compare_api, {"paper_ids": [FID], "aspects": [ABSENT]}).json()

    assert table["rows"][0]["cells"][ABSENT] == {"text": NOT_FOUND, "citation": None}


def test_csv_and_markdown_files_hold_the_tables_cells(compare_api: Api) -> None:
    body = {"paper_ids": [DPR, FID], "aspects": ["datasets", "code availability", ABSENT]}
    table = _compare(compare_api, body).json()

    as_csv = _compare(compare_api, body, format="csv")
    as_markdown = _compare(compare_api, body, format="markdown")

    aspects = body["aspects"]
    expected = [
        [row["paper_id"], row["title"]]
        + [v for a in aspects for v in (row["cells"][a]["text"], row["cells"][a]["citation"] or "")]
        for row in table["rows"]
    ]
    read = list(csv.reader(io.StringIO(as_csv.text)))
    assert read[1:] == [[spreadsheet_safe(v) for v in row] for row in expected]
    assert as_csv.headers["content-type"].startswith("text/csv")
    disposition = f'attachment; filename="comparison-{DPR}_{FID}.csv"'
    assert as_csv.headers["content-disposition"] == disposition
    lines = csv.reader(
        io.StringIO(as_markdown.text), delimiter="|", escapechar="\\", quoting=csv.QUOTE_NONE
    )
    marked = [[cell.strip() for cell in line[1:-1]] for line in lines][2:]
    for row, line in zip(expected, marked, strict=True):
        texts = row[2::2]
        citations = row[3::2]
        shown = [_flat(t) + (f" `{c}`" if c else "") for t, c in zip(texts, citations, strict=True)]
        assert line == [row[0], _flat(row[1]), *shown]
    assert as_markdown.headers["content-disposition"].endswith('.md"')


def test_the_stream_sends_one_event_per_cell_then_done(compare_api: Api) -> None:
    body = {"paper_ids": [DPR, FID], "aspects": ["datasets", "metrics", ABSENT]}
    table = _compare(compare_api, body).json()

    with compare_api.key_client() as client:
        response = client.post("/api/compare", json=body, headers={"Accept": "text/event-stream"})
        events = read_events(response)

    cells = {
        (row["paper_id"], aspect): cell
        for row in table["rows"]
        for aspect, cell in row["cells"].items()
    }
    streamed = {(e.data["paper_id"], e.data["aspect"]): e.data for e in events[:-1]}
    assert [e.name for e in events] == ["cell"] * len(cells) + ["done"]
    assert {
        key: {"text": c["text"], "citation": c["citation"]} for key, c in streamed.items()
    } == cells
    assert events[-1].data["cells"] == len(cells)
    assert events[-1].data["mode"] == "extractive"


def test_a_paper_named_twice_is_compared_once(compare_api: Api) -> None:
    body = {"paper_ids": [DPR, f"arXiv:{DPR}v3", DPR], "aspects": ["metrics", "Metrics"]}

    table = _compare(compare_api, body).json()

    assert [row["paper_id"] for row in table["rows"]] == [DPR]
    assert table["aspects"] == ["metrics"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"paper_ids": [DPR, "9999.99999", "0000.00001v2"]}, 404, "9999.99999, 0000.00001"),
        ({"paper_ids": []}, 422, "paper_ids"),
        (
            {"paper_ids": [f"2001.{n:05d}" for n in range(MAX_PAPERS + 1)]},
            422,
            f"at most {MAX_PAPERS}",
        ),
        (
            {"paper_ids": [DPR], "aspects": [f"a{n}" for n in range(MAX_ASPECTS + 1)]},
            422,
            f"at most {MAX_ASPECTS}",
        ),
        ({"paper_ids": [DPR], "aspects": ["x" * 81]}, 422, "aspects.0"),
        ({"paper_ids": [DPR], "aspects": ["  "]}, 422, "blank"),
        ({"paper_ids": [DPR], "colour": "blue"}, 422, "colour"),
        ({"paper_ids": ["\ud800"]}, 422, "paper_ids.0"),
        ({"paper_ids": [DPR], "aspects": ["x\udfff"]}, 422, "aspects.0"),
    ],
)
def test_requests_out_of_bounds_are_refused_saying_why(
    compare_api: Api, body: dict[str, Any], status: int, words: str
) -> None:
    with compare_api.key_client() as client:
        # As JSON text, escapes and all: a lone surrogate is sent as the client wrote it.
        sent = json.dumps(body)
        response = client.post("/api/compare", content=sent, headers=JSON)

    assert response.status_code == status
    assert words in response.json()["detail"]


def test_a_comparison_needs_a_sign_in_and_counts_a_request_per_paper(
    compare_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compare_api.services, "api_limiter", build_rate_limiter("3/minute", None))
    body = {"paper_ids": [DPR, FID], "aspects": ["metrics"]}
    with compare_api.client() as anonymous:
        nobody = anonymous.post("/api/compare", json=body)
    with compare_api.key_client() as client:
        statuses = [client.post("/api/compare", json=body).status_code for _ in range(2)]

    assert nobody.status_code == 401
    assert statuses == [200, 429]


def test_a_models_cell_keeps_its_citation_of_the_paper_and_drops_a_made_up_one(
    compare_model_api: Api,
) -> None:
    answer = f"Natural Questions and TriviaQA [arXiv:{DPR}] [arXiv:9999.99999]"
    compare_model_api.fake.script_chat(ChatScript(pieces=(answer,)))
    body = {"paper_ids": [DPR], "aspects": ["datasets"]}

    with compare_model_api.key_client() as client:
        response = client.post("/api/compare", json=body, headers={"Accept": "text/event-stream"})
        events = read_events(response)

    prompt = compare_model_api.fake.chat_requests()[-1].body["messages"][-1]["content"]
    assert [e.name for e in events] == ["cell", "done"]
    assert events[0].data["text"] == "Natural Questions and TriviaQA"
    assert events[0].data["citation"] == f"[arXiv:{DPR}]"
    assert events[-1].data["dropped_citations"] == ["9999.99999"]
    assert events[-1].data["mode"] == "llm"
    assert f'citation="[arXiv:{DPR}]"' in prompt
    assert f"[arXiv:{FID}]" not in prompt


def test_a_models_cell_citing_nothing_of_the_paper_is_not_found(compare_model_api: Api) -> None:
    compare_model_api.fake.script_chat(ChatScript(pieces=("SQuAD [arXiv:9999.99999]",)))

    table = _compare(compare_model_api, {"paper_ids": [DPR], "aspects": ["datasets"]}).json()

    assert table["rows"][0]["cells"]["datasets"] == {"text": NOT_FOUND, "citation": None}
    assert table["mode"] == "llm"
