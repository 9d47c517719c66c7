"""The served feeds, valid by RFC 4287's RELAX NG grammar, dated by their records: each
entry's own days, the feed by its newest entry, an empty feed by the catalog's newest record;
the private feed's id says nothing of its token and stays the same when the token changes."""

from __future__ import annotations

import pytest

from chat.library.feeds import entry_updated, timestamp
from tests.chat.service.web.conftest import OLD_STYLE_ID
from tests.support.atom import valid_atom
from tests.support.running.server import Api

pytestmark = pytest.mark.timeout(300)

ATOM = "{http://www.w3.org/2005/Atom}"
DCTERMS = "{http://purl.org/dc/terms/}"


def test_latest_feed_entries_carry_their_records_own_dates(web: Api) -> None:
    catalog = web.services.index.catalog
    with web.client() as client:
        response = client.get("/feeds/latest.atom")

    root = valid_atom(response.content)

    entries = list(root.iter(f"{ATOM}entry"))
    assert entries
    for entry in entries:
        paper_id = str(entry.findtext(f"{ATOM}id")).rsplit("/abs/", 1)[-1]
        record = catalog.get_paper(paper_id)
        assert record is not None
        assert entry.findtext(f"{ATOM}updated") == entry_updated(record)
        if len(record.published) == len("YYYY-MM"):
            assert entry.find(f"{ATOM}published") is None
            assert entry.findtext(f"{DCTERMS}issued") == record.published
        else:
            assert entry.findtext(f"{ATOM}published") == timestamp(record.published)
    newest = max(str(e.findtext(f"{ATOM}updated")) for e in entries)
    assert root.findtext(f"{ATOM}updated") == newest


def test_a_first_version_with_a_day_is_published_on_that_day(web: Api) -> None:
    with web.client() as client:
        root = valid_atom(client.get("/feeds/categories/hep-th.atom").content)

    (entry,) = root.iter(f"{ATOM}entry")

    assert entry.findtext(f"{ATOM}id") == f"https://arxiv.org/abs/{OLD_STYLE_ID}"
    assert entry.findtext(f"{ATOM}published") == "1999-01-04T00:00:00Z"


def test_private_feed_id_names_no_token_and_outlives_it(web: Api) -> None:
    with web.key_client() as client, web.client() as reader:
        first = client.post("/api/feeds/private").json()
        empty = valid_atom(reader.get(first["url"]).content)
        second = client.post("/api/feeds/private").json()
        again = valid_atom(reader.get(second["url"]).content)

    feed_id = str(empty.findtext(f"{ATOM}id"))
    assert feed_id.startswith("urn:uuid:")
    assert first["token"] not in feed_id
    assert again.findtext(f"{ATOM}id") == feed_id
    assert empty.find(f"{ATOM}entry") is None
    newest = web.services.index.catalog.db.execute("SELECT MAX(updated) FROM papers").fetchone()
    assert empty.findtext(f"{ATOM}updated") == timestamp(str(newest[0]))
