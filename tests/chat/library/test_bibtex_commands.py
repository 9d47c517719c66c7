"""TeX commands in a record that a LaTeX run of a downloaded `.bib` would obey (read a file,
write one, run a program, change how TeX reads): read back by bibtexparser as a reference
manager reads them, the entry parses and none of them is left as a command."""

from __future__ import annotations

import re

import pytest
from bibtexparser.entrypoint import parse_string

from chat.library.bibtex import TITLE_COMMANDS, entry

HOSTILE = [
    r"Reading \input{/etc/passwd} in a title",
    r"Running \immediate\write18{rm -rf ~} at once",
    r"A file \openout3=owned.tex written",
    r"Chapters \include{secret} and \read16 to \x",
    r"Catcodes \catcode`\@=11 and \makeatletter\@input{x}",
    r"Names built \csname input\endcsname{/etc/passwd}",
    r"Definitions \def\title{owned} and \let\relax\input",
    r"In math $\input{/etc/passwd}$ too",
    r"Hat notation ^^5cinput{/etc/passwd}",
    r"Hat notation in math $x^^5cinput{/etc/passwd}$",
]
_COMMAND_RE = re.compile(r"\\([A-Za-z@]+)")


def _parsed(text: str) -> dict[str, str]:
    library = parse_string(text)
    assert library.failed_blocks == []
    (parsed,) = library.entries
    return {field.key: str(field.value) for field in parsed.fields}


@pytest.mark.parametrize("title", HOSTILE)
def test_a_record_that_would_run_tex_commands_keeps_none_of_them(title: str) -> None:
    paper = {"id": "2401.00101", "title": title, "authors": r"Eve \input{x} Hostile",
             "published": "2024-01-02", "url": "https://arxiv.org/abs/2401.00101"}  # fmt: skip

    fields = _parsed(entry(paper, "hostile2024"))

    for value in fields.values():
        used = set(_COMMAND_RE.findall(value))
        assert used <= TITLE_COMMANDS, value
        assert "^^" not in value
    assert "Hostile" in fields["author"]


def test_a_title_with_the_math_and_accents_of_titles_keeps_its_tex() -> None:
    paper = {"id": "2401.00102", "title": r"Schr\"odinger on $AdS_5\times S^5$ with $\alpha$",
             "published": "2024-01-02", "url": "https://arxiv.org/abs/2401.00102"}  # fmt: skip

    fields = _parsed(entry(paper, "plain2024"))

    assert fields["title"] == r"Schr\"odinger on {$AdS_5\times S^5$} with {$\alpha$}"


def test_a_command_outside_the_list_reads_as_its_name() -> None:
    paper = {"id": "2401.00103", "title": r"Leaking \input{/etc/passwd} with $\alpha$",
             "published": "2024-01-02", "url": "https://arxiv.org/abs/2401.00103"}  # fmt: skip

    fields = _parsed(entry(paper, "leak2024"))

    assert fields["title"] == r"Leaking input{/etc/passwd} with {$\alpha$}"
