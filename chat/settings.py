"""The one settings tree, read from `PAPERCHAT_*` environment variables and `.env`.

Every setting is defined once, with its default, its bounds and its
description: in the group of fields it belongs to (`chat.settings_index`,
`chat.settings_answer`, `chat.settings_service`), which `Settings` is made of,
or in the config class it nests; the settings reference (`docs/settings.md`)
is written from these definitions by `chat/settings_doc.py`.
The retrieval and relevance knobs are the algorithm's own config classes,
nested: `PAPERCHAT_RETRIEVAL__K=10`, `PAPERCHAT_RETRIEVAL__FUSION__DENSE_WEIGHT=0.7`,
`PAPERCHAT_RELEVANCE__DENSE_ALONE=0.5`; their defaults are written there only.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.settings_answer import LlmSettings, RerankerSettings
from chat.settings_index import IndexSettings, IngestSettings
from chat.settings_service import ServiceSettings
from ingest.errors import PaperchatError

ENV_PREFIX = "PAPERCHAT_"
NESTED_DELIMITER = "__"


class SettingsError(PaperchatError):
    """A setting has a value it cannot take; the message names the variable."""


# The fields come in the order of the groups from the last base to the first (pydantic
# follows the method resolution order backwards), then the nested configs: the order of
# the settings reference.
class Settings(
    RerankerSettings, IngestSettings, ServiceSettings, LlmSettings, IndexSettings, BaseSettings
):
    """Everything the CLI and the service can be configured with.

    Every field has a working default except the secrets. The OpenAI client's
    usual variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL`) are read under
    their own names.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=NESTED_DELIMITER,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
    )

    retrieval: RetrievalConfig = Field(
        default_factory=RetrievalConfig,
        description="how passages are found: fusion, second look, names, per-paper caps",
    )
    relevance: RelevancePolicy = Field(
        default_factory=RelevancePolicy,
        description="when the sources support an answer; otherwise the answer says so",
    )

    @model_validator(mode="before")
    @classmethod
    def _known_nested_names(cls, data: Any) -> Any:
        """A misspelt nested variable is an error, not a setting silently ignored."""
        if not isinstance(data, Mapping):
            return data
        types = typing.get_type_hints(cls)
        unknown = [
            unknown
            for name in ("retrieval", "relevance")
            for unknown in _unknown_names(data.get(name), types[name], name)
        ]
        if unknown:
            raise ValueError(f"no such setting: {', '.join(sorted(unknown))}")
        return data

    @field_validator("reranker_url", "embeddings_url", "public_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @property
    def pdf_store_path(self) -> Path:
        """Where the PDFs ingest read are kept by their SHA-256."""
        return self.pdf_store or self.data_dir / "pdf-store"

    @property
    def uploads_path(self) -> Path:
        """Where users' uploaded PDFs and their private indexes are kept."""
        return self.uploads_dir or self.data_dir / "uploads"

    @property
    def models_dir(self) -> Path:
        """Where derived model files (the int8 ONNX embedder) are cached."""
        return self.models_cache or self.data_dir / "models"

    def embeddings_endpoint(self) -> tuple[str, str | None]:
        """(api key, base URL) for the embeddings client: its own server, or the chat model's."""
        if not self.embeddings_url:
            return self.openai_endpoint()
        key = self.embeddings_key.get_secret_value() if self.embeddings_key else None
        return key or "unused", self.embeddings_url


def _unknown_names(values: Any, config: type, path: str) -> Iterator[str]:
    """The variables under `path` that name no field of the dataclass `config`, at any depth."""
    if not isinstance(values, Mapping):
        return
    types = typing.get_type_hints(config)
    fields = {f.name for f in dataclasses.fields(config)}
    for key, value in values.items():
        name = f"{path}{NESTED_DELIMITER}{key}"
        if key not in fields:
            yield env_name(name)
        elif dataclasses.is_dataclass(types[key]):
            yield from _unknown_names(value, types[key], name)


def env_name(path: str) -> str:
    """The environment variable of a settings path (`retrieval__k`, `openai_api_key`)."""
    field = Settings.model_fields.get(path)
    if field is not None and isinstance(field.validation_alias, str):
        return field.validation_alias
    return f"{ENV_PREFIX}{path}".upper()


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        message = item["msg"].removeprefix("Value error, ")
        if not item["loc"]:
            parts.append(message)
            continue
        name = env_name(NESTED_DELIMITER.join(str(x) for x in item["loc"]))
        parts.append(f"{name}: {message} (got {item['input']!r})")
    return "; ".join(parts)


@lru_cache
def get_settings() -> Settings:
    """The settings from the environment; a value they cannot take is a SettingsError."""
    try:
        return Settings()
    except ValidationError as e:
        raise SettingsError(f"invalid settings: {_describe(e)}") from e
    except SourceError as e:  # a nested setting given as a value that is not JSON
        raise SettingsError(f"invalid settings: {e}") from e
