"""No module of `ingest.embedders` imports one that imports it back, however late."""

from __future__ import annotations

import ast
from pathlib import Path

import ingest.embedders

PACKAGE = Path(ingest.embedders.__file__).parent


def _imported_modules(path: Path, package: str) -> set[str]:
    """Every module `path` imports, at the top or inside a function alike."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0]
                base = f"{parent}.{base}" if base else parent
            # `from package import module` names a module too, not only an attribute.
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_graph(directory: Path, package: str) -> dict[str, set[str]]:
    """Each module of the package folder -> the modules of the same package it imports."""
    modules = {
        f"{package}.{path.stem}": path for path in directory.glob("*.py") if path.stem != "__init__"
    }
    return {
        name: _imported_modules(path, package) & modules.keys() - {name}
        for name, path in modules.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for imported in sorted(graph[module]):
            if cycle := visit(imported, [*path, module]):
                return cycle
        done.add(module)
        return None

    for module in sorted(graph):
        if cycle := visit(module, []):
            return cycle
    return None


def test_no_embedder_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph(PACKAGE, "ingest.embedders")

    cycle = find_cycle(graph)

    assert cycle is None, " -> ".join(cycle or [])
    assert "ingest.embedders.base" in graph["ingest.embedders.registry"]


def test_an_import_inside_a_function_still_makes_a_cycle(tmp_path: Path) -> None:
    # The shape the embedders once had: base built the ONNX embedder with a late
    # import, and the ONNX module imported base.
    (tmp_path / "base.py").write_text(
        "def build():\n    from pkg.onnx import OnnxEmbedder\n\n    return OnnxEmbedder()\n",
        encoding="utf-8",
    )
    (tmp_path / "onnx.py").write_text("from pkg.base import build\n", encoding="utf-8")
    (tmp_path / "quantisation.py").write_text("from . import base\n", encoding="utf-8")

    graph = import_graph(tmp_path, "pkg")

    assert find_cycle(graph) == ["pkg.base", "pkg.onnx", "pkg.base"]
    assert graph["pkg.quantisation"] == {"pkg.base"}
