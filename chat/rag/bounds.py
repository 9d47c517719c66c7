"""Bounds of the retrieval and refusal settings, checked when a configuration is made.

A configuration comes from the environment too (`PAPERCHAT_RETRIEVAL__K=0`),
so a value out of range must fail at start with the field's name, not as a
strange ranking later.
"""

from __future__ import annotations


def at_least(config: object, floor: float, *names: str) -> None:
    """Raise ValueError naming the first of `names` whose value on `config` is below `floor`."""
    for name in names:
        value = getattr(config, name)
        if value < floor:
            raise ValueError(f"{name} must be at least {floor:g}, not {value!r}")
