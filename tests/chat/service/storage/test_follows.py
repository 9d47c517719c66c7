"""Follows on SQLite and PostgreSQL: the same follow asked for by several requests at once
is made once, and every request is given its id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from chat.library.follows import Target
from chat.service.access.accounts import create_user
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.follows import TooManyFollows, add_follow, list_follows
from chat.service.storage.migrations import upgrade_database
from tests.support.running.concurrency import at_once

pytestmark = pytest.mark.timeout(120)

REQUESTS = 8


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.mark.parametrize("attempt", range(3))
def test_the_same_follow_asked_for_at_once_is_made_once_with_one_id(
    sessions: sessionmaker[Session], attempt: int
) -> None:
    with sessions() as session:
        user_id = create_user(session, f"a{attempt}@example.org", "a long password").id
    answers: list[tuple[str, bool]] = []

    def follow() -> None:
        with sessions() as session:
            made, created = add_follow(session, user_id, Target("category", "cs.CL"), 0)
            answers.append((made.id, created))

    failures = at_once(follow, REQUESTS)

    assert failures == []
    assert len(answers) == REQUESTS
    assert len({follow_id for follow_id, _ in answers}) == 1
    assert [created for _, created in answers].count(True) == 1
    with sessions() as session:
        assert [f.id for f in list_follows(session, user_id)] == [answers[0][0]]


def test_follows_past_a_user_s_bounds_are_refused(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        user_id = create_user(session, "bounded@example.org", "a long password").id
        for category in ("cs.CL", "cs.LG"):
            add_follow(session, user_id, Target("category", category), 0, max_category_follows=2)
        add_follow(session, user_id, Target("search", "graphs"), 0, max_follows=3)

        with pytest.raises(TooManyFollows, match="at most 2 categories"):
            add_follow(session, user_id, Target("category", "cs.IR"), 0, max_category_follows=2)
        with pytest.raises(TooManyFollows, match="at most 3 researchers"):
            add_follow(session, user_id, Target("search", "trees"), 0, max_follows=3)
        _, created = add_follow(
            session, user_id, Target("category", "cs.CL"), 0, max_category_follows=2
        )
        listed = [f.value for f in list_follows(session, user_id)]

    assert not created
    assert listed == ["cs.CL", "cs.LG", "graphs"]
