"""An ingest run's progress: plain lines away from a terminal, and the counts published in the
data dir for the service, gone when the run is."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from ingest.progress import LineProgress, PublishedProgress, progress_path, running_progress


def test_plain_lines_give_counts_rate_and_time_left() -> None:
    stream = io.StringIO()

    with LineProgress("pdfs", 38, interval_s=0.0, stream=stream) as progress:
        progress.advance(12)
        final = progress.line(progress._started + 10)

    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("pdfs: 12/38 read, ")
    assert lines[0].endswith(" left")
    assert final == "pdfs: 12/38 read, 1.2/s, 10s, 22s left"
    assert len(lines) == 2  # one as the item was done, one at the end


def test_plain_lines_wait_for_their_interval() -> None:
    stream = io.StringIO()

    with LineProgress("abstracts", 2000, interval_s=3600.0, stream=stream) as progress:
        for _ in range(500):
            progress.advance()

    lines = stream.getvalue().splitlines()
    assert len(lines) == 1  # the one at the end
    assert lines[0].startswith("abstracts: 500/2000 read, ")


def test_published_counts_are_read_while_the_run_lasts_then_gone(tmp_path: Path) -> None:
    with PublishedProgress(tmp_path, "pdfs", 38, interval_s=0.0) as published:
        published.advance(12)
        during = running_progress(tmp_path, "pdfs")

    assert during == {"total": 38, "read": 12}
    assert running_progress(tmp_path, "pdfs") is None
    assert not progress_path(tmp_path, "pdfs").exists()


def test_counts_left_by_a_killed_run_are_not_reported(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    state = {"pid": int(gone.stdout), "total": 38, "read": 12}
    progress_path(tmp_path, "pdfs").write_text(json.dumps(state), encoding="utf-8")

    assert running_progress(tmp_path, "pdfs") is None
