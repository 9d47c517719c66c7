"""The data dir a server needs: `prepare_service` makes it once; the app factory only checks."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from chat.service.access.auth import SECRET_KEY_FILE, SessionSigner
from chat.service.app import create_app
from chat.service.bootstrap import NotPrepared, prepare_service, secret_key
from chat.service.storage.conversations import (
    get_conversation,
    open_turn,
    update_assistant_message,
)
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import current_revision, head_revision, upgrade_database
from chat.service.storage.tables import User, utcnow
from chat.settings import Settings, SettingsError
from chat.wiring import Wiring
from tests.fakes.openai import FakeOpenAI
from tests.support.running.disk import fill, tiny_disk
from tests.support.running.net import serving, unused_port
from tests.support.running.server import Api, fake_llm_fixture, served_settings  # noqa: F401 - a fixture


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url="", secret_key=None)


def test_prepare_migrates_to_the_head_and_keeps_one_secret_key(settings: Settings) -> None:
    prepare_service(settings)
    first_key = (settings.data_dir / SECRET_KEY_FILE).read_text(encoding="utf-8")
    prepare_service(settings)

    engine = create_database_engine(settings.resolved_database_url)
    with engine.connect() as connection:
        revision = current_revision(connection)
    engine.dispose()
    assert revision == head_revision()
    assert (settings.data_dir / SECRET_KEY_FILE).read_text(encoding="utf-8") == first_key
    assert secret_key(settings) == first_key.strip()


def test_the_factory_refuses_a_fresh_database(settings: Settings) -> None:
    with pytest.raises(
        NotPrepared, match=r"at revision none, not .* `paperchat serve` prepares it"
    ):
        create_app(settings)


def test_the_factory_refuses_to_make_a_secret_key(settings: Settings) -> None:
    upgrade_database(settings.resolved_database_url)

    with pytest.raises(NotPrepared, match="no secret key: PAPERCHAT_SECRET_KEY is not set"):
        create_app(settings)

    assert not (settings.data_dir / SECRET_KEY_FILE).exists()


def test_a_configured_secret_key_needs_no_file(settings: Settings) -> None:
    configured = settings.model_copy(update={"secret_key": SecretStr("a configured key")})
    prepare_service(configured)

    app = create_app(configured)

    signer = app.state.services.signer
    assert signer.token(SessionSigner("a configured key", 60).sign("a token")) == "a token"
    assert signer.token(SessionSigner("another key", 60).sign("a token")) is None
    assert not (settings.data_dir / SECRET_KEY_FILE).exists()
    app.state.services.engine.dispose()


def test_answers_left_streaming_by_a_killed_server_are_interrupted_at_start(
    settings: Settings,
) -> None:
    # A SQLite database is one machine's: every answer streaming at start was cut off, even
    # one whose server beat a moment ago.
    prepare_service(settings)
    engine = create_database_engine(settings.resolved_database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        user = User(email="ada@example.org", password_hash="unused")
        session.add(user)
        session.commit()
        conversation, finished = open_turn(session, user.id, None, "first")
        update_assistant_message(session, user.id, finished.id, content="Done.", status="complete")
        open_turn(session, user.id, conversation.id, "second, cut off by SIGKILL", node="gone")

    prepare_service(settings)

    with sessions() as session:
        messages = get_conversation(session, user.id, conversation.id).messages
    engine.dispose()
    assert [(m.role, m.status) for m in messages] == [
        ("user", "complete"),
        ("assistant", "complete"),
        ("user", "complete"),
        ("assistant", "interrupted"),
    ]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_on_a_shared_database_a_start_interrupts_only_answers_whose_node_went_silent(
    settings: Settings, database_url: str
) -> None:
    configured = settings.model_copy(
        update={"database_url": database_url, "secret_key": SecretStr("shared"), "stream_ttl_s": 30}
    )
    prepare_service(configured)
    engine = create_database_engine(database_url)
    sessions = session_factory(engine)
    with sessions() as session:
        user = User(email="ada@example.org", password_hash="unused")
        session.add(user)
        session.commit()
        live, _ = open_turn(session, user.id, None, "on a node streaming now", node="live")
        dead, silent = open_turn(session, user.id, None, "on a node killed", node="dead")
        silent.heartbeat_at = utcnow() - timedelta(seconds=31)
        session.commit()

    prepare_service(configured)

    with sessions() as session:
        statuses = {
            c.id: get_conversation(session, user.id, c.id).messages[1].status for c in (live, dead)
        }
    engine.dispose()
    assert statuses == {live.id: "streaming", dead.id: "interrupted"}


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_shared_database_needs_the_secret_key_setting(
    settings: Settings, database_url: str
) -> None:
    configured = settings.model_copy(update={"database_url": database_url})

    with pytest.raises(SettingsError, match="PAPERCHAT_SECRET_KEY is not set") as at_start:
        prepare_service(configured)
    upgrade_database(database_url)
    with pytest.raises(SettingsError, match="PAPERCHAT_SECRET_KEY is not set"):
        create_app(configured)

    assert "every node sharing the database must have the same one" in str(at_start.value)
    assert not (settings.data_dir / SECRET_KEY_FILE).exists()


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_data_dir_database_and_secret_key_are_the_owners_alone(settings: Settings) -> None:
    settings.data_dir.parent.chmod(0o755)

    prepare_service(settings)

    data = settings.data_dir
    assert _mode(data) == 0o700
    assert _mode(data / SECRET_KEY_FILE) == 0o600
    files = sorted(p.name for p in data.iterdir() if p.name.startswith("paperchat.sqlite"))
    assert files[:1] == ["paperchat.sqlite"]
    assert {p: _mode(data / p) for p in files} == dict.fromkeys(files, 0o600)


def test_an_existing_open_data_dir_and_database_are_made_private(settings: Settings) -> None:
    settings.data_dir.mkdir(mode=0o755)
    settings.data_dir.chmod(0o755)
    database = settings.data_dir / "paperchat.sqlite"
    database.touch()
    database.chmod(0o644)

    prepare_service(settings)

    assert _mode(settings.data_dir) == 0o700
    assert _mode(database) == 0o600


def test_a_full_disk_under_the_database_is_507_and_loses_nothing(
    tmp_path: Path, small_index: Wiring, fake_llm: FakeOpenAI
) -> None:
    with tiny_disk(tmp_path / "disk", "2m") as disk:
        settings = served_settings(small_index, fake_llm, disk / "db.sqlite")
        prepare_service(settings)
        app = create_app(settings)
        with serving(app, unused_port()) as base_url:
            api = Api(base_url, app, fake_llm)
            with api.signed_in() as client:
                assert client.post("/api/keys", json={"name": "before"}).status_code == 201
                filler = fill(disk)

                full = client.post("/api/keys", json={"name": "while full"})
                filler.unlink()
                after = client.post("/api/keys", json={"name": "after"})
                names = [k["name"] for k in client.get("/api/keys").json()]

    assert full.status_code == 507
    assert full.json() == {
        "detail": "the server's disk is full: nothing was saved; try again later"
    }
    assert after.status_code == 201
    assert sorted(names) == ["after", "before"]
