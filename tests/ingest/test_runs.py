"""An ingest run's state in the data dir: its counts while it runs, and after it ends how it
ended, its failures with their reasons, and why it stopped early when it did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.report import IngestReport, Skipped
from ingest.runs import RunRecord, RunState, run_path, run_state
from tests.support.data import ROOT

pytestmark = pytest.mark.timeout(60)


def test_before_any_run_every_count_is_zero(tmp_path: Path) -> None:
    state = run_state(tmp_path, "pdfs")

    assert state == RunState(total=0, read=0, failed=(), running=False, error=None)


def test_counts_are_read_while_the_run_lasts(tmp_path: Path) -> None:
    report = IngestReport()

    with RunRecord(tmp_path, "pdfs", report, total=38, interval_s=0.0) as record:
        record.advance(11)
        report.skipped.append(Skipped("/pdfs/broken.pdf", "not a PDF"))
        record.advance()
        during = run_state(tmp_path, "pdfs")

    assert during.running is True
    assert (during.total, during.read, during.error) == (38, 11, None)
    assert during.failed == (Skipped("/pdfs/broken.pdf", "not a PDF"),)
    assert during.ended_at is None


def test_a_finished_run_keeps_its_counts_and_failures(tmp_path: Path) -> None:
    report = IngestReport()

    with RunRecord(tmp_path, "pdfs", report, total=3, interval_s=3600.0) as record:
        record.advance(2)
        report.skipped.append(Skipped("/pdfs/broken.pdf", "not a PDF"))
        record.advance()
    after = run_state(tmp_path, "pdfs")

    assert after.running is False
    assert after.error is None
    assert (after.total, after.read) == (3, 2)
    assert after.failed == (Skipped("/pdfs/broken.pdf", "not a PDF"),)
    assert after.ended_at is not None
    assert run_path(tmp_path, "pdfs").exists()


def _read_three_then_fail(data_dir: Path) -> None:
    with RunRecord(data_dir, "pdfs", IngestReport(), 38) as record:
        record.advance(3)
        raise RuntimeError("the catalog went away\nand more lines")


def test_an_exception_leaves_its_message(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="the catalog went away"):
        _read_three_then_fail(tmp_path)

    state = run_state(tmp_path, "pdfs")
    assert state.running is False
    assert state.error == (
        "the PDF reader stopped after reading 3 of 38: RuntimeError: the catalog went away"
    )


def test_a_run_whose_process_is_gone_stopped_early(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from ingest.report import IngestReport\n"
        "from ingest.runs import RunRecord\n"
        "with RunRecord(Path(sys.argv[1]), 'pdfs', IngestReport(), 38, 0.0) as record:\n"
        "    record.advance(12)\n"
        "    print(os.getpid(), flush=True)\n"
        "    os._exit(9)  # gone without a word, as SIGKILL leaves it\n"
    )
    gone = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)  # fmt: skip

    state = run_state(tmp_path, "pdfs")

    assert gone.returncode == 9, gone.stderr
    assert state.running is False
    assert state.read == 12
    assert state.error == f"the PDF reader (pid {int(gone.stdout)}) stopped after reading 12 of 38"


def test_a_later_process_given_the_same_pid_is_not_the_run(tmp_path: Path) -> None:
    with RunRecord(tmp_path, "pdfs", IngestReport(), 38, 0.0) as record:
        record.advance(5)
        path = run_path(tmp_path, "pdfs")
        written = json.loads(path.read_text(encoding="utf-8"))
        # This process, as if it had been given the pid of a run that started an hour earlier.
        written["process_started"] -= 3600
        path.write_text(json.dumps(written), encoding="utf-8")
        state = run_state(tmp_path, "pdfs")

    assert state.running is False
    assert state.error is not None
    assert state.error.endswith("stopped after reading 5 of 38")


def test_an_unreadable_file_is_said_not_hidden(tmp_path: Path) -> None:
    run_path(tmp_path, "pdfs").write_text("{not json", encoding="utf-8")

    state = run_state(tmp_path, "pdfs")

    assert state.running is False
    assert state.error is not None
    assert state.error.startswith("cannot read ingest-pdfs.run.json: ")
