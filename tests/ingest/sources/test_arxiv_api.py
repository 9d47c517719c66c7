"""The arXiv client against a local arXiv stand-in, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from ingest.index.records import Paper
from ingest.sources.arxiv_api import (
    ArxivClient,
    Harvested,
    IdFailure,
    NotAPdfError,
    download_pdf,
    fetch_by_ids,
    harvest,
    search,
)
from ingest.sources.arxiv_feed import ArxivApiError
from tests.fakes.arxiv import PDF_BYTES, FakeArxiv, FakePaper
from tests.support.running.net import unused_port

pytestmark = pytest.mark.timeout(30)

INTERVAL = 0.05

ATTENTION = FakePaper(
    id="2203.12533",
    version="v2",
    title="Attention Over\n      Long Documents:  a Study",
    summary="  We study attention\n  over long documents.\nIt works.  ",
    authors=("Ada Lovelace", "Alan  Turing", "Grace Hopper"),
    primary_category="cs.CL",
    categories=("cs.LG", "cs.CL", "stat.ML"),
    published="2022-03-23T16:56:21Z",
    updated="2022-05-10T01:02:03Z",
    comment="12 pages, 3 figures",
)
STRINGS = FakePaper(
    id="hep-th/9901001",
    version="v1",
    title="Strings in Old Style",
    primary_category="hep-th",
    categories=("hep-th",),
    published="1999-01-04T12:00:00Z",
    updated="1999-01-04T12:00:00Z",
)


def _client(fake: FakeArxiv, **overrides: float) -> ArxivClient:
    options: dict[str, float] = {"interval": INTERVAL, "backoff": INTERVAL, "timeout": 5.0}
    options.update(overrides)
    return ArxivClient(
        api_url=fake.api_url,
        pdf_base_url=fake.pdf_base_url,
        interval=options["interval"],
        backoff=options["backoff"],
        timeout=options["timeout"],
        max_retries=int(options.get("max_retries", 3)),
        max_wait=options.get("max_wait", 5.0),
    )


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([ATTENTION, STRINGS], rejected_ids=["2213.00001"]) as server:
        yield server


@pytest.fixture
def client(fake: FakeArxiv) -> Iterator[ArxivClient]:
    with _client(fake) as arxiv:
        yield arxiv


def _starts(fake: FakeArxiv) -> list[float]:
    return [request.started for request in fake.requests]


def _gaps(fake: FakeArxiv) -> list[float]:
    starts = _starts(fake)
    return [later - earlier for earlier, later in pairwise(starts)]


def test_fetch_by_id_reads_every_field_of_the_atom_entry(client: ArxivClient) -> None:
    found = list(fetch_by_ids(client, ["2203.12533"]))

    assert found == [
        Paper(
            id="2203.12533",
            version="v2",
            title="Attention Over Long Documents: a Study",
            abstract="We study attention over long documents. It works.",
            authors="Ada Lovelace, Alan Turing, Grace Hopper",
            categories=("cs.CL", "cs.LG", "stat.ML"),
            published="2022-03-23",
            updated="2022-05-10",
            is_arxiv=True,
            comments="12 pages, 3 figures",
        )
    ]


def test_versioned_and_old_style_ids_come_back_with_their_versions(
    client: ArxivClient, fake: FakeArxiv
) -> None:
    found = list(fetch_by_ids(client, ["arXiv:2203.12533v1", "hep-th/9901001v1"]))

    assert [(p.id, p.version) for p in found if isinstance(p, Paper)] == [
        ("2203.12533", "v1"),
        ("hep-th/9901001", "v1"),
    ]
    assert fake.requests[0].params["id_list"] == "2203.12533v1,hep-th/9901001v1"


def test_unknown_id_is_reported_not_found(client: ArxivClient) -> None:
    found = list(fetch_by_ids(client, ["2203.12533", "2301.99999"]))

    assert [p.id if isinstance(p, Paper) else p for p in found] == [
        "2203.12533",
        IdFailure("2301.99999", "no paper '2301.99999' on arXiv"),
    ]


def test_arxiv_error_entry_fails_that_id_and_the_others_are_asked_again(
    client: ArxivClient, fake: FakeArxiv
) -> None:
    found = list(fetch_by_ids(client, ["2203.12533", "2213.00001"]))

    assert (
        IdFailure("2213.00001", "arXiv rejected '2213.00001': incorrect id format for 2213.00001")
        in found
    )
    assert [p.id for p in found if isinstance(p, Paper)] == ["2203.12533"]
    assert [r.params["id_list"] for r in fake.requests] == ["2203.12533,2213.00001", "2203.12533"]


def test_malformed_id_fails_without_asking_arxiv(client: ArxivClient, fake: FakeArxiv) -> None:
    found = list(fetch_by_ids(client, ["not-an-id"]))

    assert found == [IdFailure("not-an-id", "not an arXiv id: 'not-an-id'")]
    assert fake.requests == []


def test_query_larger_than_a_page_is_fetched_page_by_page() -> None:
    papers = [FakePaper(id=f"2201.0000{n}", title=f"Graph paper {n}") for n in range(1, 8)]
    with FakeArxiv(papers) as fake, _client(fake) as client:
        found = list(search(client, "all:graph", 5, page_size=2))

    assert [p.id for p in found] == [f"2201.0000{n}" for n in range(1, 6)]
    assert [(r.params["start"], r.params["max_results"]) for r in fake.requests] == [
        ("0", "2"),
        ("2", "2"),
        ("4", "1"),
    ]
    assert fake.requests[0].params["search_query"] == "all:graph"


def test_query_stops_when_arxiv_has_no_more_results() -> None:
    papers = [FakePaper(id=f"2201.0000{n}", title=f"Graph paper {n}") for n in range(1, 4)]
    with FakeArxiv(papers) as fake, _client(fake) as client:
        found = list(search(client, "all:graph", 50, page_size=2))

    assert len(found) == 3
    assert len(fake.requests) == 2


def test_requests_are_spaced_by_at_least_the_interval(client: ArxivClient, fake: FakeArxiv) -> None:
    for _ in range(4):
        list(fetch_by_ids(client, ["2203.12533"]))

    assert len(_gaps(fake)) == 3
    assert min(_gaps(fake)) >= INTERVAL


def test_requests_from_two_threads_never_overlap(client: ArxivClient, fake: FakeArxiv) -> None:
    def fetch_three() -> None:
        for _ in range(3):
            list(fetch_by_ids(client, ["2203.12533"]))

    threads = [threading.Thread(target=fetch_three) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    requests = sorted(fake.requests, key=lambda r: r.started)
    answered = [r.answered for r in requests]
    assert len(requests) == 6
    assert None not in answered
    assert all(
        later.started > (earlier.answered or 0.0) and later.started - earlier.started >= INTERVAL
        for earlier, later in pairwise(requests)
    )


def test_user_agent_names_the_product(client: ArxivClient, fake: FakeArxiv) -> None:
    list(fetch_by_ids(client, ["2203.12533"]))

    user_agent = fake.requests[0].headers["user-agent"]
    assert user_agent.startswith("paperchat/")
    assert "+https://github.com/paperchat" in user_agent


def test_429_is_retried_after_the_retry_after_delay(client: ArxivClient, fake: FakeArxiv) -> None:
    fake.fail_next(1, status=429, retry_after="1")

    found = list(fetch_by_ids(client, ["2203.12533"]))

    assert [p.id for p in found if isinstance(p, Paper)] == ["2203.12533"]
    assert len(fake.requests) == 2
    assert _gaps(fake)[0] >= 1.0


def test_503_is_retried_with_growing_backoff(fake: FakeArxiv) -> None:
    fake.fail_next(3, status=503)

    with _client(fake, interval=0.01, backoff=0.1) as client:
        found = list(fetch_by_ids(client, ["2203.12533"]))

    gaps = _gaps(fake)
    assert [p.id for p in found if isinstance(p, Paper)] == ["2203.12533"]
    assert len(fake.requests) == 4
    assert gaps[0] >= 0.1
    assert gaps[1] >= 0.2
    assert gaps[2] >= 0.4


def test_retry_after_beyond_the_allowed_wait_raises_at_once(fake: FakeArxiv) -> None:
    fake.fail_next(1, status=429, retry_after="120")

    with _client(fake, max_wait=10.0) as client, pytest.raises(ArxivApiError) as raised:
        list(fetch_by_ids(client, ["2203.12533"]))

    assert str(raised.value) == (
        f"{fake.api_url}?id_list=2203.12533&max_results=1"
        " asks to wait 120 s, longer than the 10 s allowed"
    )
    assert len(fake.requests) == 1


def test_503_past_the_retry_limit_raises_naming_the_url(fake: FakeArxiv) -> None:
    fake.fail_next(10, status=503)

    with _client(fake, max_retries=2) as client, pytest.raises(ArxivApiError) as raised:
        list(fetch_by_ids(client, ["2203.12533"]))

    assert f"gave up on {fake.api_url}?id_list=2203.12533" in str(raised.value)
    assert "after 3 attempts: HTTP 503" in str(raised.value)
    assert len(fake.requests) == 3


def test_connection_refused_raises_naming_the_url() -> None:
    api_url = f"http://127.0.0.1:{unused_port()}/api/query"
    client = ArxivClient(api_url=api_url, interval=INTERVAL, backoff=INTERVAL, max_retries=1)

    with client, pytest.raises(ArxivApiError) as raised:
        list(fetch_by_ids(client, ["2203.12533"]))

    assert f"gave up on {api_url}?id_list=2203.12533" in str(raised.value)
    assert "ConnectError" in str(raised.value)
    assert isinstance(raised.value.__cause__, Exception)


def test_stalled_answer_times_out_then_retry_succeeds(fake: FakeArxiv) -> None:
    stall = 10.0
    fake.stall_next(stall)
    began = time.monotonic()

    with _client(fake, timeout=0.2) as client:
        found = list(fetch_by_ids(client, ["2203.12533"]))

    assert [p.id for p in found if isinstance(p, Paper)] == ["2203.12533"]
    # Not a speed limit: waiting for the stalled answer takes the whole stall by construction.
    assert time.monotonic() - began < stall


def test_harvest_yields_papers_with_downloaded_pdfs(
    client: ArxivClient, fake: FakeArxiv, tmp_path: Path
) -> None:
    results = list(harvest(client, ids=["2203.12533", "hep-th/9901001"], pdf_dir=tmp_path))

    assert [(r.paper.id, r.pdf_path, r.failure) for r in results] == [
        ("2203.12533", tmp_path / "2203.12533v2.pdf", None),
        ("hep-th/9901001", tmp_path / "hep-th_9901001v1.pdf", None),
    ]
    assert (tmp_path / "2203.12533v2.pdf").read_bytes() == PDF_BYTES
    assert [r.path for r in fake.requests[1:]] == ["/pdf/2203.12533v2", "/pdf/hep-th/9901001v1"]


def test_harvest_reports_failed_ids_as_placeholders(client: ArxivClient, tmp_path: Path) -> None:
    results = list(harvest(client, ids=["2301.99999v3"], pdf_dir=tmp_path))

    assert results == [
        Harvested(
            Paper(id="2301.99999", title="", version="v3"), None, "no paper '2301.99999v3' on arXiv"
        )
    ]


def test_harvest_by_query_without_pdf_dir_downloads_nothing(
    client: ArxivClient, fake: FakeArxiv
) -> None:
    results = list(harvest(client, query="cat:hep-th", max_results=10))

    assert [(r.paper.id, r.pdf_path, r.failure) for r in results] == [
        ("hep-th/9901001", None, None)
    ]
    assert [r.path for r in fake.requests] == ["/api/query"]


def test_non_pdf_body_is_rejected_and_not_saved(tmp_path: Path) -> None:
    with FakeArxiv([ATTENTION], non_pdf_ids=["2203.12533"]) as fake, _client(fake) as client:
        results = list(harvest(client, ids=["2203.12533"], pdf_dir=tmp_path))

    assert results[0].pdf_path is None
    assert results[0].failure is not None
    assert f"{fake.pdf_base_url}2203.12533v2 did not answer with a PDF" in results[0].failure
    assert list(tmp_path.iterdir()) == []


def test_non_pdf_body_raises_not_a_pdf_error(tmp_path: Path) -> None:
    paper = Paper(id="2203.12533", title="Attention", version="v2")

    with (
        FakeArxiv([ATTENTION], non_pdf_ids=["2203.12533"]) as fake,
        _client(fake) as client,
        pytest.raises(NotAPdfError, match="starts with b'<!DOCTYPE html>"),
    ):
        download_pdf(client, paper, tmp_path)


def test_pdf_already_on_disk_is_not_downloaded_again(
    client: ArxivClient, fake: FakeArxiv, tmp_path: Path
) -> None:
    paper = Paper(id="2203.12533", title="Attention", version="v2")
    (tmp_path / "2203.12533v2.pdf").write_bytes(b"%PDF-1.7 already here")

    path = download_pdf(client, paper, tmp_path)

    assert path.read_bytes() == b"%PDF-1.7 already here"
    assert fake.requests == []


def test_missing_pdf_is_an_error_naming_the_url(
    client: ArxivClient, fake: FakeArxiv, tmp_path: Path
) -> None:
    paper = Paper(id="2109.00001", title="Nowhere", version="v1")

    with pytest.raises(ArxivApiError) as raised:
        download_pdf(client, paper, tmp_path)

    assert str(raised.value) == f"{fake.pdf_base_url}2109.00001v1 answered HTTP 404 Not Found"
    assert len(fake.requests) == 1
