"""The settings reference, `docs/settings.md`, written from the settings' own definitions.

Every row comes from a field: its variable (`env_name`), its type and bounds,
its default and its description, those of `chat.settings.Settings` and of
the retrieval and relevance configs nested in it, one table per group.

    python -m chat.settings_doc                     # prints the page
    python -m chat.settings_doc docs/settings.md    # writes it

`tests/chat/test_settings_doc.py` fails when the page differs from what this writes.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import annotated_types
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from chat.rag import bounds
from chat.settings import ENV_PREFIX, NESTED_DELIMITER, Settings, env_name

_TYPE_NAMES: dict[Any, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    Path: "path",
    SecretStr: "secret",
}
_INTRODUCTION = f"""\
# Settings

<!-- Written by `python -m chat.settings_doc docs/settings.md` from chat/settings.py and the
configs it nests; edit those, not this page. -->

paperchat reads its settings in one place (`chat/settings.py`), from environment variables
or a `.env` file in the working directory. A setting's variable is its name in capitals
after `{ENV_PREFIX}`; the openai client's usual `OPENAI_API_KEY` and `OPENAI_BASE_URL` keep
their own names. Every setting has a working default except the secrets.

The retrieval and relevance settings come in groups: the variable names the group, then
the setting, joined by `{NESTED_DELIMITER}` (`{ENV_PREFIX}RETRIEVAL{NESTED_DELIMITER}K=10`,
`{ENV_PREFIX}RETRIEVAL{NESTED_DELIMITER}FUSION{NESTED_DELIMITER}DENSE_WEIGHT=0.7`). A variable
that names no setting of its group, or a value a setting cannot take, stops the command or
the server at start with one line naming the variable.
"""


@dataclass(frozen=True)
class Row:
    variable: str
    type: str
    default: str
    description: str


@dataclass(frozen=True)
class Group:
    title: str
    about: str  # "" for the settings outside any group
    variables: str  # the variables' common start, e.g. `PAPERCHAT_RETRIEVAL__FUSION__*`
    rows: tuple[Row, ...]


def groups() -> list[Group]:
    """The settings outside any group first, then each group, in the order they are defined."""
    rows: list[Row] = []
    nested: list[Group] = []
    for name, info in Settings.model_fields.items():
        if isinstance(info.annotation, type) and dataclasses.is_dataclass(info.annotation):
            nested += _config_groups(info.annotation, name, name.capitalize(), info.description)
        else:
            rows.append(_settings_row(name, info))
    general = Group("General", "", f"`{ENV_PREFIX}*`", tuple(rows))
    return [general, *nested]


def _settings_row(name: str, info: FieldInfo) -> Row:
    annotation = info.annotation
    low, high, above = None, None, None
    for constraint in info.metadata:
        if isinstance(constraint, annotated_types.Ge):
            low = constraint.ge
        elif isinstance(constraint, annotated_types.Le):
            high = constraint.le
        elif isinstance(constraint, annotated_types.Gt):
            above = constraint.gt
    kind = _type_name(annotation) + _bounds(low, high, above)
    return Row(env_name(name), kind, _default(info.get_default()), info.description or "")


def _config_groups(config: type, path: str, title: str, about: str | None) -> Iterator[Group]:
    """The group of the dataclass `config` at the settings path `path`, then its own groups."""
    types = typing.get_type_hints(config)
    rows: list[Row] = []
    inner: list[Group] = []
    for field in dataclasses.fields(config):
        name = f"{path}{NESTED_DELIMITER}{field.name}"
        kind = types[field.name]
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            inner += _config_groups(kind, name, f"{title}: {field.name}", bounds.description(field))
            continue
        least = bounds.floor(field)
        rows.append(
            Row(
                env_name(name),
                _type_name(kind) + _bounds(least, None, None),
                _default(field.default),
                bounds.description(field),
            )
        )
    yield Group(title, about or "", f"`{env_name(path)}{NESTED_DELIMITER}*`", tuple(rows))
    yield from inner


def _type_name(annotation: Any) -> str:
    if typing.get_origin(annotation) is Literal:
        return " or ".join(f"`{value}`" for value in typing.get_args(annotation) if value)
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(options) == 1:  # `X | None`: an X, or empty
        return _type_name(options[0])
    return _TYPE_NAMES[annotation]


def _bounds(low: Any, high: Any, above: Any) -> str:
    if low is not None and high is not None:
        return f", {low:g} to {high:g}"
    if low is not None:
        return f", at least {low:g}"
    if above is not None:
        return f", above {above:g}"
    return ""


def _default(value: Any) -> str:
    if value is None or value == "":
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path) and not value.is_absolute():
        return f"`./{value.as_posix()}`"
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _table(group: Group) -> list[str]:
    heading = f"## {group.title}"
    where = f"{group.variables}: {group.about}." if group.about else f"{group.variables}."
    lines = [heading, "", where, "", "| variable | type | default | description |"]
    lines.append("|---|---|---|---|")
    for row in group.rows:
        cells = (f"`{row.variable}`", row.type, row.default, row.description)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def markdown() -> str:
    """The whole page, as `docs/settings.md` holds it."""
    lines = [_INTRODUCTION.rstrip("\n")]
    for group in groups():
        lines += ["", *_table(group)]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] = ()) -> int:
    """Print the page, or write it to the one path given."""
    page = markdown()
    if not argv:
        sys.stdout.write(page)
        return 0
    if len(argv) > 1:
        sys.stderr.write("usage: python -m chat.settings_doc [PATH]\n")
        return 2
    Path(argv[0]).write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
