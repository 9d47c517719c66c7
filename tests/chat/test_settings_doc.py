"""The settings reference, docs/settings.md: written from the settings' definitions, naming
every variable, each with a description."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat.rag.bounds import described
from chat.settings import NESTED_DELIMITER, Settings, env_name
from chat.settings_doc import groups, main, markdown
from tests.support.data import ROOT

REFERENCE = ROOT / "docs" / "settings.md"


def _settings() -> Iterator[tuple[str, str]]:
    """(variable, description) of every setting, nested ones too, read from the definitions."""
    for name, info in Settings.model_fields.items():
        if isinstance(info.annotation, type) and dataclasses.is_dataclass(info.annotation):
            yield from _nested(info.annotation, name)
        else:
            yield env_name(name), info.description or ""


def _nested(config: type, path: str) -> Iterator[tuple[str, str]]:
    types = typing.get_type_hints(config)
    for field in dataclasses.fields(config):
        name = f"{path}{NESTED_DELIMITER}{field.name}"
        if dataclasses.is_dataclass(types[field.name]):
            yield from _nested(types[field.name], name)
        else:
            yield env_name(name), str(field.metadata.get("description", ""))


def test_the_reference_is_what_the_generator_writes() -> None:
    written = REFERENCE.read_text(encoding="utf-8")

    expected = markdown()

    assert written == expected, (
        "docs/settings.md is stale: run `python -m chat.settings_doc docs/settings.md`"
    )


def test_every_variable_is_in_the_reference_once() -> None:
    written = REFERENCE.read_text(encoding="utf-8")
    variables = [variable for variable, _ in _settings()]

    rows = {v: written.count(f"| `{v}` |") for v in variables}

    assert len(variables) > 100
    assert {"OPENAI_API_KEY", "PAPERCHAT_RETRIEVAL__FUSION__DENSE_WEIGHT"} <= set(rows)
    assert [v for v, count in rows.items() if count != 1] == []


def test_every_setting_has_a_description() -> None:
    missing = [variable for variable, description in _settings() if not description.strip()]

    assert missing == []


def test_every_group_says_what_it_holds() -> None:
    found = groups()

    titles = [group.title for group in found]

    assert titles[:3] == ["General", "Retrieval", "Retrieval: fusion"]
    assert "Relevance" in titles
    assert [g.title for g in found[1:] if not g.about.strip()] == []


def test_a_setting_cannot_be_defined_without_a_description() -> None:
    with pytest.raises(ValueError, match="needs a description"):
        described("  ")


def test_the_command_writes_the_page_to_the_path_given(tmp_path: Path) -> None:
    target = tmp_path / "settings.md"

    code = main([str(target)])

    assert code == 0
    assert target.read_text(encoding="utf-8") == markdown()


def test_the_command_prints_the_page_without_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    code = main([])

    assert code == 0
    assert capsys.readouterr().out == markdown()
