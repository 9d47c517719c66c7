from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from ingest.isolation import Failure, run_isolated
from ingest.pdf import parse_pdf
from ingest.records import ParsedPdf
from tests import pdf_fixtures
from tests.data import PDFS

pytestmark = pytest.mark.timeout(60)


def misbehave(item: str) -> str:
    """Run in a worker: do what the item says."""
    if item == "hang":
        time.sleep(600)
    if item == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "raise":
        raise ValueError("bad item: raise")
    if item == "exit":
        os._exit(3)
    if item.startswith("record-pid-and-hang:"):
        Path(item.removeprefix("record-pid-and-hang:")).write_text(str(os.getpid()))
        time.sleep(600)
    if item.startswith("sleep"):
        time.sleep(float(item.removeprefix("sleep")))
    return item.upper()


def test_hang_crash_and_exception_cost_only_their_own_items() -> None:
    items = ["a", "hang", "segfault", "raise", "exit", "b"]

    results = dict(run_isolated(misbehave, items, workers=3, timeout_s=2))

    assert results == {
        "a": "A",
        "hang": Failure("timed out after 2 s"),
        "segfault": Failure("worker crashed (signal SIGSEGV)"),
        "raise": Failure("bad item: raise"),
        "exit": Failure("worker exited with code 3 and no result"),
        "b": "B",
    }


def test_results_arrive_in_order_of_completion() -> None:
    items = ["sleep1.0", "sleep0.1"]

    order = [item for item, _ in run_isolated(misbehave, items, workers=2, timeout_s=10)]

    assert order == ["sleep0.1", "sleep1.0"]


def test_no_more_than_workers_items_run_at_once() -> None:
    items = ["sleep0.4"] * 4
    started = time.monotonic()

    results = list(run_isolated(misbehave, items, workers=2, timeout_s=10))

    assert len(results) == 4
    assert time.monotonic() - started >= 0.8


def test_abandoned_run_leaves_no_worker_running(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    results = run_isolated(
        misbehave, ["sleep0.3", f"record-pid-and-hang:{pid_file}"], workers=2, timeout_s=30
    )
    first = next(results)

    results.close()

    assert first == ("sleep0.3", "SLEEP0.3")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="workers must be at least 1"):
        list(run_isolated(misbehave, ["a"], workers=0, timeout_s=1))


def test_parse_failures_are_reported_with_the_parser_message(tmp_path: Path) -> None:
    good = str(PDFS / "1706.03762v7.pdf")
    empty = str(pdf_fixtures.write_empty_file(tmp_path / "empty.pdf"))

    results = dict(run_isolated(parse_pdf, [good, empty], workers=2, timeout_s=30))

    parsed = results[good]
    assert isinstance(parsed, ParsedPdf)
    assert parsed.stamp_id == "1706.03762"
    assert results[empty] == Failure(f"cannot parse {empty!r}: the file is empty (0 bytes)")
