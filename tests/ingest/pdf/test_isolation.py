from __future__ import annotations

import os
import resource
import signal
import sys
import time
from pathlib import Path

import pytest

from ingest.index.records import ParsedPdf
from ingest.pdf.isolation import WORKER_NICENESS, Failure, run_isolated
from ingest.pdf.parsing import parse_pdf
from tests.support.data import PDFS
from tests.support.worlds import pdf_fixtures

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
    if item == "pid":
        return str(os.getpid())
    if item == "niceness":
        return str(os.nice(0))
    if item == "address space limit":
        return str(resource.getrlimit(resource.RLIMIT_AS)[0])
    if item == "allocate until refused":
        return str(_allocate_until_refused())
    if item == "heavy modules":
        return ",".join(m for m in ("torch", "onnxruntime", "chromadb") if m in sys.modules)
    return item.upper()


def _allocate_until_refused() -> int:
    """Take memory 64 MB at a time until refused; then this process's peak RSS in MB."""
    held = []
    try:
        for _ in range(256):  # 16 GB at most
            held.append(bytearray(64 * 1024 * 1024))
    except MemoryError:
        pass
    else:
        raise AssertionError("no memory limit: 16 GB were allocated")
    held.clear()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def parse_or_misbehave(item: str) -> str:
    """Run in a worker: parse the PDF at `item` (its arXiv stamp), or misbehave as told."""
    if item.endswith(".pdf"):
        return parse_pdf(item).stamp_id
    return misbehave(item)


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


def test_one_worker_serves_many_items() -> None:
    results = run_isolated(misbehave, ["pid", "pid", "pid", "pid"], workers=1, timeout_s=10)

    pids = {pid for _, pid in results}

    assert len(pids) == 1
    assert pids != {str(os.getpid())}


def test_a_crashed_or_hung_worker_is_replaced_and_the_next_pdf_still_parses() -> None:
    first, second = str(PDFS / "1706.03762v7.pdf"), str(PDFS / "1512.03385v1.pdf")
    items = ["segfault", first, "hang", second, "exit", "pid"]

    results = list(run_isolated(parse_or_misbehave, items, workers=1, timeout_s=5))

    assert results[:5] == [
        ("segfault", Failure("worker crashed (signal SIGSEGV)")),
        (first, "1706.03762"),
        ("hang", Failure("timed out after 5 s")),
        (second, "1512.03385"),
        ("exit", Failure("worker exited with code 3 and no result")),
    ]
    assert results[5][0] == "pid"


def test_workers_run_at_a_lower_priority_than_the_caller() -> None:
    [(_, niceness)] = run_isolated(misbehave, ["niceness"], workers=1, timeout_s=10)

    assert niceness == str(min(os.nice(0) + WORKER_NICENESS, 19))


def test_workers_import_neither_the_embedder_nor_chroma() -> None:
    results = dict(run_isolated(parse_or_misbehave, ["heavy modules"], workers=1, timeout_s=30))

    assert results["heavy modules"] == ""


def test_memory_limit_is_set_in_the_worker_only() -> None:
    parent_limit = resource.getrlimit(resource.RLIMIT_AS)

    results = dict(
        run_isolated(
            misbehave, ["address space limit"], workers=1, timeout_s=30, memory_limit_mb=512
        )
    )

    assert results["address space limit"] == str(512 * 1024 * 1024)
    assert resource.getrlimit(resource.RLIMIT_AS) == parent_limit


def test_worker_over_its_memory_limit_fails_alone_with_the_reason() -> None:
    items = ["a", "allocate until refused", "b"]
    parent_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    results = dict(run_isolated(misbehave, items, workers=1, timeout_s=30, memory_limit_mb=512))

    peak_mb = results.pop("allocate until refused")
    assert results == {"a": "A", "b": "B"}
    assert isinstance(peak_mb, str)
    assert 0 < int(peak_mb) <= 512
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - parent_before) // 1024
    assert grown_mb < 64


def raise_memory_error(_item: str) -> str:
    """Run in a worker: fail as a Python allocation that is refused fails."""
    raise MemoryError


def test_memory_error_in_a_worker_names_the_limit() -> None:
    results = dict(
        run_isolated(raise_memory_error, ["x"], workers=1, timeout_s=30, memory_limit_mb=300)
    )

    assert results["x"] == Failure("over the memory limit of 300 MB")
