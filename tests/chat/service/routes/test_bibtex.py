"""BibTeX over HTTP: one paper, and the papers an answer cites, for their owner only."""

from __future__ import annotations

import re

import httpx
import pytest
from pybtex.database import parse_string

from tests.fakes.openai import ChatScript
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    SseEvent,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(300)

FID = "How does Fusion-in-Decoder combine the retrieved passages with distillation?"


def ask(
    client: httpx.Client, message: str = FID, paper_ids: tuple[str, ...] = ()
) -> tuple[str, str]:
    """(conversation id, answer's message id) of one answered question (from `paper_ids`
    only, when given)."""
    body = {"message": message, **({"paper_ids": list(paper_ids)} if paper_ids else {})}
    with client.stream("POST", "/api/chat", json=body) as response:
        assert response.status_code == 200, response.read()
        events: list[SseEvent] = read_events(response)
    assert events[-1].name == "done"
    return events[0].data["conversation_id"], events[0].data["message_id"]


def test_one_papers_bibtex_carries_its_arxiv_fields(api: Api) -> None:
    with api.key_client() as client:
        response = client.get("/api/papers/arXiv:1812.06145v1/bibtex")

    assert response.status_code == 200
    assert response.headers["content-type"] == "text/x-bibtex; charset=utf-8"
    data = parse_string(response.text, "bibtex")
    (key,) = data.entries
    entry = data.entries[key]
    assert re.fullmatch(r"abavisani\d{4}improving", key)
    assert entry.fields["eprint"] == "1812.06145"
    assert entry.fields["archivePrefix"] == "arXiv"
    assert entry.fields["primaryClass"] == "cs.CV"
    assert entry.fields["url"] == "https://arxiv.org/abs/1812.06145"
    assert [p.last_names for p in entry.persons["author"]] == [["Abavisani"], ["Joze"], ["Patel"]]
    assert f'filename="{key}.bib"' in response.headers["content-disposition"]


def test_the_api_copy_needs_a_sign_in_and_an_unknown_paper_is_a_404(api: Api) -> None:
    with api.client() as anonymous, api.key_client() as client:
        refused = anonymous.get("/api/papers/2007.01282/bibtex")
        unknown = client.get("/api/papers/9999.99999/bibtex")

    assert refused.status_code == 401
    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "no paper '9999.99999' in the index"}


def test_the_paper_page_links_its_public_bibtex(api: Api) -> None:
    with api.client() as anonymous:
        page = anonymous.get("/papers/2007.01282", follow_redirects=True)
        linked = anonymous.get("/papers/2007.01282/bibtex")

    assert 'href="/papers/2007.01282/bibtex"' in page.text
    assert linked.status_code == 200
    assert "eprint = {2007.01282}" in linked.text


def test_an_answers_bibtex_holds_the_papers_it_cites(api: Api) -> None:
    api.fake.default_script = ChatScript(
        pieces=("FiD [arXiv:2007.01282] and distillation [arXiv:1503.02531] [arXiv:2007.01282].",)
    )
    email = api.new_user()
    with api.key_client(email) as client:
        # Both papers among the sources, whatever else the question would retrieve.
        conversation_id, message_id = ask(client, paper_ids=("2007.01282", "1503.02531"))

        response = client.get(f"/api/conversations/{conversation_id}/messages/{message_id}/bibtex")

    assert response.status_code == 200
    data = parse_string(response.text, "bibtex")
    eprints = [entry.fields["eprint"] for entry in data.entries.values()]
    assert eprints == ["2007.01282", "1503.02531"]
    assert len(set(data.entries)) == 2


def test_an_answer_that_cites_nothing_gives_an_empty_file(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("No citation here.",))
    with api.key_client() as client:
        conversation_id, message_id = ask(client)

        response = client.get(f"/api/conversations/{conversation_id}/messages/{message_id}/bibtex")

    assert response.status_code == 200
    assert parse_string(response.text, "bibtex").entries == {}


def test_only_the_owner_gets_an_answers_bibtex(api: Api) -> None:
    api.fake.default_script = ChatScript(pieces=("FiD [arXiv:2007.01282].",))
    with api.key_client() as owner:
        conversation_id, message_id = ask(owner)
        question_id = owner.get(f"/api/conversations/{conversation_id}").json()["messages"][0]["id"]
        own_question = owner.get(
            f"/api/conversations/{conversation_id}/messages/{question_id}/bibtex"
        )
        unknown_message = owner.get(f"/api/conversations/{conversation_id}/messages/nope/bibtex")
    path = f"/api/conversations/{conversation_id}/messages/{message_id}/bibtex"

    with api.key_client() as other, api.client() as anonymous:
        others = other.get(path)
        nobody = anonymous.get(path)

    assert others.status_code == 404
    assert "eprint" not in others.text
    assert nobody.status_code == 401
    assert own_question.status_code == 404
    assert unknown_message.status_code == 404
