"""The command line's error handling: a product error is one line and exit code 2, a bug keeps
its traceback; and the module PDF parser workers import stays light."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from chat.cli import index as index_commands
from tests.support.data import ROOT
from tests.support.running.cli import cli_fixture  # noqa: F401 - a pytest fixture, used by name


def test_an_unknown_paper_is_one_line_and_exit_code_two(cli: click.Group) -> None:
    result = CliRunner().invoke(cli, ["index", "delete", "9999.99999"])

    assert result.exit_code == 2
    assert result.stderr == "paperchat: error: no paper '9999.99999' in the index\n"
    assert result.exception is not None
    assert not isinstance(result.exception, RuntimeError)


def test_a_bug_escapes_with_its_traceback(
    cli: click.Group, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(_data_dir: object) -> None:
        raise RuntimeError("a bug in the index command")

    monkeypatch.setattr(index_commands, "wiring_for", broken)

    result = CliRunner().invoke(cli, ["index", "stats"])

    assert result.exit_code == 1
    assert isinstance(result.exception, RuntimeError)
    assert str(result.exception) == "a bug in the index command"
    assert "paperchat: error" not in result.stderr


def test_the_main_module_imports_no_command_and_no_heavy_module() -> None:
    code = (
        "import sys, chat.cli.main; "
        "print(sorted(m for m in sys.modules if m.startswith(('chat.', 'chromadb', 'openai'))))"
    )

    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )

    assert done.stdout.strip() == "['chat.cli', 'chat.cli.main']"
