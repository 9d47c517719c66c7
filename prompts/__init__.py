"""The prompt templates: one text file each, its version on the first line.

They ship in the wheel as this package's data, so an installed paperchat
reads them wherever it runs (`chat/rag/answer/prompts.py` loads them).
"""

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent
