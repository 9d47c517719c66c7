"""Collections on SQLite and PostgreSQL: their owner's alone, their names unique per user,
their bounds kept, the same paper added by several requests at once added once."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sqlalchemy.orm import Session, sessionmaker

from chat.service.access.accounts import create_user
from chat.service.storage.collections import (
    CollectionNotFound,
    NameTaken,
    TooMany,
    add_paper,
    create_collection,
    delete_collection,
    fill_collection,
    get_collection,
    list_collections,
    new_share_token,
    paper_ids,
    remove_paper,
    rename_collection,
    revoke_share_token,
    shared_collection,
)
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from tests.support.running.concurrency import at_once

pytestmark = pytest.mark.timeout(120)

REQUESTS = 8
LOTS = 100


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


def _user(sessions: sessionmaker[Session], email: str) -> str:
    with sessions() as session:
        return create_user(session, email, "a long password").id


@pytest.mark.parametrize("attempt", range(3))
def test_the_same_paper_added_at_once_is_held_once(
    sessions: sessionmaker[Session], attempt: int
) -> None:
    user_id = _user(sessions, f"a{attempt}@example.org")
    with sessions() as session:
        collection_id = create_collection(session, user_id, "Retrieval", max_collections=LOTS).id
    added: list[bool] = []

    def add() -> None:
        with sessions() as session:
            added.append(add_paper(session, user_id, collection_id, "2007.01282", max_papers=LOTS))

    failures = at_once(add, REQUESTS)

    assert failures == []
    assert sorted(added) == [False] * (REQUESTS - 1) + [True]
    with sessions() as session:
        assert paper_ids(session, get_collection(session, user_id, collection_id)) == ["2007.01282"]


def test_another_users_collection_is_not_found_by_any_change(
    sessions: sessionmaker[Session],
) -> None:
    owner, other = _user(sessions, "owner@example.org"), _user(sessions, "other@example.org")
    with sessions() as session:
        collection_id = create_collection(session, owner, "Mine", max_collections=LOTS).id
        add_paper(session, owner, collection_id, "2007.01282", max_papers=LOTS)
    attempts: dict[str, Callable[[Session], object]] = {
        "get": lambda s: get_collection(s, other, collection_id),
        "rename": lambda s: rename_collection(s, other, collection_id, "Theirs"),
        "delete": lambda s: delete_collection(s, other, collection_id),
        "add": lambda s: add_paper(s, other, collection_id, "1503.02531", max_papers=LOTS),
        "remove": lambda s: remove_paper(s, other, collection_id, "2007.01282"),
        "share": lambda s: new_share_token(s, other, collection_id),
        "unshare": lambda s: revoke_share_token(s, other, collection_id),
    }
    refused = []

    for name, attempt in attempts.items():
        with sessions() as session, pytest.raises(CollectionNotFound):
            attempt(session)
        refused.append(name)

    assert refused == list(attempts)
    with sessions() as session:
        collection = get_collection(session, owner, collection_id)
        assert (collection.name, paper_ids(session, collection)) == ("Mine", ["2007.01282"])
        assert list_collections(session, other) == []


def test_a_name_is_one_users_once_but_two_users_may_share_it(
    sessions: sessionmaker[Session],
) -> None:
    first, second = _user(sessions, "first@example.org"), _user(sessions, "second@example.org")
    with sessions() as session:
        create_collection(session, first, "Reading", max_collections=LOTS)
        other = create_collection(session, first, "Later", max_collections=LOTS)
        create_collection(session, second, "Reading", max_collections=LOTS)

        with pytest.raises(NameTaken, match="'Reading'"):
            create_collection(session, first, "Reading", max_collections=LOTS)
        with pytest.raises(NameTaken):
            rename_collection(session, first, other.id, "Reading")

        names = [c.name for c, _ in list_collections(session, first)]
    assert names == ["Reading", "Later"]


def test_collections_and_papers_past_their_bounds_are_refused(
    sessions: sessionmaker[Session],
) -> None:
    user_id = _user(sessions, "bounded@example.org")
    with sessions() as session:
        collection_id = create_collection(session, user_id, "One", max_collections=2).id
        create_collection(session, user_id, "Two", max_collections=2)
        for paper_id in ("2007.01282", "1503.02531"):
            add_paper(session, user_id, collection_id, paper_id, max_papers=2)

        with pytest.raises(TooMany, match="at most 2 collections"):
            create_collection(session, user_id, "Three", max_collections=2)
        with pytest.raises(TooMany, match="at most 2 papers"):
            add_paper(session, user_id, collection_id, "1812.06145", max_papers=2)
        again = add_paper(session, user_id, collection_id, "1503.02531", max_papers=2)

        counts = [n for _, n in list_collections(session, user_id)]
    assert again is False
    assert counts == [2, 0]


def test_a_revoked_or_replaced_share_token_opens_nothing(sessions: sessionmaker[Session]) -> None:
    user_id = _user(sessions, "sharer@example.org")
    with sessions() as session:
        collection_id = create_collection(session, user_id, "Shared", max_collections=LOTS).id
        first = new_share_token(session, user_id, collection_id)
        second = new_share_token(session, user_id, collection_id)
        opened = shared_collection(session, second).id

        with pytest.raises(CollectionNotFound):
            shared_collection(session, first)
        revoked = revoke_share_token(session, user_id, collection_id)
        with pytest.raises(CollectionNotFound):
            shared_collection(session, second)
        revoked_again = revoke_share_token(session, user_id, collection_id)

    assert opened == collection_id
    assert (revoked, revoked_again) == (True, False)


def test_deleting_a_collection_removes_its_papers_and_its_link(
    sessions: sessionmaker[Session],
) -> None:
    user_id = _user(sessions, "deleter@example.org")
    with sessions() as session:
        collection_id = create_collection(session, user_id, "Gone", max_collections=LOTS).id
        add_paper(session, user_id, collection_id, "2007.01282", max_papers=LOTS)
        token = new_share_token(session, user_id, collection_id)

        delete_collection(session, user_id, collection_id)

        with pytest.raises(CollectionNotFound):
            get_collection(session, user_id, collection_id)
        with pytest.raises(CollectionNotFound):
            shared_collection(session, token)
        with pytest.raises(CollectionNotFound):
            delete_collection(session, user_id, collection_id)


def test_filling_a_collection_keeps_the_first_papers_that_fit_in_their_order(
    sessions: sessionmaker[Session],
) -> None:
    user_id = _user(sessions, "importer@example.org")
    wanted = ["2007.01282", "1812.06145", "2007.01282", "1503.02531", "1706.03762"]
    with sessions() as session:
        collection = create_collection(session, user_id, "Imported", max_collections=LOTS)

        left_out = fill_collection(session, collection, wanted, max_papers=2)

        held = paper_ids(session, collection)
    assert held == ["2007.01282", "1812.06145"]
    assert left_out == ["1503.02531", "1706.03762"]
