"""`paperchat harvest`: the followed categories' newest papers from the (fake) arXiv API
join the index, asked for politely: 3 s apart, and no sooner than a Retry-After says."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from chat.cli.harvest import parse_duration
from chat.library.follows import Target
from chat.service.access.accounts import create_user
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.digests import set_digest_frequency
from chat.service.storage.follows import add_follow
from chat.service.storage.migrations import upgrade_database
from tests.chat.service.test_mail import (  # noqa: F401 - a pytest fixture, used by name
    REFUSED,
    Inbox,
    inbox_fixture,
)
from tests.fakes.arxiv import FakeArxiv, FakePaper
from tests.support.running.cli import environment, run

pytestmark = [pytest.mark.timeout(600), pytest.mark.slow]

PAPERS = [
    FakePaper("2401.00001", title="Parsing with graphs", categories=("cs.CL",)),
    FakePaper("2401.00002", title="Dark matter halos", categories=("astro-ph.CO",)),
    FakePaper("2401.00003", title="Tokenisers compared", categories=("cs.CL", "cs.LG")),
    FakePaper("2401.00004", title="Knots and links", categories=("math.GT",)),
]


def _follow_categories(
    database: str, categories: list[str], emails: tuple[str, ...] = ("reader@example.org",)
) -> None:
    upgrade_database(database)
    with session_factory(create_database_engine(database))() as session:
        for email in emails:
            user = create_user(session, email, "a long password")
            for category in categories:
                add_follow(session, user.id, Target("category", category), 0)
            set_digest_frequency(session, user.id, "daily")


def test_harvest_adds_the_followed_categories_papers_politely(
    tmp_path: Path, models_cache: Path
) -> None:
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    _follow_categories(database, ["cs.CL", "astro-ph.CO"])
    with FakeArxiv(PAPERS) as arxiv:
        arxiv.fail_next(1, status=503, retry_after="2")
        env = environment(
            tmp_path / "data",
            models_cache,
            PAPERCHAT_DATABASE_URL=database,
            PAPERCHAT_ARXIV_API_URL=arxiv.api_url,
            PAPERCHAT_ARXIV_PDF_URL=arxiv.pdf_base_url,
        )
        result = run(env, "harvest", "--every", "1s", "--rounds", "1")
        asked = arxiv.requests

    db = sqlite3.connect(tmp_path / "data" / "catalog.sqlite")
    indexed = {row[0] for row in db.execute("SELECT id FROM papers")}
    db.close()
    assert result.code == 0, result.stderr
    expected = {p.id for p in PAPERS if {"cs.CL", "astro-ph.CO"} & set(p.categories)}
    assert indexed == expected
    queries = [r.params["search_query"] for r in asked]
    assert queries == ["cat:astro-ph.CO", "cat:astro-ph.CO", "cat:cs.CL"]
    assert {r.params["sortBy"] for r in asked} == {"submittedDate"}
    gaps = [later.started - earlier.started for earlier, later in itertools.pairwise(asked)]
    assert gaps[0] >= 2  # the Retry-After
    assert gaps[1] >= 3  # arXiv's interval


def test_harvest_without_follows_asks_nothing(tmp_path: Path, models_cache: Path) -> None:
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    _follow_categories(database, [])
    with FakeArxiv(PAPERS) as arxiv:
        env = environment(tmp_path / "data", models_cache, PAPERCHAT_DATABASE_URL=database)
        env["PAPERCHAT_ARXIV_API_URL"] = arxiv.api_url
        result = run(env, "harvest")
        asked = arxiv.requests

    assert result.code == 0, result.stderr
    assert "no category is followed" in result.stdout
    assert asked == []


@pytest.mark.parametrize(("text", "seconds"), [("6h", 21600), ("30m", 1800), ("1d", 86400)])
def test_durations_read_as_seconds(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["6", "0h", "six hours", "-1h"])
def test_a_duration_without_a_unit_or_above_zero_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


def test_a_digest_the_mail_server_refuses_is_listed_and_the_others_are_sent(
    tmp_path: Path, models_cache: Path, inbox: tuple[Inbox, str]
) -> None:
    handler, smtp_url = inbox
    database = f"sqlite:///{tmp_path / 'db.sqlite'}"
    emails = ("first@example.org", REFUSED, "last@example.org")
    _follow_categories(database, ["math.GT"], emails)
    with FakeArxiv(PAPERS) as arxiv:
        env = environment(
            tmp_path / "data",
            models_cache,
            PAPERCHAT_DATABASE_URL=database,
            PAPERCHAT_ARXIV_API_URL=arxiv.api_url,
            PAPERCHAT_ARXIV_PDF_URL=arxiv.pdf_base_url,
            PAPERCHAT_SMTP_URL=smtp_url,
        )
        result = run(env, "harvest")

    assert result.code == 1, result.stderr
    assert f"the digest to {REFUSED} bounced: " in result.stderr
    assert "harvest: 2 e-mail digests sent, 1 refused by the mail server" in result.stdout
    assert sorted(m["To"] for m in handler.messages) == ["first@example.org", "last@example.org"]
