"""Byte mutations of real files for fuzzing the parsers, and the budget a fuzz test runs with.

By default a fuzz test runs a few derandomised examples (the same ones on every run, so CI
is repeatable and quick); `FUZZ_EXAMPLES=2000 pytest -k fuzz` runs that many
random ones instead, to look further.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from ingest.pdf.isolation import Failure, WorkerPool

FUZZ_EXAMPLES_ENV = "FUZZ_EXAMPLES"
# Fragments a random byte rarely makes: what text formats break on (deep nesting, long
# numbers, escapes, bytes that are no UTF-8, NUL, line ends, PDF keywords).
TOKENS = (
    b"[", b"{", b'{"a":', b"1" * 64, b"-", b"e9999", b"\\u", b"\\ud800", b'"', b",", b":",
    b"\xff", b"\xc3", b"\x00", b"\r", b"\n", b"\t", b" ", b"null", b"true",
    b"obj", b"endobj", b"stream", b"endstream", b"xref", b"trailer", b"%%EOF", b"<<", b">>",
    b"/Length 999999999", b"/Count -1", b"9999999999 0 R",
)  # fmt: skip


def fuzz_settings(examples: int, deadline_s: float) -> settings:
    """`examples` derandomised examples, or `FUZZ_EXAMPLES` random ones; each example must
    end within `deadline_s`. No example database: nothing is written into the checkout.
    A test's fixtures (its worker, its tmp_path) serve all its examples: each example
    writes its own file over the last."""
    longer = os.environ.get(FUZZ_EXAMPLES_ENV)
    return settings(
        max_examples=int(longer) if longer else examples,
        derandomize=not longer,
        deadline=timedelta(seconds=deadline_s),
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.function_scoped_fixture,
        ],
    )


class Mutant:
    """Mutated bytes, shown by how they were made (a failing example prints that, not
    megabytes): e.g. `1502.03167v3.pdf cut at 1234`."""

    def __init__(self, data: bytes, how: str) -> None:
        self.data, self.how = data, how

    def __repr__(self) -> str:
        return f"<{self.how}: {len(self.data)} bytes>"


def _shown(token: bytes) -> str:
    return repr(token if len(token) <= 16 else token[:16] + b"...")


def _flipped(name: str, data: bytes, changes: list[tuple[int, int]]) -> Mutant:
    mutable = bytearray(data)
    for position, value in changes:
        mutable[position % len(mutable)] = value
    return Mutant(bytes(mutable), f"{name} with bytes set {changes}")


def _inserted(name: str, data: bytes, position: int, token: bytes, times: int) -> Mutant:
    at = position % (len(data) + 1)
    return Mutant(data[:at] + token * times + data[at:], f"{name}, {_shown(token)}*{times} at {at}")


def _line_inserted(name: str, data: bytes, index: int, token: bytes, times: int) -> Mutant:
    lines = data.splitlines(keepends=True)
    at = index % (len(lines) + 1)
    joined = b"".join([*lines[:at], token * times + b"\n", *lines[at:]])
    return Mutant(joined, f"{name}, a line {_shown(token)}*{times} before line {at + 1}")


def mutations(name: str, data: bytes) -> st.SearchStrategy[Mutant]:
    """`data` (the file `name`) with bytes flipped, cut short, or with bytes or repeated
    tokens inserted, in a line or as a line of their own."""
    positions = st.integers(0, max(len(data) - 1, 0))
    flips = st.lists(st.tuples(positions, st.integers(0, 255)), min_size=1, max_size=32)
    repeats = st.integers(1, 5000)
    return st.one_of(
        flips.map(lambda changes: _flipped(name, data, changes)),
        positions.map(lambda end: Mutant(data[:end], f"{name} cut at {end}")),
        st.builds(
            partial(_inserted, name, data),
            positions,
            st.binary(min_size=1, max_size=64),
            st.just(1),
        ),
        st.builds(partial(_inserted, name, data), positions, st.sampled_from(TOKENS), repeats),
        st.builds(
            partial(_line_inserted, name, data),
            st.integers(0, data.count(b"\n")),
            st.sampled_from(TOKENS),
            repeats,
        ),
    )


def splices(first: tuple[str, bytes], second: tuple[str, bytes]) -> st.SearchStrategy[Mutant]:
    """The start of one file (name, bytes) joined to the end of another, cut anywhere."""
    (one, head), (other, tail) = first, second
    return st.builds(
        lambda end, start: Mutant(head[:end] + tail[start:], f"{one}[:{end}] + {other}[{start}:]"),
        st.integers(0, len(head)),
        st.integers(0, len(tail)),
    )


class Sandbox:
    """One worker process that runs each example under a time and a memory limit: a hang
    or a parser's unbounded appetite fails the example instead of the test run."""

    def __init__(self, timeout_s: float, memory_limit_mb: int) -> None:
        self.pool = WorkerPool(1, timeout_s, memory_limit_mb=memory_limit_mb)

    def run(self, func: Callable[[Any], Any], item: Any) -> Any:
        """`func(item)` in the worker: its value, or a Failure (timeout, crash, memory)."""
        self.pool.submit(func, item)
        while True:
            for _, outcome in self.pool.collect():
                return outcome

    def close(self) -> None:
        self.pool.close()


__all__ = [
    "FUZZ_EXAMPLES_ENV", "Failure", "Mutant", "Sandbox", "fuzz_settings", "mutations", "splices",
]  # fmt: skip
