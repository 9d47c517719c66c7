"""The MCP tests' world: the app on a real uvicorn (`api`) with the fake upstream model."""

from __future__ import annotations

from tests.support.running.server import (
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

__all__ = ["api_fixture", "api_settings_fixture", "fake_llm_fixture", "fresh_upstream_fixture"]
