"""Reports of a wrong name match on a researcher's page, kept for the people who split
namesakes: one JSON line each in `<data dir>/reports/researcher-matches.jsonl`."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

MAX_NOTE_CHARS: Final = 2000
REPORTS_FILE: Final = Path("reports") / "researcher-matches.jsonl"
_LOCK: Final = threading.Lock()


def record_match_report(data_dir: Path, researcher_id: str, paper_id: str, note: str) -> None:
    """Append one report: which researcher, which paper is not theirs (maybe ""), and why."""
    path = data_dir / REPORTS_FILE
    line = json.dumps(
        {
            "researcher": researcher_id,
            "paper": paper_id,
            "note": note[:MAX_NOTE_CHARS],
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )
    with _LOCK:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def match_reports(data_dir: Path) -> list[dict[str, str]]:
    """Every report recorded, oldest first."""
    path = data_dir / REPORTS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
