"""An ingest run's progress: plain lines away from a terminal, with counts, rate and time left."""

from __future__ import annotations

import io

from ingest.progress import LineProgress


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
