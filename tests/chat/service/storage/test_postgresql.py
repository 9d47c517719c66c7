"""The API on PostgreSQL: accounts, keys, a streamed answer and its conversation, end to end,
with the catalog in the same database (copied there from the test index's file)."""

from __future__ import annotations

import pytest

from chat.service.app import create_app
from chat.service.bootstrap import prepare_service
from chat.settings import Settings
from ingest.index.catalog import Catalog
from ingest.index.copying import copy_catalog
from tests.fakes.openai import FakeOpenAI
from tests.support.running.net import serving, unused_port
from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    PASSWORD,
    Api,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
    read_events,
)

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_user_signs_in_asks_and_finds_the_conversation_on_postgresql(
    api_settings: Settings, fake_llm: FakeOpenAI, database_url: str
) -> None:
    settings = api_settings.model_copy(update={"database_url": database_url})
    shared = Catalog(settings.catalog_location)
    copy_catalog(Catalog(api_settings.catalog_path), shared)
    shared.close()
    prepare_service(settings)
    app = create_app(settings)

    with serving(app, unused_port()) as base_url:
        api = Api(base_url, app, fake_llm)
        email = api.new_user()
        with api.signed_in(email) as client:
            created = client.post("/api/keys", json={"name": "laptop"})
            with client.stream(
                "POST",
                "/api/chat",
                json={"message": "How does Fusion-in-Decoder combine the retrieved passages?"},
            ) as response:
                events = read_events(response)
            conversations = client.get("/api/conversations").json()
            conversation = client.get(f"/api/conversations/{conversations[0]['id']}").json()
        with api.client(Authorization=f"Bearer {created.json()['key']}") as by_key:
            me = by_key.get("/api/me").json()

    assert [e.name for e in events][:2] == ["meta", "sources"]
    assert events[1].data["sources"], "the shared catalog's passages were found"
    assert events[-1].name == "done"
    assert me["email"] == email
    assert len(conversations) == 1
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    assert conversation["messages"][1]["status"] == "complete"
    assert conversation["messages"][1]["content"] == fake_llm.default_script.text
    assert conversation["messages"][1]["sources"] == events[1].data["sources"]
