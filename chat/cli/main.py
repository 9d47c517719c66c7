"""The `paperchat` command line: the group, its error handling, and what the commands share.

Exit codes: 0 success; 1 done, but some items were skipped (each listed with
its reason); 2 usage or configuration error, with a one-line message. Only
`PaperchatError` (and click's own usage errors) become that one line: any
other exception is a bug and shows its traceback (exit code 1).

Each command group has a module of its own (`COMMANDS`), imported when its
command is looked up. PDF parser workers start by importing this module (the
`paperchat` script is their main module), so they load none of those. The
command modules import the heavy ones (Chroma, onnxruntime, the openai client)
inside the commands that need them, so that `--help` stays quick.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

import click

from ingest.errors import PaperchatError
from ingest.private import PRIVATE_UMASK

if TYPE_CHECKING:
    from chat.settings import Settings
    from chat.wiring import Wiring

F = TypeVar("F", bound=Callable[..., Any])

# Command name -> "module:attribute" of its click command.
COMMANDS = {
    "ingest": "chat.cli.ingest:ingest",
    "harvest": "chat.cli.harvest:harvest",
    "index": "chat.cli.index:index",
    "ask": "chat.cli.ask:ask",
    "serve": "chat.cli.serve:serve",
    "users": "chat.cli.admin:users",
    "keys": "chat.cli.admin:keys",
    "eval": "chat.cli.evaluate:evaluate",
    "embedder": "chat.cli.embedder:embedder",
    "mcp": "chat.cli.mcp:mcp",
    "worker": "chat.cli.worker:worker",
    "jobs": "chat.cli.jobs:jobs",
}


class CommandError(PaperchatError):
    """A command refused its input: a missing file, an unknown paper."""


class Failed(click.ClickException):
    """A `PaperchatError` on its way out: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"paperchat: error: {self.format_message()}", err=True)


class PaperchatGroup(click.Group):
    """The main command: finds the command modules, turns product errors into one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, _, name = COMMANDS[cmd_name].partition(":")
        command: click.Command = getattr(importlib.import_module(module), name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        os.umask(PRIVATE_UMASK)  # what the commands write in the data dir is the user's alone
        try:
            return super().invoke(ctx)
        except PaperchatError as e:
            raise Failed(str(e) or type(e).__name__) from e
        except KeyboardInterrupt:
            click.echo("paperchat: interrupted", err=True)
            sys.exit(130)


def settings_for(data_dir: Path | None) -> Settings:
    """The settings from the environment, with `--data-dir` when it was given."""
    from chat.settings import get_settings

    settings = get_settings()
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return settings


def wiring_for(data_dir: Path | None) -> Wiring:
    from chat.wiring import Wiring

    return Wiring(settings_for(data_dir))


def emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    """`payload` as one JSON line with `--json`, else `text`."""
    if as_json:
        click.echo(json.dumps(payload, ensure_ascii=False))
    else:
        click.echo(text)


def data_dir_option(func: F) -> F:
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="The data dir (default: PAPERCHAT_DATA_DIR).",
    )(func)


def names_a_full_disk(func: F) -> F:
    """A command that writes the data dir: a full disk is one line naming it (exit 2)."""

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        from ingest.disk import naming_a_full_disk

        with naming_a_full_disk(settings_for(kwargs.get("data_dir")).data_dir):
            return func(*args, **kwargs)

    return cast(F, command)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="One JSON object on stdout.")(func)


@click.group(cls=PaperchatGroup)
@click.version_option(package_name="paperchat")
def main() -> None:
    """Chat with arXiv papers: ingest them, search them, ask them."""


if __name__ == "__main__":
    main()
