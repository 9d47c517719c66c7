"""Fuzzing the reader's routes, which the OpenAPI document leaves out (and schemathesis with
it): page images, text layers and where a passage lies, asked with real and made-up paper
ids, page numbers huge, negative or not numbers at all, and any query. Every answer is
under 500 and of a bounded size."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from chat.service.access.ratelimit import build_rate_limiter
from tests.support.running.server import Api
from tests.support.worlds.fuzzing import fuzz_settings
from tests.support.worlds.reader import (
    FID_PDF,
    SHORT_PDF,
    first_abstract_id,
    reader_index,
    reader_web,
)

__all__ = ["reader_index", "reader_web"]

pytestmark = pytest.mark.timeout(600)

FUZZ = fuzz_settings(examples=40, deadline_s=20)
# The largest answer a page may give: a page image at the widest width is about 1 MB.
MAX_IMAGE_BYTES = 8 * 1024 * 1024
MAX_JSON_BYTES = 1024 * 1024
# Printable ASCII: what a header or a URL written by hand may hold.
PRINTABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E)

# A page the reader has (its paper's id as users write it), or an id and a number made up:
# a real id with a page past the end, huge, negative or not a number, an id of a paper
# without a PDF, or any text.
real_pages = st.tuples(
    st.sampled_from([SHORT_PDF, f"{SHORT_PDF}v1", f"arXiv:{FID_PDF}", f"{FID_PDF}v2"]),
    st.integers(1, 4).map(str),
)
made_up_pages = st.tuples(
    st.one_of(
        st.sampled_from([SHORT_PDF, FID_PDF, "2304.0262", "1/2"]),
        st.builds(first_abstract_id),
        st.text(max_size=40),
    ),
    st.one_of(
        st.integers(-1, 7).map(str),
        st.integers(-(10**40), 10**40).map(str),
        st.sampled_from(["", "0x2", "1e3", "+1", "01", " 1", "1.5", "NaN", "\u0661"]),
        st.text(max_size=12),
    ),
)
pages = st.one_of(real_pages, made_up_pages)
queries = st.dictionaries(
    st.sampled_from(["width", "v", "page", "chunk", "quote", "x"]),
    st.one_of(st.integers(-(10**12), 10**12).map(str), st.text(max_size=80)),
    max_size=3,
)


@pytest.fixture(name="client")
def client_fixture(reader_web: Api) -> Iterator[httpx.Client]:
    """A client of the reader with renders unlimited: the fuzz asks for many pages."""
    services = reader_web.services
    original, services.render_limiter = (
        services.render_limiter,
        build_rate_limiter("1000000/minute", None),
    )
    try:
        with reader_web.client() as client:
            yield client
    finally:
        services.render_limiter = original


def _path(paper_id: str, page: str, suffix: str) -> str:
    return f"/papers/{quote(paper_id, safe='/:')}/pages/{quote(page, safe='')}.{suffix}"


@FUZZ
@given(
    where=pages,
    query=queries,
    etag=st.one_of(st.none(), st.text(PRINTABLE, max_size=40).map(str.strip)),
)
def test_a_page_image_is_never_a_server_error_nor_unbounded(
    client: httpx.Client, where: tuple[str, str], query: dict[str, str], etag: str | None
) -> None:
    headers = {} if etag is None else {"If-None-Match": etag}

    response = client.get(_path(*where, "webp"), params=query, headers=headers)

    event(f"status {response.status_code}")  # --hypothesis-show-statistics counts them
    assert response.status_code < 500, response.text[:300]
    assert len(response.content) <= MAX_IMAGE_BYTES
    if response.status_code == 200:
        assert response.headers["content-type"] == "image/webp"


@FUZZ
@given(where=pages, query=queries)
def test_a_page_text_layer_is_never_a_server_error_nor_unbounded(
    client: httpx.Client, where: tuple[str, str], query: dict[str, str]
) -> None:
    response = client.get(_path(*where, "json"), params=query)

    event(f"status {response.status_code}")  # --hypothesis-show-statistics counts them
    assert response.status_code < 500, response.text[:300]
    assert len(response.content) <= MAX_JSON_BYTES
    if response.status_code == 200:
        assert response.headers["content-type"] == "application/json"


@FUZZ
@given(data=st.data(), quote_text=st.one_of(st.none(), st.text(max_size=1200)), query=queries)
def test_where_a_passage_lies_is_never_a_server_error_nor_unbounded(
    reader_web: Api,
    client: httpx.Client,
    data: st.DataObject,
    quote_text: str | None,
    query: dict[str, str],
) -> None:
    catalog = reader_web.services.index.catalog
    real = catalog.chunk_ids(FID_PDF) + catalog.chunk_ids(first_abstract_id())
    chunk = data.draw(st.one_of(st.sampled_from(real), st.text(max_size=320)), label="chunk")
    params = {**query, "chunk": chunk, **({} if quote_text is None else {"quote": quote_text})}

    response = client.get("/reader/evidence", params=params)

    event(f"status {response.status_code}")  # --hypothesis-show-statistics counts them
    assert response.status_code < 500, response.text[:300]
    assert len(response.content) <= MAX_JSON_BYTES
