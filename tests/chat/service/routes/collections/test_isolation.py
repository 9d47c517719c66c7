"""Another user's collection, seen as an attacker would: every route answers for it exactly
as for a collection that does not exist, and changes nothing."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.service.routes.collections.conftest import make_collection
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

MISSING = "00000000-0000-4000-8000-000000000000"


def _attempts(client: httpx.Client, collection_id: str) -> dict[str, httpx.Response]:
    """What user B may try on a collection by its id, each request's answer by name."""
    base = f"/api/collections/{collection_id}"
    paper = {"paper_id": "1812.06145"}
    answers = {
        "read": client.get(base),
        "papers": client.get(f"{base}/papers"),
        "rename": client.patch(base, json={"name": "Taken over"}),
        "add": client.post(f"{base}/papers", json=paper),
        "remove": client.delete(f"{base}/papers/2007.01282"),
        "share": client.post(f"{base}/share"),
        "unshare": client.delete(f"{base}/share"),
        "chat": client.post(
            "/api/chat", json={"message": "What is FiD?", "collection_id": collection_id}
        ),
    }
    for format in ("bibtex", "csv", "markdown"):
        answers[f"export {format}"] = client.get(f"{base}/export", params={"format": format})
    answers["delete"] = client.delete(base)
    return answers


def _seen(answers: dict[str, httpx.Response], collection_id: str) -> dict[str, tuple[int, str]]:
    """Each answer's status and body, the id asked about written as `ID`."""
    return {
        name: (r.status_code, r.text.replace(collection_id, "ID")) for name, r in answers.items()
    }


@pytest.mark.parametrize("signed_in", ["key", "browser"])
def test_another_users_collection_answers_as_a_missing_one_and_stays_as_it_was(
    api: Api, signed_in: str
) -> None:
    email = api.new_user()
    with api.key_client(email) as owner:
        collection_id = make_collection(owner, "Private reading", "2007.01282")
        link = owner.post(f"/api/collections/{collection_id}/share").json()
        before = owner.get(f"/api/collections/{collection_id}").json()
    attacker = api.key_client() if signed_in == "key" else api.signed_in()

    with attacker:
        against_owner = _attempts(attacker, collection_id)
        against_nothing = _attempts(attacker, MISSING)
        listed = attacker.get("/api/collections").json()

    assert _seen(against_owner, collection_id) == _seen(against_nothing, MISSING)
    assert {r.status_code for r in against_owner.values()} == {404}
    assert "Private reading" not in "".join(r.text for r in against_owner.values())
    assert listed == {"collections": []}
    with api.client() as anyone, api.key_client(email) as owner:
        after = owner.get(f"/api/collections/{collection_id}").json()
        shared = anyone.get(link["url"])
    assert after == before
    assert shared.status_code == 200


def test_guessed_share_links_open_nothing(api: Api) -> None:
    with api.key_client() as owner, api.client() as anyone:
        collection_id = make_collection(owner, "Unshared", "2007.01282")
        guesses = [
            anyone.get(f"/shared/collections/{guess}")
            for guess in (collection_id, "", "x", "a" * 43, "%00")
        ]

    assert {g.status_code for g in guesses} == {404}
    assert all("Unshared" not in g.text for g in guesses)
