"""Another user's notes, seen as an attacker would: every route answers for one exactly as
for a note that does not exist, no listing, search or export shows them, and nothing of
them changes; a shared collection's file holds none of its owner's notes."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.service.routes.collections.conftest import make_collection
from tests.chat.service.routes.notes.conftest import make_note, texts
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

MISSING = "00000000-0000-4000-8000-000000000000"
SECRET = "Private thought zebra-quartz"


def _attempts(client: httpx.Client, note_id: str) -> dict[str, httpx.Response]:
    """What user B may try on a note by its id, each request's answer by name."""
    base = f"/api/notes/{note_id}"
    return {
        "read": client.get(base),
        "change": client.patch(base, json={"text": "taken over"}),
        "delete": client.delete(base),
    }


def _seen(answers: dict[str, httpx.Response], note_id: str) -> dict[str, tuple[int, str]]:
    return {name: (r.status_code, r.text.replace(note_id, "ID")) for name, r in answers.items()}


@pytest.mark.parametrize("signed_in", ["key", "browser"])
def test_another_users_note_answers_as_a_missing_one_and_stays_as_it_was(
    api: Api, signed_in: str
) -> None:
    email = api.new_user()
    with api.key_client(email) as owner:
        made = make_note(owner, "2007.01282", SECRET)
    attacker = api.key_client() if signed_in == "key" else api.signed_in()

    with attacker:
        against_owner = _attempts(attacker, made["id"])
        against_nothing = _attempts(attacker, MISSING)
        listings = [
            attacker.get("/api/notes"),
            attacker.get("/api/notes", params={"paper_id": "2007.01282"}),
            attacker.get("/api/notes", params={"q": "zebra-quartz"}),
        ]

    assert _seen(against_owner, made["id"]) == _seen(against_nothing, MISSING)
    assert {r.status_code for r in against_owner.values()} == {404}
    assert [texts(listing) for listing in listings] == [[], [], []]
    with api.key_client(email) as owner:
        after = owner.get(f"/api/notes/{made['id']}").json()
    assert after == made


def test_another_users_collection_lists_no_notes_but_a_404(api: Api) -> None:
    with api.key_client() as owner:
        make_note(owner, "2007.01282", SECRET)
        collection_id = make_collection(owner, "Mine", "2007.01282")
    with api.key_client() as attacker:
        make_collection(attacker, "Theirs", "2007.01282")

        listed = attacker.get("/api/notes", params={"collection_id": collection_id})

    assert listed.status_code == 404
    assert SECRET not in listed.text


def test_the_owners_markdown_holds_their_notes_and_no_one_elses(api: Api) -> None:
    someone = api.new_user()
    with api.key_client(someone) as other:
        make_note(other, "2007.01282", "Someone else's note")
        other_collection = make_collection(other, "Theirs", "2007.01282")
    with api.key_client() as owner:
        make_note(owner, "2007.01282", f"{SECRET}\n<script>alert(1)</script> | cell")
        collection_id = make_collection(owner, "Mine", "2007.01282", "1503.02531")

        markdown = owner.get(
            f"/api/collections/{collection_id}/export", params={"format": "markdown"}
        ).text
        csv = owner.get(f"/api/collections/{collection_id}/export", params={"format": "csv"}).text
    with api.key_client(someone) as other:
        others = other.get(
            f"/api/collections/{other_collection}/export", params={"format": "markdown"}
        ).text

    notes = markdown[markdown.index("## Notes on 2007.01282") :].splitlines()
    assert notes[2:4] == [f"> {SECRET}", "> &lt;script&gt;alert(1)&lt;/script&gt; \\| cell"]
    assert "Someone else's note" not in markdown
    assert "## Notes on 1503.02531" not in markdown
    assert SECRET not in csv
    assert SECRET not in others
    assert "Someone else's note" in others


def test_a_shared_collections_files_hold_none_of_the_owners_notes(api: Api) -> None:
    with api.key_client() as owner:
        make_note(owner, "2007.01282", SECRET)
        collection_id = make_collection(owner, "Shared reading", "2007.01282")
        link = owner.post(f"/api/collections/{collection_id}/share").json()["url"]
    with api.client() as anyone:
        files = [anyone.get(link, params={"format": f}) for f in ("json", "markdown", "csv")]

    assert [f.status_code for f in files] == [200, 200, 200]
    assert all(SECRET not in f.text for f in files)
    assert "Shared reading" in files[1].text
