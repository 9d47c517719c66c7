"""The job modules import one another one way: the queue registers the tasks, and the tasks
do not import the queue back."""

from __future__ import annotations

from tests.support.data import ROOT
from tests.support.layout import circles, import_graph


def test_the_queue_imports_the_tasks_and_not_the_other_way() -> None:
    graph = import_graph(ROOT, ("ingest",))
    jobs = {module: edges for module, edges in graph.items() if module.startswith("ingest.jobs")}

    assert circles(jobs) == []
    assert "ingest.jobs.tasks" in graph["ingest.jobs.queue"]
    assert "ingest.jobs.queue" not in graph["ingest.jobs.tasks"]
