"""The tree stays easy to find one's way in: no import circle, no crowded package, no long
module without a reason written here; and each check would see its rule broken."""

from __future__ import annotations

from pathlib import Path

from tests.support.data import ROOT
from tests.support.layout import (
    MOST_LINES,
    PRODUCT,
    circles,
    crowded_packages,
    import_graph,
    long_modules,
    write_module,
)

TREE = (*PRODUCT, "tests")

# Modules allowed past MOST_LINES, each with the reason it is one piece.
LONG_MODULES: dict[str, str] = {}


def test_no_modules_import_each_other_round_a_circle() -> None:
    assert circles(import_graph(ROOT, TREE)) == []


def test_a_circle_is_found_through_a_lazy_import_and_a_longer_ring(tmp_path: Path) -> None:
    write_module(tmp_path, "ingest.index.schema", "from ingest.index import migrations\n")
    write_module(
        tmp_path,
        "ingest.index.migrations.__init__",
        "def step():\n    from ingest.index.schema import MIGRATIONS\n",
    )
    write_module(tmp_path, "chat.a", "from chat.b import B\n")
    write_module(tmp_path, "chat.b", "import chat.c\n")
    write_module(tmp_path, "chat.c", "from chat import a\n")
    write_module(tmp_path, "chat.d", "from chat.a import A\nfrom chat import e\n")
    write_module(
        tmp_path, "chat.e", "from chat.d import D  # a module and its package: no circle\n"
    )
    write_module(tmp_path, "chat.f.__init__", '"""A package."""\n')
    write_module(tmp_path, "chat.f.g", "from chat.f import h\n")
    write_module(tmp_path, "chat.f.h", "import json\n")

    found = circles(import_graph(tmp_path, ("chat", "ingest")))

    assert found == [
        ["chat.a", "chat.b", "chat.c"],
        ["chat.d", "chat.e"],
        ["ingest.index.migrations", "ingest.index.schema"],
    ]


def test_no_package_holds_more_than_fourteen_modules() -> None:
    assert crowded_packages(ROOT, TREE) == {}


def test_a_crowded_package_is_reported_with_its_count(tmp_path: Path) -> None:
    for number in range(15):
        write_module(tmp_path, f"chat.web.page_{number}", "")
    for number in range(14):
        write_module(tmp_path, f"chat.rag.part_{number}", "")

    assert crowded_packages(tmp_path, ("chat",)) == {"/".join(("chat", "web")): 15}


def test_no_module_is_longer_than_400_lines_without_a_written_reason() -> None:
    long = long_modules(ROOT, TREE)

    assert sorted(set(long) - set(LONG_MODULES)) == []
    # A reason kept for a module that was split since, or that is gone, is dropped.
    assert sorted(set(LONG_MODULES) - set(long)) == []


def test_a_long_module_is_reported_with_its_length(tmp_path: Path) -> None:
    write_module(tmp_path, "ingest.long", "x = 1\n" * (MOST_LINES + 1))
    write_module(tmp_path, "ingest.short", "x = 1\n" * MOST_LINES)

    assert long_modules(tmp_path, ("ingest",)) == {"/".join(("ingest", "long.py")): MOST_LINES + 1}
