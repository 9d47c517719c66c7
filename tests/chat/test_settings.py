"""The one settings tree: nested algorithm settings from the environment, and errors that name
the variable."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from chat.rag.answer.generators import ModelGenerator
from chat.rag.retrieval.config import RetrievalConfig
from chat.rag.retrieval.relevance import RelevancePolicy
from chat.settings import Settings, SettingsError, get_settings
from chat.wiring import Wiring
from tests.support.running.cli import cli_fixture  # noqa: F401 - a pytest fixture, used by name


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("PAPERCHAT_RETRIEVAL", "PAPERCHAT_RELEVANCE")):
            monkeypatch.delenv(name)
    get_settings.cache_clear()


def test_nested_variables_reach_the_retriever_and_the_relevance_policy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, models_cache: Path
) -> None:
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__K", "10")
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__FUSION__DENSE_WEIGHT", "0.7")
    monkeypatch.setenv("PAPERCHAT_RELEVANCE__DENSE_ALONE", "0.5")
    monkeypatch.setenv("PAPERCHAT_HISTORY_MESSAGES", "4")
    # A model on a closed port: the answerer is built, nothing is asked of it.
    settings = Settings(
        data_dir=tmp_path, models_cache=models_cache, llm="openai",
        openai_base_url="http://127.0.0.1:9/v1",
    )  # fmt: skip

    wiring = Wiring(settings)
    answerer = wiring.answerer

    assert answerer.retriever.config.k == 10
    assert answerer.retriever.config.fusion.dense_weight == 0.7
    assert answerer.relevance.dense_alone == 0.5
    assert isinstance(answerer.generator, ModelGenerator)
    assert answerer.generator.history_messages == 4
    # What was not set keeps the config classes' own defaults.
    assert answerer.retriever.config.candidates == RetrievalConfig().candidates
    assert answerer.relevance.dense_agreeing == RelevancePolicy().dense_agreeing
    wiring.close()


def test_without_variables_the_nested_settings_are_the_defaults() -> None:
    settings = Settings()

    assert settings.retrieval == RetrievalConfig()
    assert settings.relevance == RelevancePolicy()


def test_a_misspelt_nested_variable_is_an_error_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__DENSE_WEIGHT", "0.7")

    with pytest.raises(SettingsError) as caught:
        get_settings()

    assert (
        str(caught.value) == "invalid settings: no such setting: PAPERCHAT_RETRIEVAL__DENSE_WEIGHT"
    )


def test_a_value_of_the_wrong_type_is_an_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAPERCHAT_RELEVANCE__DENSE_ALONE", "high")

    with pytest.raises(SettingsError, match=r"PAPERCHAT_RELEVANCE__DENSE_ALONE: .*'high'"):
        get_settings()


def test_a_bad_setting_is_one_line_and_exit_code_two_on_the_command_line(
    cli: click.Group, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERCHAT_RETRIEVAL__K", "ten")

    result = CliRunner().invoke(cli, ["index", "stats"])

    assert result.exit_code == 2
    assert result.stderr.startswith("paperchat: error: invalid settings: PAPERCHAT_RETRIEVAL__K: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("variable", "value", "field"),
    [
        ("PAPERCHAT_RETRIEVAL__K", "0", "k"),
        ("PAPERCHAT_RETRIEVAL__CANDIDATES", "-5", "candidates"),
        ("PAPERCHAT_RETRIEVAL__FUSION__DENSE_WEIGHT", "-0.5", "dense_weight"),
        ("PAPERCHAT_RETRIEVAL__FUSION__RRF_K", "-1", "rrf_k"),
        ("PAPERCHAT_RETRIEVAL__COVERAGE__DEPTH", "-1", "depth"),
        ("PAPERCHAT_RELEVANCE__AGREEMENT_DEPTH", "0", "agreement_depth"),
    ],
)
def test_a_value_out_of_range_is_an_error_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, field: str
) -> None:
    monkeypatch.setenv(variable, value)

    expected = rf"PAPERCHAT_RE\w+: {field} must be at least \d, not {value}"
    with pytest.raises(SettingsError, match=expected):
        get_settings()


@pytest.mark.parametrize(
    ("url", "shared"),
    [
        ("", False),
        ("sqlite:////tmp/sessions.sqlite", False),
        ("sqlite+pysqlite:///sessions.sqlite", False),
        ("mysql+pymysql://root@127.0.0.1/test", False),
        ("postgresql://127.0.0.1/test", True),
        ("postgresql+psycopg://127.0.0.1/test", True),
        ("postgres://127.0.0.1/test", True),
    ],
)
def test_only_a_postgresql_database_holds_the_catalog_every_node_shares(
    tmp_path: Path, url: str, shared: bool
) -> None:
    settings = Settings(data_dir=tmp_path, database_url=url)

    assert settings.shared_catalog is shared
    assert settings.catalog_location == (url if shared else settings.catalog_path)
