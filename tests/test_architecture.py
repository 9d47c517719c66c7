"""The layers' import directions hold, and the check would see them broken."""

from __future__ import annotations

from pathlib import Path

from tests.support.architecture import violations
from tests.support.data import ROOT
from tests.support.layout import write_module


def test_the_product_imports_only_downwards() -> None:
    found = violations(ROOT)

    assert [str(v) for v in found] == []


def test_a_forbidden_import_is_reported_with_its_line(tmp_path: Path) -> None:
    write_module(
        tmp_path, "ingest.index.catalog", "import json\nfrom chat.rag.sources import Source\n"
    )
    write_module(
        tmp_path, "chat.rag.retrieval", "from ingest.index.vectors.store import ChunkStore\n"
    )
    write_module(tmp_path, "chat.rag.answering", "def f():\n    from fastapi import Request\n")
    write_module(tmp_path, "chat.rag.extractive", "from ingest.pdf.parsing import parse_pdf\n")
    write_module(tmp_path, "chat.service.app", "from chat import cli\n")
    write_module(tmp_path, "chat.wiring", "from chat.rag.retrieval import Retriever\n")

    found = violations(tmp_path)

    assert sorted((v.module, v.imported, v.line) for v in found) == [
        ("chat.rag.answering", "fastapi", 2),
        ("chat.rag.extractive", "ingest.pdf.parsing", 1),
        ("chat.service.app", "chat.cli", 1),
        ("ingest.index.catalog", "chat.rag.sources", 2),
    ]


def test_relative_imports_are_resolved_before_they_are_judged(tmp_path: Path) -> None:
    write_module(
        tmp_path, "chat.rag.retrieval", "from . import fusion\nfrom ..service import app\n"
    )
    write_module(tmp_path, "chat.rag.__init__", "from .. import wiring\n")

    found = violations(tmp_path)

    assert sorted((v.module, v.imported) for v in found) == [
        ("chat.rag", "chat.wiring"),
        ("chat.rag.retrieval", "chat.service"),
    ]


def test_a_route_importing_another_route_is_reported_but_not_one_importing_the_shared_modules(
    tmp_path: Path,
) -> None:
    write_module(tmp_path, "chat.service.routes.papers", "class Paper: ...\n")
    write_module(
        tmp_path,
        "chat.service.routes.chat",
        "from chat.service.routes.deps import ServicesDep\n"
        "from chat.service.routes.errors import errors\n"
        "from chat.service.routes import deps\n"
        "from chat.service.routes.papers import Paper\n"
        "def f():\n    from . import auth\n",
    )
    write_module(
        tmp_path, "chat.service.routes.deps", "from chat.service.routes.chat import PaperId\n"
    )
    write_module(
        tmp_path, "chat.service.mcp.tools", "from chat.service.routes.papers import Paper\n"
    )

    found = violations(tmp_path)

    assert sorted((v.module, v.imported, v.line) for v in found) == [
        ("chat.service.routes.chat", "chat.service.routes.auth", 6),
        ("chat.service.routes.chat", "chat.service.routes.papers", 4),
        ("chat.service.routes.deps", "chat.service.routes.chat", 1),
    ]


def test_a_route_importing_another_in_its_own_folder_or_another_is_reported(
    tmp_path: Path,
) -> None:
    write_module(tmp_path, "chat.service.routes.accounts.keys", "class Key: ...\n")
    write_module(tmp_path, "chat.service.routes.people.researchers", "class Researcher: ...\n")
    write_module(
        tmp_path,
        "chat.service.routes.accounts.auth",
        "from chat.service.routes.deps import ServicesDep\n"
        "from .. import errors\n"
        "from chat.service.routes.accounts import keys\n"
        "from ..people.researchers import Researcher\n",
    )
    write_module(
        tmp_path, "chat.service.routes.chat", "from chat.service.routes.accounts.keys import Key\n"
    )

    found = violations(tmp_path)

    assert sorted((v.module, v.imported, v.line) for v in found) == [
        ("chat.service.routes.accounts.auth", "chat.service.routes.accounts.keys", 3),
        ("chat.service.routes.accounts.auth", "chat.service.routes.people.researchers", 4),
        ("chat.service.routes.chat", "chat.service.routes.accounts.keys", 1),
    ]
