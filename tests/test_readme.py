"""The README names only paths and modules that exist."""

from __future__ import annotations

import importlib
import re

from tests.support.data import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
# A repository path: a top-level folder of the project, then at least one more part.
_PATH = re.compile(
    r"(?<![\w./-])(?:chat|ingest|prompts|bench|tests|scripts|docs|examples)/[\w./-]*[\w/]"
)
# A dotted module name in backticks (not a host name such as chat.example.org).
_MODULE = re.compile(r"`((?:chat|ingest)(?:\.\w+)+)`")
_HOST_ENDINGS = (".org", ".com", ".net")


def test_every_path_the_readme_names_exists() -> None:
    named = set(_PATH.findall(README))

    missing = sorted(p for p in named if not (ROOT / p).exists())

    assert len(named) > 10
    assert missing == []


def test_every_module_the_readme_names_can_be_imported() -> None:
    named = {m for m in _MODULE.findall(README) if not m.endswith(_HOST_ENDINGS)}

    missing = sorted(m for m in named if not _resolves(m))

    assert missing == []


def _resolves(dotted: str) -> bool:
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
