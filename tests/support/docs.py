"""What a page of prose (the README, a page of docs/) names: repository paths and modules.

A page names a path as `chat/rag/retrieval/fusion.py` and a module, or something in one,
in backticks as `chat.rag.retrieval.fusion.reciprocal_rank_fusion`.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

# A repository path: a top-level folder of the project, then at least one more part.
_PATH = re.compile(
    r"(?<![\w./-])(?:chat|ingest|prompts|bench|tests|scripts|docs|examples)/[\w./-]*[\w/]"
)
# A dotted module name in backticks: not a host name (chat.example.org) nor a file (`ingest.py`).
_MODULE = re.compile(r"`((?:chat|ingest)(?:\.\w+)+)`")
_NOT_MODULES = (".org", ".com", ".net", ".py")
# Written by the code when it runs, so absent from a fresh clone.
CREATED = ("bench/results/",)


def named_paths(text: str) -> set[str]:
    """The repository paths `text` names, without a trailing slash or full stop."""
    return {m.rstrip("/.") for m in _PATH.findall(text)}


def missing_paths(text: str, root: Path) -> list[str]:
    """The paths `text` names that are not under `root` (nor written when the code runs)."""
    return sorted(
        p for p in named_paths(text) if not (root / p).exists() and not f"{p}/".startswith(CREATED)
    )


def named_modules(text: str) -> set[str]:
    return {m for m in _MODULE.findall(text) if not m.endswith(_NOT_MODULES)}


def unresolved_modules(text: str) -> list[str]:
    """The dotted names in `text` that are neither a module nor a name in one."""
    return sorted(m for m in named_modules(text) if not resolves(m))


def resolves(dotted: str) -> bool:
    """Whether `dotted` is a module, or a module and attributes in it
    (`chat.rag.retrieval.fusion.reciprocal_rank_fusion`)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        target: object = module
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False
