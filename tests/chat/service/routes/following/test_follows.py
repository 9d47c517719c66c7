"""Following and alerts: papers a separate `paperchat ingest` adds while the server runs
become alerts of the follows that take them, on every worker, once each."""

from __future__ import annotations

import copy
import html
from pathlib import Path
from typing import Any

import httpx
import pytest

from chat.service.app import create_app
from tests.chat.service.routes.following.conftest import (
    FIRST,
    FollowsServer,
    sample_records,
    write_records,
)
from tests.support.running.cli import environment, run
from tests.support.running.net import serving, unused_port
from tests.support.running.server import fake_llm_fixture  # noqa: F401 - a pytest fixture, used by name

pytestmark = pytest.mark.timeout(600)

ADDED = 20  # records of the sample the command line adds


def _follow(client: httpx.Client, kind: str, value: str) -> str:
    response = client.post("/api/follows", json={"kind": kind, "value": value})
    assert response.status_code == 201, response.text
    follow_id: str = response.json()["id"]
    return follow_id


def _alerts(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/api/alerts")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _later_records(followed_paper: dict[str, Any], author: str) -> list[dict[str, Any]]:
    """The sample's next records, one of them by `author`, and `followed_paper` revised."""
    later = sample_records()[FIRST : FIRST + ADDED]
    later[0] = {**later[0], "authors": f"{later[0]['authors']}, {author}"}
    revised = copy.deepcopy(followed_paper)
    revised["versions"].append({"version": "v9", "created": "Mon, 1 Dec 2025 10:00:00 GMT"})
    revised["abstract"] += " Revised."
    return [*later, revised]


def test_signed_out_or_without_csrf_is_refused(follows_server: FollowsServer) -> None:
    api = follows_server.api
    with api.client() as anonymous, api.signed_in() as browser:
        signed_out = anonymous.post("/api/follows", json={"kind": "category", "value": "hep-ph"})
        alerts = anonymous.get("/api/alerts")
        browser.headers.pop("X-CSRF-Token")
        no_csrf = browser.post("/api/follows", json={"kind": "category", "value": "hep-ph"})

    assert signed_out.status_code == 401
    assert alerts.status_code == 401
    assert no_csrf.status_code == 403


def test_follows_are_listed_checked_and_deleted(follows_server: FollowsServer) -> None:
    with follows_server.api.key_client() as client:
        first = _follow(client, "category", "  hep-ph ")
        again = client.post("/api/follows", json={"kind": "category", "value": "hep-ph"})
        bad = client.post("/api/follows", json={"kind": "category", "value": "not a category"})
        nobody = client.post("/api/follows", json={"kind": "researcher", "value": "Nobody Here"})
        listed = client.get("/api/follows").json()["follows"]
        deleted = client.delete(f"/api/follows/{first}")
        gone = client.delete(f"/api/follows/{first}")
        after = client.get("/api/follows").json()["follows"]

    assert again.status_code == 200
    assert again.json()["id"] == first
    assert bad.status_code == 422
    assert nobody.status_code == 404
    assert [(f["id"], f["kind"], f["value"]) for f in listed] == [(first, "category", "hep-ph")]
    assert (deleted.status_code, gone.status_code) == (204, 404)
    assert after == []


def test_a_category_no_paper_is_in_is_a_404_to_follow_as_its_page_and_its_feed(
    follows_server: FollowsServer,
) -> None:
    api = follows_server.api
    unknown = "q-fin.TR"  # one of arXiv's, no paper of the index's
    with api.key_client() as client, api.client() as anonymous:
        followed = client.post("/api/follows", json={"kind": "category", "value": unknown})
        page = anonymous.get(f"/categories/{unknown}")
        feed = anonymous.get(f"/feeds/categories/{unknown}.atom")
        listed = client.get("/api/follows").json()["follows"]

    reason = f"no paper in the category {unknown!r} in this index"
    assert (followed.status_code, page.status_code, feed.status_code) == (404, 404, 404)
    assert followed.json() == {"detail": reason}
    assert f"No paper in the category {unknown!r} in this index." in html.unescape(page.text)
    assert feed.json() == {"detail": reason}
    assert listed == []


@pytest.mark.parametrize("made_up", ["---", "q-bio.XX", "cs.MADEUP", "not-one"])
def test_a_category_arxiv_does_not_have_is_a_422_to_follow(
    follows_server: FollowsServer, made_up: str
) -> None:
    with follows_server.api.key_client() as client:
        followed = client.post("/api/follows", json={"kind": "category", "value": made_up})
        listed = client.get("/api/follows").json()["follows"]

    assert followed.status_code == 422
    assert followed.json() == {
        "detail": f"{made_up!r} is not an arXiv category such as cs.CL or hep-th"
    }
    assert listed == []


def test_papers_a_command_line_ingest_adds_become_alerts_on_both_workers(
    follows_server: FollowsServer, tmp_path: Path, models_cache: Path
) -> None:
    records = sample_records()
    author = "P. M. Nadolsky"
    later = _later_records(records[0], author)
    title_words = " ".join(later[5]["title"].lower().split()[:2])
    api = follows_server.api
    other_worker = create_app(follows_server.settings)
    with api.key_client() as client, api.key_client() as stranger:
        follows = {
            _follow(client, "category", "hep-ph"): "category",
            _follow(client, "researcher", author): "researcher",
            _follow(client, "search", title_words): "search",
            _follow(client, "paper", records[0]["id"]): "paper",
        }
        _follow(stranger, "category", "hep-ph")
        before = _alerts(client)
        env = environment(follows_server.settings.data_dir, models_cache)
        ingest = run(env, "ingest", "abstracts", str(write_records(tmp_path / "l.jsonl", later)))
        with serving(other_worker, unused_port()) as other_url:
            key = client.headers["Authorization"]
            with httpx.Client(base_url=other_url, headers={"Authorization": key}) as second:
                on_second = _alerts(second)
        on_first = _alerts(client)
        read = client.post("/api/alerts/read", json={"paper_ids": [later[0]["id"]]}).json()
        all_read = client.post("/api/alerts/read").json()
        strangers = _alerts(stranger)

    assert ingest.code == 0, ingest.stderr
    assert before == {"alerts": [], "unread": 0}
    found = {(a["paper_id"], follows[a["follow_id"]], a["version"]) for a in on_first["alerts"]}
    expected = {(r["id"], "category", "") for r in later[:-1] if "hep-ph" in r["categories"]}
    expected |= {(later[0]["id"], "researcher", "")}
    expected |= {
        (r["id"], "search", "")
        for r in later[:-1]
        if all(w in f"{r['title']} {r['abstract']}".lower() for w in title_words.split())
    }
    expected |= {(records[0]["id"], "paper", "v9")}
    assert found == expected
    assert len(on_first["alerts"]) == len(found) == on_first["unread"]
    assert sorted(map(str, on_second["alerts"])) == sorted(map(str, on_first["alerts"]))
    assert read["marked"] == sum(a["paper_id"] == later[0]["id"] for a in on_first["alerts"])
    assert all_read == {"marked": len(found) - read["marked"], "unread": 0}
    assert {a["paper_id"] for a in strangers["alerts"]} == {
        r["id"] for r in later[:-1] if "hep-ph" in r["categories"]
    }


def test_digest_frequency_is_off_until_chosen(follows_server: FollowsServer) -> None:
    with follows_server.api.key_client() as client, follows_server.api.client() as anonymous:
        before = client.get("/api/digest").json()
        chosen = client.put("/api/digest", json={"frequency": "weekly"}).json()
        after = client.get("/api/digest").json()
        wrong = client.put("/api/digest", json={"frequency": "hourly"})
        signed_out = anonymous.put("/api/digest", json={"frequency": "daily"})

    assert before == {"frequency": "off"}
    assert chosen == after == {"frequency": "weekly"}
    assert wrong.status_code == 422
    assert signed_out.status_code == 401
