# Unicode look-alikes of ASCII are the readable TeX these tests expect.
# ruff: noqa: RUF001
"""TeX in titles and abstracts, made readable for the paper pages."""

from __future__ import annotations

import pytest

from ingest.index.tex import readable_paragraphs, readable_tex

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize(
    ("tex", "shown"),
    [
        (r"$\alpha$-stable laws", "α-stable laws"),
        (r"$\Omega(n^2)$ and $O(n \log n)$", "Ω(n²) and O(n log n)"),
        (r"$x_{ij}$ in $\mathbb{R}^d$", "xᵢⱼ in ℝ^d"),
        (r"Schr\"odinger, Erd\H{o}s, G\"{o}del, {\'e}t\'e", "Schrödinger, Erdős, Gödel, été"),
        (r"\emph{very} \textbf{bold \emph{nested}}", "very bold nested"),
        (r"pages 10--20 --- 5\% of $\lambda \leq 1$", "pages 10–20 — 5% of λ ≤ 1"),
        (r"$AdS_5 \times S^5$", "AdS₅ × S⁵"),
        (r"$\mathcal{O}(1)$ \& $\sim 3$", "O(1) & ∼ 3"),
    ],
)
def test_tex_markup_becomes_readable_text(tex: str, shown: str) -> None:
    result = readable_tex(tex)

    assert result == shown


def test_unknown_commands_are_left_as_written() -> None:
    result = readable_tex(r"the \frobnicate operator")

    assert result == r"the \frobnicate operator"


def test_markup_characters_pass_through_for_the_template_to_escape() -> None:
    result = readable_tex("<img src=x onerror=alert(1)>")

    assert result == "<img src=x onerror=alert(1)>"


def test_abstract_paragraphs_split_on_blank_lines_and_indents() -> None:
    abstract = "First line\nwraps here.\n  Second paragraph.\n\nThird $\\beta$."

    paragraphs = readable_paragraphs(abstract)

    assert paragraphs == ["First line wraps here.", "Second paragraph.", "Third β."]
