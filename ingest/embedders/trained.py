"""A model trained by `paperchat embedder train`: its folder, and the name it gives an index.

The folder holds the fine-tuned transformer as sentence-transformers saves it
(what the ONNX export reads), `card.json` (its name, version, data, steps and
figures) and `README.md`, the model card in words. The name goes into the
Chroma collection's metadata, so an index embedded by one model is never
searched with another (`ingest.index.vectors.store.EmbedderMismatch`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ingest.embedders.base import EmbedderError

CARD = "card.json"


def read_card(directory: Path) -> dict[str, Any]:
    """The card of the trained model in `directory`; a clear error when there is none."""
    path = directory / CARD
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise EmbedderError(
            f"{str(directory)!r} holds no trained embedder ({CARD} is missing): give the "
            "folder `paperchat embedder train` wrote"
        ) from e
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot read {str(path)!r}: {e}") from e
    if not isinstance(card, dict) or not isinstance(card.get("name"), str):
        raise EmbedderError(f"{str(path)!r} names no model")
    return card


def trained_name(directory: Path) -> str:
    """The name an index embedded by this model records."""
    return str(read_card(directory)["name"])
