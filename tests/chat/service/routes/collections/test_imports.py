"""`POST /api/collections/import` over HTTP: a BibTeX, CSL-JSON or RIS file becomes a
collection of its entries' papers in the library, the rest listed with why; a file that
cannot be read is a 4xx naming where, and the collection is its importer's alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.running.server import (  # noqa: F401 - pytest fixtures, used by name
    Api,
    api_fixture,
    api_settings_fixture,
    fake_llm_fixture,
    fresh_upstream_fixture,
)

pytestmark = pytest.mark.timeout(120)

DATA = Path(__file__).parents[3] / "library" / "imports" / "data"

# As Google Scholar and arXiv write BibTeX; the third entry never closes its title.
SCHOLAR_BIBTEX = r"""@article{izacard2020distilling,
  title={Distilling knowledge from reader to retriever for question answering},
  author={Izacard, Gautier and Grave, {\'E}douard},
  journal={arXiv preprint arXiv:2012.04584},
  eprint={2007.01282}, archivePrefix={arXiv},
  year={2020}
}

@inproceedings{kopuklu2018improving,
  title={Improving the Performance of Unimodal Dynamic Hand-Gesture Recognition with
         Multimodal Training},
  author={K{\"o}p{\"u}kl{\"u}, Okan and K{\"o}se, Neslihan and Rigoll, Gerhard},
  booktitle={CVPR},
  year={2019}
}

@article{broken2021,
  title={An entry whose {title never closes,
  year={2021}

@misc{vaswani2017attention,
      title={Attention Is All You Need},
      author={Ashish Vaswani and Noam Shazeer},
      year={2017},
      eprint={1706.03762},
      archivePrefix={arXiv},
      primaryClass={cs.CL}
}
"""


def test_a_bibtex_file_becomes_a_collection_named_for_the_file(api: Api) -> None:
    with api.key_client() as client:
        made = client.post(
            "/api/collections/import",
            json={"content": SCHOLAR_BIBTEX, "file_name": "Retrieval reading.bib"},
        )
        papers = client.get(f"/api/collections/{made.json()['collection']['id']}/papers")

    assert made.status_code == 201, made.text
    answer = made.json()
    assert (answer["collection"]["name"], answer["collection"]["papers"]) == (
        "Retrieval reading",
        2,
    )
    assert answer["format"] == "bibtex"
    assert [(m["paper_id"], m["matched_by"], m["at"]) for m in answer["matched"]] == [
        ("2007.01282", "arxiv_id", "line 1"),
        ("1812.06145", "title", "line 9"),
    ]
    assert answer["unmatched"] == [
        {
            "at": "line 21",
            "title": "Attention Is All You Need",
            "reason": "the library does not hold arXiv:1706.03762",
        }
    ]
    assert answer["unreadable"] == [
        {"at": "line 17", "reason": "a brace opened on line 18 is never closed"}
    ]
    assert [p["id"] for p in papers.json()] == ["2007.01282", "1812.06145"]


@pytest.mark.parametrize(
    ("file_name", "format", "unreadable"),
    [("zotero.json", "csl-json", ["item 3", "item 4"]), ("mendeley.ris", "ris", ["line 21"])],
)
def test_a_zotero_export_is_imported_under_the_name_given(
    api: Api, file_name: str, format: str, unreadable: list[str]
) -> None:
    content = (DATA / file_name).read_text(encoding="utf-8")

    with api.signed_in() as browser:
        made = browser.post(
            "/api/collections/import",
            json={"content": content, "file_name": file_name, "name": "From Zotero"},
        )

    assert made.status_code == 201, made.text
    answer = made.json()
    assert (answer["collection"]["name"], answer["format"]) == ("From Zotero", format)
    assert [(m["paper_id"], m["matched_by"]) for m in answer["matched"]] == [
        ("2007.01282", "arxiv_id")
    ]
    assert sorted(m["title"] for m in answer["unmatched"]) == [
        "Attention Is All You Need",
        "Product Quantization for Nearest Neighbor Search",
    ]
    assert [u["at"] for u in answer["unreadable"]] == unreadable


def test_another_user_cannot_see_the_imported_collection(api: Api) -> None:
    with api.key_client() as owner, api.key_client() as other:
        made = owner.post("/api/collections/import", json={"content": SCHOLAR_BIBTEX})
        collection_id = made.json()["collection"]["id"]
        read = other.get(f"/api/collections/{collection_id}")
        listed = other.get("/api/collections")
        again = owner.post("/api/collections/import", json={"content": SCHOLAR_BIBTEX})

    assert (made.status_code, made.json()["collection"]["name"]) == (201, "Imported")
    assert read.status_code == 404
    assert listed.json() == {"collections": []}
    assert again.status_code == 409


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (bytes(range(256)).decode("latin-1") * 64, "the file is binary"),
        ("@article{only,\n  title = {never {closed}\n", "a brace opened on line 2 is never closed"),
        ("[" + ",".join(["{}"] * 6000) + "]", "a file holds at most 5000 entries"),
        ("[1, 2]", "item 1: an item is a JSON object"),
        ("TY  - JOUR\nTI  - No end\n", "line 1: it has no ER line"),
        ("my reading list, as notes", "not BibTeX, CSL-JSON or RIS"),
        ("", "not BibTeX, CSL-JSON or RIS"),
    ],
)
def test_a_file_that_cannot_be_read_is_a_422_naming_where(
    api: Api, content: str, detail: str
) -> None:
    with api.key_client() as client:
        refused = client.post("/api/collections/import", json={"content": content})
        listed = client.get("/api/collections")

    assert refused.status_code == 422
    assert detail in refused.json()["detail"]
    assert listed.json() == {"collections": []}


def test_a_file_larger_than_the_body_limit_is_refused(api: Api) -> None:
    content = SCHOLAR_BIBTEX * (10 * 1024 * 1024 // len(SCHOLAR_BIBTEX))

    with api.key_client() as client:
        refused = client.post("/api/collections/import", json={"content": content})

    assert refused.status_code == 413
