"""Conversations and messages, scoped to their owner, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, sessionmaker

from chat.service.storage.conversations import (
    UNTITLED,
    NotFound,
    beat,
    delete_conversation,
    existing_answers,
    get_conversation,
    list_conversations,
    mark_interrupted,
    messages_before,
    open_turn,
    title_from,
    update_assistant_message,
)
from chat.service.storage.db import create_database_engine, session_factory
from chat.service.storage.migrations import upgrade_database
from chat.service.storage.tables import Message, User, utcnow

SOURCES = [
    {
        "n": 1,
        "id": "2203.12533",
        "title": "Émile's «attention» paper",
        "kind": "fulltext",
        "page": 3,
        "score": 0.81,
        "section": None,
    }
]


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade_database(database_url)
    engine = create_database_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    with sessions() as session:
        yield session


def _user(session: Session, email: str) -> str:
    # Users are made directly: password hashing is not what these tests are about.
    user = User(email=email, password_hash="unused")
    session.add(user)
    session.commit()
    return user.id


@pytest.fixture
def ada(session: Session) -> str:
    return _user(session, "ada@example.org")


@pytest.fixture
def grace(session: Session) -> str:
    return _user(session, "grace@example.org")


def test_title_is_the_first_message_on_one_line_cut_near_sixty_characters() -> None:
    long = "How does   the Fusion-in-Decoder model\ncombine evidence from many retrieved passages?"

    assert title_from("  What is attention?\n") == "What is attention?"
    assert title_from(long) == "How does the Fusion-in-Decoder model combine evidence from…"
    assert len(title_from("x" * 500)) == 60
    assert title_from(" \n ") == UNTITLED


def test_messages_come_back_in_order_with_their_json_fields(
    sessions: sessionmaker[Session], session: Session, ada: str
) -> None:
    conversation, answer = open_turn(
        session,
        ada,
        None,
        "  What is attention?  ",
        mode="llm",
        prompt_version="v3",
        model="gpt-4o-mini",
    )
    update_assistant_message(
        session,
        ada,
        answer.id,
        content="Attention weighs tokens [arXiv:2203.12533].",
        status="complete",
        sources=SOURCES,
        citations=["2203.12533"],
        usage={"prompt_tokens": 812, "completion_tokens": 41},
        timings={"retrieval_ms": 12.5, "first_token_ms": 300, "total_ms": 910},
    )
    open_turn(session, ada, conversation.id, "And self-attention?")

    with sessions() as fresh:
        loaded = get_conversation(fresh, ada, conversation.id)

    assert loaded.title == "What is attention?"
    assert [(m.position, m.role, m.status) for m in loaded.messages] == [
        (1, "user", "complete"),
        (2, "assistant", "complete"),
        (3, "user", "complete"),
        (4, "assistant", "streaming"),
    ]
    reply = loaded.messages[1]
    assert reply.content == "Attention weighs tokens [arXiv:2203.12533]."
    assert (reply.mode, reply.prompt_version, reply.model) == ("llm", "v3", "gpt-4o-mini")
    assert reply.sources == SOURCES
    assert reply.citations == ["2203.12533"]
    assert reply.usage == {"prompt_tokens": 812, "completion_tokens": 41}
    assert reply.timings == {"retrieval_ms": 12.5, "first_token_ms": 300, "total_ms": 910}
    assert loaded.messages[0].sources == []
    assert loaded.messages[0].usage is None
    assert reply.created_at.tzinfo is not None


def test_streaming_answer_is_saved_as_it_grows(
    sessions: sessionmaker[Session], session: Session, ada: str
) -> None:
    conversation, answer = open_turn(session, ada, None, "What is attention?", sources=SOURCES)

    update_assistant_message(session, ada, answer.id, content="Attention weighs")

    with sessions() as reader:
        partial = get_conversation(reader, ada, conversation.id).messages[1]
    assert (partial.status, partial.content, partial.sources) == (
        "streaming",
        "Attention weighs",
        SOURCES,
    )

    update_assistant_message(
        session, ada, answer.id, content="Attention weighs", status="cancelled"
    )

    with sessions() as reader:
        final = get_conversation(reader, ada, conversation.id).messages[1]
    assert (final.status, final.content) == ("cancelled", "Attention weighs")


def test_list_is_newest_activity_first(session: Session, ada: str, grace: str) -> None:
    first, _ = open_turn(session, ada, None, "first")
    second, _ = open_turn(session, ada, None, "second")
    third, _ = open_turn(session, ada, None, "third")
    open_turn(session, grace, None, "not ada's")

    open_turn(session, ada, first.id, "back to the first one")

    assert [c.id for c in list_conversations(session, ada)] == [first.id, third.id, second.id]
    assert [c.id for c in list_conversations(session, ada, limit=2)] == [first.id, third.id]
    assert first.updated_at > first.created_at


def _as_grace(conversation_id: str, message_id: str) -> dict[str, Callable[..., Any]]:
    return {
        "get": lambda s, u: get_conversation(s, u, conversation_id),
        "delete": lambda s, u: delete_conversation(s, u, conversation_id),
        "continue": lambda s, u: open_turn(s, u, conversation_id, "mine now"),
        "update": lambda s, u: update_assistant_message(s, u, message_id, content="mine"),
    }


@pytest.mark.parametrize("action", ["get", "delete", "continue", "update"])
def test_another_users_conversation_is_not_found(
    sessions: sessionmaker[Session], session: Session, ada: str, grace: str, action: str
) -> None:
    conversation, answer = open_turn(session, ada, None, "private")

    with pytest.raises(NotFound):
        _as_grace(conversation.id, answer.id)[action](session, grace)

    assert list_conversations(session, grace) == []
    with sessions() as fresh:
        kept = get_conversation(fresh, ada, conversation.id)
    assert [(m.role, m.content) for m in kept.messages] == [("user", "private"), ("assistant", "")]


def test_unknown_conversation_and_user_message_are_not_found(session: Session, ada: str) -> None:
    conversation, _ = open_turn(session, ada, None, "hello")
    question = get_conversation(session, ada, conversation.id).messages[0]

    with pytest.raises(NotFound):
        get_conversation(session, ada, str(uuid.uuid4()))
    with pytest.raises(NotFound):
        update_assistant_message(session, ada, question.id, content="rewritten")


def test_delete_removes_the_conversation_and_its_messages(session: Session, ada: str) -> None:
    conversation, _ = open_turn(session, ada, None, "hello")
    kept, _ = open_turn(session, ada, None, "kept")

    delete_conversation(session, ada, conversation.id)

    with pytest.raises(NotFound):
        get_conversation(session, ada, conversation.id)
    assert [c.id for c in list_conversations(session, ada)] == [kept.id]
    left = select(func.count()).select_from(Message).group_by(Message.conversation_id)
    assert session.scalars(left).all() == [2]  # the kept conversation's turn only


def test_a_turns_history_is_every_turn_numbered_before_it_and_none_after(
    session: Session, ada: str, grace: str
) -> None:
    conversation, first = open_turn(session, ada, None, "What is attention?")
    update_assistant_message(session, ada, first.id, content="It weighs.", status="complete")
    _, earlier = open_turn(session, ada, conversation.id, "And self-attention?")
    _, later = open_turn(session, ada, conversation.id, "And cross-attention?")

    before_earlier = messages_before(session, ada, earlier)
    before_later = messages_before(session, ada, later)

    assert [m.content for m in before_earlier] == ["What is attention?", "It weighs."]
    assert [(m.content, m.status) for m in before_later] == [
        ("What is attention?", "complete"),
        ("It weighs.", "complete"),
        ("And self-attention?", "complete"),
        ("", "streaming"),
    ]
    assert messages_before(session, grace, later) == []


def test_existing_answers_are_those_of_undeleted_conversations_in_one_query(
    session: Session, ada: str, grace: str
) -> None:
    deleted, deleted_reply = open_turn(session, ada, None, "deleted")
    kept, kept_reply = open_turn(session, ada, None, "kept")
    _, other_users_reply = open_turn(session, grace, None, "grace's")
    question = session.scalars(
        select(Message).where(Message.conversation_id == kept.id, Message.role == "user")
    ).one()
    delete_conversation(session, ada, deleted.id)
    statements: list[str] = []
    event.listen(session.get_bind(), "before_cursor_execute", lambda *a: statements.append(a[2]))
    asked = [deleted_reply.id, kept_reply.id, other_users_reply.id, question.id, "unknown"]

    found = existing_answers(session, asked)

    assert found == {kept_reply.id, other_users_reply.id}
    assert len(statements) == 1


def test_a_turn_is_one_commit(session: Session, ada: str) -> None:
    commits: list[Session] = []
    event.listen(session, "after_commit", commits.append)

    conversation, _ = open_turn(session, ada, None, "first question")
    open_turn(session, ada, conversation.id, "second question")

    assert len(commits) == 2
    assert [m.role for m in get_conversation(session, ada, conversation.id).messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


@pytest.mark.timeout(120)
def test_simultaneous_follow_ups_each_get_their_own_positions(
    sessions: sessionmaker[Session], session: Session, ada: str
) -> None:
    # Two tabs, or a double submit: the turns are numbered under the database's lock.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    conversation, _ = open_turn(session, ada, None, "first question")
    followers = 12
    start = threading.Barrier(followers, timeout=30)

    def follow_up(n: int) -> int:
        with sessions() as own:
            start.wait()
            _, reply = open_turn(own, ada, conversation.id, f"follow-up {n}")
            return reply.position

    with ThreadPoolExecutor(max_workers=followers) as pool:
        replies = list(pool.map(follow_up, range(followers)))

    positions = list(
        session.scalars(select(Message.position).where(Message.conversation_id == conversation.id))
    )
    assert sorted(positions) == list(range(1, 2 * followers + 3))
    assert sorted(replies) == list(range(4, 2 * followers + 3, 2))


def test_only_answers_whose_node_stopped_beating_are_interrupted(
    session: Session, ada: str
) -> None:
    _, beating = open_turn(session, ada, None, "on a live node", node="live")
    _, silent = open_turn(session, ada, None, "on a killed node", node="killed")
    _, unowned = open_turn(session, ada, None, "from before nodes beat")
    _, finished = open_turn(session, ada, None, "already answered", node="killed")
    update_assistant_message(session, ada, finished.id, content="Done.", status="complete")
    an_hour_ago = utcnow() - timedelta(hours=1)
    for message in (beating, silent, unowned, finished):
        message.heartbeat_at = an_hour_ago
    unowned.heartbeat_at = None
    session.commit()

    beaten = beat(session, "live")
    cut_off = mark_interrupted(session, beaten_before=utcnow() - timedelta(seconds=30))

    now = select(Message).execution_options(populate_existing=True)
    statuses = {m.id: m.status for m in session.scalars(now)}
    assert beaten == 1
    assert cut_off == 2
    assert statuses[beating.id] == "streaming"
    assert statuses[silent.id] == "interrupted"
    assert statuses[unowned.id] == "interrupted"
    assert statuses[finished.id] == "complete"
