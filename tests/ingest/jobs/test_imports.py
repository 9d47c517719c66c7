"""The job modules import one another one way: the queue registers the tasks, and no module
is reached again from what it imports."""

from __future__ import annotations

from pathlib import Path

from tests.support.architecture import imports, module_name
from tests.support.data import ROOT


def _imports_within(folder: Path) -> dict[str, set[str]]:
    """{module: the modules of the same folder it imports, lazily or not}."""
    paths = {module_name(ROOT, path): path for path in sorted(folder.glob("*.py"))}
    return {
        module: {
            imported
            for imported, _ in imports(
                module, path.read_text(encoding="utf-8"), path.name == "__init__.py"
            )
            if imported in paths and imported != module
        }
        for module, path in paths.items()
    }


def _on_a_circle(graph: dict[str, set[str]]) -> list[str]:
    """The modules that reach themselves through what they import."""
    circled = []
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo += graph[module]
        if start in seen:
            circled.append(start)
    return circled


def test_no_job_module_imports_one_that_imports_it_back() -> None:
    graph = _imports_within(ROOT / "ingest" / "jobs")

    circled = _on_a_circle(graph)

    assert circled == []
    assert "ingest.jobs.tasks" in graph["ingest.jobs.queue"]
    assert "ingest.jobs.queue" not in graph["ingest.jobs.tasks"]


def test_a_circle_of_two_modules_is_found() -> None:
    graph = {"a.queue": {"a.tasks"}, "a.tasks": {"a.queue", "a.leases"}, "a.leases": set()}

    assert _on_a_circle(graph) == ["a.queue", "a.tasks"]
