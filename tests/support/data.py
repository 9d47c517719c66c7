"""Where the shared test data lives: beside the project, never inside it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
ABSTRACTS = SHARED / "arxiv" / "abstracts.jsonl.gz"
OAI_SAMPLE = SHARED / "arxiv" / "oai-snapshot-sample.jsonl"
PDFS = SHARED / "pdfs"
EVAL = SHARED / "eval"
