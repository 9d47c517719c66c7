"""What can be followed: a category only when arXiv has it (its taxonomy, kept as data in the
package) and a paper of the index is in it, whatever categories a record made up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chat.library.categories import CategoryNotFound, arxiv_categories
from chat.library.follows import InvalidFollow, Target, follow_target
from ingest.index.catalog import Catalog
from ingest.index.records import Paper


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    catalog = Catalog(tmp_path / "catalog.sqlite")
    made_up = ("cs.CL", "---", "cs.MADEUP", "zz-top")
    paper = Paper(id="2401.00101", title="Made-up categories", categories=made_up)
    with catalog.transaction():
        catalog.replace_unit(paper, "metadata", "abstract", "digest", [])
    yield catalog
    catalog.close()


@pytest.mark.parametrize("made_up", ["---", "cs.MADEUP", "zz-top"])
def test_a_category_arxiv_does_not_have_cannot_be_followed(catalog: Catalog, made_up: str) -> None:
    with pytest.raises(InvalidFollow, match="is not an arXiv category"):
        follow_target(catalog, "category", made_up)


def test_an_arxiv_category_of_the_index_can_be_followed_and_one_outside_it_is_not_found(
    catalog: Catalog,
) -> None:
    followed = follow_target(catalog, "category", " cs.CL ")

    assert followed == Target("category", "cs.CL")
    with pytest.raises(CategoryNotFound):
        follow_target(catalog, "category", "hep-th")


def test_the_taxonomy_holds_arxiv_s_archives_old_and_new() -> None:
    categories = arxiv_categories()

    assert {"cs.CL", "hep-th", "math.AG", "astro-ph", "cond-mat.str-el", "q-fin.TR"} <= categories
    assert {"eess.SY", "econ.EM", "stat.ML", "physics.optics", "solv-int"} <= categories
    assert not {"---", "cs", "cs.XX", "68T50", "I.2.7"} & categories
    assert 150 < len(categories) < 200
