"""The third-party checkers the tests run over served pages, installed by `scripts/install`
from npm (`package.json`, `npm install --ignore-scripts`), never fetched while testing:
axe-core, injected into a page open in Chromium, and the Nu HTML Checker (`vnu.jar`), run
with the machine's Java."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.data import ROOT

NODE_MODULES = ROOT / "node_modules"
AXE = NODE_MODULES / "axe-core" / "axe.min.js"
VNU = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
# WCAG 2.0, 2.1 and 2.2, levels A and AA: the rules axe-core tags with them.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]
GRAVE = ("serious", "critical")


def installed(path: Path) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: run ./scripts/install (npm install --ignore-scripts)")
    return path


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    targets: list[str]

    def __str__(self) -> str:
        return f"{self.rule} ({self.impact}): {self.help} at {', '.join(self.targets[:5])}"


def axe_violations(page: Page) -> list[Violation]:
    """The serious and critical violations of WCAG 2.2 A and AA rules axe-core finds in the
    page as it stands (open shadow roots included). The page's context must bypass its
    Content-Security-Policy, which refuses any script it did not serve."""
    page.add_script_tag(path=str(installed(AXE)))
    found: dict[str, Any] = page.evaluate(
        "(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG_TAGS
    )
    return [
        Violation(v["id"], v["impact"], v["help"], [str(n["target"]) for n in v["nodes"]])
        for v in found["violations"]
        if v["impact"] in GRAVE
    ]


def nu_errors(pages: dict[str, str], folder: Path) -> dict[str, list[str]]:
    """Each page (a name and its HTML) with the errors the Nu HTML Checker reports in it:
    one Java process for all of them."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed: apt-get install default-jre-headless")
    files = {}
    for number, (name, html) in enumerate(pages.items()):
        path = folder / f"page-{number}.html"
        path.write_text(html, encoding="utf-8")
        files[str(path.resolve())] = name
    checked = subprocess.run(
        [java, "-jar", str(installed(VNU)), "--format", "json", "--exit-zero-always", *files],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    errors: dict[str, list[str]] = {name: [] for name in pages}
    for message in json.loads(checked.stderr or checked.stdout)["messages"]:
        if message["type"] in ("error", "non-document-error"):
            where = files.get(message.get("url", "").removeprefix("file:"), "?")
            line = message.get("lastLine", "?")
            errors.setdefault(where, []).append(f"line {line}: {message['message']}")
    return {name: found for name, found in errors.items() if found}
