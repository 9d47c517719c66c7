"""The import directions of the layers, read from the source with `ast`.

    cli -> service -> wiring -> library -> rag -> ingest.index, ingest.embedders

and, within the service, route modules import none of each other, in the same
folder of routes or another: what they share is in `chat.service.routes.deps`
and `chat.service.routes.errors`.

Every import counts, also one inside a function or under `TYPE_CHECKING`:
a lazy import still ties one layer to the other. Naming a package the
importing module is inside (`from chat.service.routes import deps`) ties
nothing: that package is imported with the module anyway.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

WEB_DATABASE_CLI = (
    "fastapi", "starlette", "sse_starlette", "uvicorn", "jinja2", "itsdangerous",
    "sqlalchemy", "alembic", "psycopg", "redis", "click", "rich", "prometheus_client",
)  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """Modules under `layer` (but not under `exempt`) may not import any module under
    `forbidden`, except those under `allowed` (more specific than a forbidden prefix)."""

    layer: str
    forbidden: tuple[str, ...]
    allowed: tuple[str, ...] = ()
    exempt: tuple[str, ...] = ()
    why: str = ""

    def breaks(self, module: str, imported: str) -> bool:
        if not _under(module, self.layer) or _under(module, *self.exempt):
            return False
        if _under(module, imported):  # one of its own packages
            return False
        return _under(imported, *self.forbidden) and not _under(imported, *self.allowed)


# The one settings tree (chat/settings.py) and the groups of fields it is made of.
SETTINGS = ("chat.settings", "chat.settings_answer", "chat.settings_index", "chat.settings_service")

RULES: tuple[Rule, ...] = (
    Rule("ingest", ("chat", "prompts"), why="ingest never imports chat"),
    Rule(
        "chat.rag",
        (
            "ingest",
            "chat.library",
            "chat.service",
            "chat.cli",
            "chat.wiring",
            *SETTINGS,
            *WEB_DATABASE_CLI,
        ),
        allowed=("ingest.index", "ingest.embedders", "ingest.errors"),
        why="the answering core reads the index and embeds; no web, database or CLI library",
    ),
    Rule(
        "chat.library",
        ("chat.service", "chat.cli", "chat.wiring", *SETTINGS, *WEB_DATABASE_CLI),
        why="the library's lookups are below the app and read no settings",
    ),
    Rule("chat.wiring", ("chat.service", "chat.cli"), why="the composition root is below them"),
    *(
        Rule(settings, ("chat.service", "chat.cli", "chat.wiring"), why="settings are read")
        for settings in SETTINGS
    ),
    Rule(
        "chat.integrations",
        ("chat", "ingest", "prompts"),
        allowed=("chat.integrations",),
        why="integrations are clients of the HTTP API and import nothing of the server",
    ),
    Rule(
        "chat.service.routes",
        ("chat.service.routes",),
        allowed=("chat.service.routes.deps", "chat.service.routes.errors"),
        why="routes import none of each other; what they share is in routes.deps or .errors",
    ),
    Rule("chat", ("chat.cli",), exempt=("chat.cli",), why="nothing imports the command line"),
    Rule("prompts", ("chat", "ingest"), why="the templates are data"),
)


@dataclass(frozen=True)
class Violation:
    module: str
    imported: str
    line: int
    rule: Rule

    def __str__(self) -> str:
        return f"{self.module}:{self.line} imports {self.imported} ({self.rule.why})"


def _under(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(module: str, source: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import statement of `source`, anywhere in it."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield base, node.lineno
            for alias in node.names:  # `from chat import cli` imports chat.cli
                yield f"{base}.{alias.name}", node.lineno


def violations(
    root: Path,
    packages: Sequence[str] = ("chat", "ingest", "prompts"),
    rules: Sequence[Rule] = RULES,
) -> list[Violation]:
    """Every import under `root`'s `packages` that a rule forbids, once per line and rule."""
    found: dict[tuple[str, int, Rule], Violation] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(root, path)
            source = path.read_text(encoding="utf-8")
            for imported, line in imports(module, source, path.name == "__init__.py"):
                for rule in rules:
                    if rule.breaks(module, imported):
                        found.setdefault(
                            (module, line, rule), Violation(module, imported, line, rule)
                        )
    return list(found.values())
