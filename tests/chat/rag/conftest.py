"""Fixtures of the chat tests: a fake OpenAI-compatible server of the test's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai import FakeOpenAI


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A fresh fake upstream on 127.0.0.1 for one test."""
    with FakeOpenAI() as server:
        yield server
