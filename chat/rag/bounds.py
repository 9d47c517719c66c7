"""What a retrieval or refusal setting says about itself: its description and its least value.

Each field of a configuration dataclass carries both in its metadata
(`field(default=8, metadata=described("...", at_least=1))`): pydantic reads
the description (the settings' JSON schema), `chat/settings_doc.py` prints it
in the settings reference, and `check_bounds` enforces the floor when a
configuration is made. A configuration comes from the environment too
(`PAPERCHAT_RETRIEVAL__K=0`), so a value out of range must fail at start with
the field's name, not as a strange ranking later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# The metadata key pydantic reads as a dataclass field's description.
DESCRIPTION = "description"
# Ours alone: pydantic passes on only the keys that are arguments of its `Field`.
FLOOR = "at_least"


def described(description: str, *, at_least: float | None = None) -> Mapping[str, object]:
    """A setting's metadata: what it means, and the least value it may take (None: any)."""
    if not description.strip():
        raise ValueError("a setting needs a description")
    if at_least is None:
        return {DESCRIPTION: description}
    return {DESCRIPTION: description, FLOOR: at_least}


def description(field: dataclasses.Field[Any]) -> str:
    """What a configuration field means, "" when it does not say."""
    return str(field.metadata.get(DESCRIPTION, ""))


def floor(field: dataclasses.Field[Any]) -> float | None:
    """The least value of a configuration field, None when it has none."""
    value = field.metadata.get(FLOOR)
    return float(value) if isinstance(value, int | float) else None


def check_bounds(config: DataclassInstance) -> None:
    """Raise ValueError naming the first field of the dataclass `config` below its floor."""
    for field in dataclasses.fields(config):
        least = floor(field)
        value = getattr(config, field.name)
        if least is not None and value < least:
            raise ValueError(f"{field.name} must be at least {least:g}, not {value!r}")
