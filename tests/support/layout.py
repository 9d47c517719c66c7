"""The shape of the source tree, read from the files: import circles, crowded packages and
long modules.

An import circle is a set of modules each reaching the others through imports,
counted as `architecture.imports` counts them (lazy ones and those under
`TYPE_CHECKING` too): the piece they share belongs below all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tests.support.architecture import imports, module_name

PRODUCT = ("chat", "ingest", "prompts", "bench")
MOST_MODULES = 14  # per package, its __init__.py not counted
MOST_LINES = 400


def _sources(root: Path, packages: Sequence[str]) -> Iterable[Path]:
    for package in packages:
        yield from sorted((root / package).rglob("*.py"))


def import_graph(root: Path, packages: Sequence[str] = PRODUCT) -> dict[str, set[str]]:
    """Each module of `packages` under `root`, with the modules of the same tree it imports.
    A name imported from a module (`from a.b import C`) counts as that module; a package a
    module is inside is not counted, since importing the module imports it anyway."""
    paths = {module_name(root, path): path for path in _sources(root, packages)}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for imported, _line in imports(module, path.read_text(encoding="utf-8"), is_package):
            target = _known(imported, paths)
            if target is not None and target != module and not module.startswith(target + "."):
                edges.add(target)
        graph[module] = edges
    return graph


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is one of `modules`."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles of `graph`: each set of two or more modules that all reach each
    other (a strongly connected component), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Tarjan's algorithm, iteratively: a deep tree must not hit the recursion limit.
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def crowded_packages(
    root: Path, packages: Sequence[str] = PRODUCT, most: int = MOST_MODULES
) -> dict[str, int]:
    """Packages (folders with an `__init__.py`) holding more than `most` modules."""
    crowded: dict[str, int] = {}
    for package in packages:
        for init in sorted((root / package).rglob("__init__.py")):
            count = sum(1 for p in init.parent.glob("*.py") if p.name != "__init__.py")
            if count > most:
                crowded[init.parent.relative_to(root).as_posix()] = count
    return crowded


def long_modules(
    root: Path, packages: Sequence[str] = PRODUCT, most: int = MOST_LINES
) -> dict[str, int]:
    """Modules longer than `most` lines, by path from `root`."""
    lengths = {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in _sources(root, packages)
    }
    return {path: lines for path, lines in lengths.items() if lines > most}


def write_module(root: Path, module: str, source: str) -> None:
    """Module `module` (dotted: "chat.rag.part") under `root`, with the packages it is in: a
    made-up tree for showing a check failing."""
    file = root / (module.replace(".", "/") + ".py")
    for parent in reversed(file.relative_to(root).parents[:-1]):
        (root / parent).mkdir(exist_ok=True)
        (root / parent / "__init__.py").touch()
    file.write_text(source, encoding="utf-8")
