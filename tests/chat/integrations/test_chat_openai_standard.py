"""LangChain's standard chat-model suite (`langchain-tests`) against a served paperchat.

`ChatOpenAI` (langchain-openai) is pointed at `/v1` of the test server (a
real uvicorn on 127.0.0.1, the small index, the fake model server behind
it) with an API key of its own. What paperchat does not offer is declared
so: tool calling, structured output and JSON mode, image, PDF and audio
inputs, another model by name. Every test that runs must pass.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from langchain_openai import ChatOpenAI
from langchain_tests.integration_tests import ChatModelIntegrationTests

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(300)  # the first test of a run builds the index

# Where the served instance is, set for each test before its model is made.
_SERVED: dict[str, Any] = {}


class TestChatOpenAIAgainstPaperchat(ChatModelIntegrationTests):
    @pytest.fixture(autouse=True)
    def _served(self, api: Api) -> None:
        if "base_url" not in _SERVED:
            _SERVED.update(base_url=f"{api.base_url}/v1", api_key=api.key_for(api.new_user()))

    @pytest.fixture(autouse=True)
    async def _async_client(self) -> AsyncIterator[None]:
        """An async HTTP client on the test's own event loop (langchain-openai otherwise
        shares one between tests, bound to the first test's loop)."""
        async with httpx.AsyncClient(timeout=60) as client:
            _SERVED["http_async_client"] = client
            yield
        del _SERVED["http_async_client"]

    @property
    def chat_model_class(self) -> type[ChatOpenAI]:
        return ChatOpenAI

    @property
    def chat_model_params(self) -> dict[str, Any]:
        # `stream_usage`: ChatOpenAI asks for the usage chunk only from OpenAI itself.
        return {
            "model": "paperchat",
            "max_retries": 0,
            "timeout": 60,
            "stream_usage": True,
            **_SERVED,
        }

    @property
    def has_tool_calling(self) -> bool:
        return False

    @property
    def has_tool_choice(self) -> bool:
        return False

    @property
    def has_structured_output(self) -> bool:
        return False

    @property
    def supports_json_mode(self) -> bool:
        return False

    @property
    def supports_image_inputs(self) -> bool:
        return False

    @property
    def supports_image_urls(self) -> bool:
        return False

    @property
    def supports_pdf_inputs(self) -> bool:
        return False

    @property
    def supports_audio_inputs(self) -> bool:
        return False

    @property
    def supports_model_override(self) -> bool:
        return False

    @property
    def returns_usage_metadata(self) -> bool:
        return True
