"""The e-mail digest of alerts, sent to a local SMTP server (aiosmtpd on 127.0.0.1): due
users get their new unread alerts once a period, others nothing."""

from __future__ import annotations

import asyncio
import email
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy.orm import Session, sessionmaker

from chat.library.follows import Target
from chat.service.access.accounts import create_user
from chat.service.mail import MailError, send_digests
from chat.service.storage.alerts import start_rowid
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.digests import digest_bounce, set_digest_frequency
from chat.service.storage.follows import add_follow
from chat.service.storage.migrations import upgrade_database
from ingest.index.catalog import Catalog
from ingest.index.records import Paper
from tests.support.running.net import unused_port

SITE = "https://papers.example.org"


REFUSED = "gone@example.org"


class Inbox:
    """Takes every message, but for REFUSED, whose mailbox does not exist (550)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_RCPT(
        self, _server: Any, _session: Any, envelope: Any, address: str, _options: Any
    ) -> str:
        if address == REFUSED:
            return "550 5.1.1 no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture(name="inbox")
def inbox_fixture() -> Iterator[tuple[Inbox, str]]:
    handler = Inbox()
    port = unused_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, f"smtp://127.0.0.1:{port}"
    controller.stop()


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    upgrade_database(url)
    return session_factory(create_database_engine(url))


def _paper(number: int) -> Paper:
    return Paper(
        id=f"2502.{number:05d}",
        title=f"Graphs, part {number}",
        abstract="About graphs.",
        authors="Ada Lovelace",
        categories=("cs.DM",),
        published="2025-02-01",
    )


def test_digest_sends_new_unread_alerts_once_a_period(
    inbox: tuple[Inbox, str], sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    handler, smtp_url = inbox
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with sessions() as session:
        daily = create_user(session, "daily@example.org", "a long password")
        quiet = create_user(session, "quiet@example.org", "a long password")
        for user in (daily, quiet):
            add_follow(session, user.id, Target("category", "cs.DM"), start_rowid(catalog))
        set_digest_frequency(session, daily.id, "daily")
    with catalog.transaction():
        for paper in (_paper(1), _paper(2)):
            catalog.replace_unit(paper, "metadata", "abstract", paper.title, [])
    now = datetime.now(UTC)

    def send(at: datetime) -> int:
        done = asyncio.run(send_digests(sessions, catalog, smtp_url, "pc@example.org", SITE, at))
        return done.sent

    first = send(now)
    too_soon = send(now + timedelta(hours=1))
    nothing_new = send(now + timedelta(days=1, minutes=1))
    catalog.close()

    assert (first, too_soon, nothing_new) == (1, 0, 0)
    [message] = handler.messages
    assert message["To"] == "daily@example.org"
    body = message.get_payload()
    assert isinstance(body, str)
    for paper in (_paper(1), _paper(2)):
        assert paper.title in body
        assert f"{SITE}/papers/{paper.id}" in body


def test_a_digest_to_an_unreachable_server_is_a_mail_error(
    sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    with sessions() as session:
        user = create_user(session, "daily@example.org", "a long password")
        add_follow(session, user.id, Target("category", "cs.DM"), start_rowid(catalog))
        set_digest_frequency(session, user.id, "daily")
    with catalog.transaction():
        catalog.replace_unit(_paper(1), "metadata", "abstract", "t", [])
    closed = f"smtp://127.0.0.1:{unused_port()}"

    with pytest.raises(MailError, match=r"daily@example\.org"):
        asyncio.run(send_digests(sessions, catalog, closed, "pc@example.org", SITE))
    catalog.close()


def test_a_recipient_the_server_refuses_is_recorded_and_the_others_still_get_theirs(
    inbox: tuple[Inbox, str], sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    handler, smtp_url = inbox
    catalog = Catalog(tmp_path / "catalog.sqlite")
    emails = ["first@example.org", REFUSED, "last@example.org"]
    with sessions() as session:
        users = [create_user(session, address, "a long password") for address in emails]
        for user in users:
            add_follow(session, user.id, Target("category", "cs.DM"), start_rowid(catalog))
            set_digest_frequency(session, user.id, "daily")
    with catalog.transaction():
        catalog.replace_unit(_paper(1), "metadata", "abstract", "t", [])
    now = datetime.now(UTC)

    done = asyncio.run(send_digests(sessions, catalog, smtp_url, "pc@example.org", SITE, now))
    catalog.close()

    assert done.sent == 2
    assert [address for address, _ in done.bounced] == [REFUSED]
    assert "550" in done.bounced[0][1]
    assert sorted(m["To"] for m in handler.messages) == ["first@example.org", "last@example.org"]
    with sessions() as session:
        bounces = {user.email: digest_bounce(session, user.id) for user in users}
    assert bounces["first@example.org"] == bounces["last@example.org"] == (None, "")
    bounced_at, answer = bounces[REFUSED]
    assert bounced_at is not None
    assert "no such mailbox here" in answer
