from __future__ import annotations

from pathlib import Path

from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.store import open_chroma
from ingest.private import private_dir, private_file


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_missing_folders_are_made_for_the_owner_alone(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c"

    private_dir(path)

    assert [_mode(p) for p in (tmp_path / "a", tmp_path / "a" / "b", path)] == [0o700] * 3


def test_an_open_folder_and_file_are_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    file = folder / "catalog.sqlite"
    file.write_text("kept")
    file.chmod(0o644)

    private_file(file)

    assert (_mode(folder), _mode(file)) == (0o700, 0o600)
    assert file.read_text() == "kept"


def test_catalog_chroma_and_lexical_index_are_private(tmp_path: Path) -> None:
    data = tmp_path / "data"

    catalog = Catalog(data / "catalog.sqlite")
    catalog.db.execute("CREATE TABLE IF NOT EXISTS probe (x)")  # commits alone
    LexicalIndex(data / "lexical")
    open_chroma(data / "chroma")

    catalog_files = [p for p in data.iterdir() if p.name.startswith("catalog.sqlite")]
    assert _mode(data) == 0o700
    assert {p.name: _mode(p) for p in catalog_files} == {p.name: 0o600 for p in catalog_files}
    assert (_mode(data / "lexical"), _mode(data / "chroma")) == (0o700, 0o700)
    catalog.close()


def test_a_file_in_a_shared_sticky_folder_leaves_the_folder_open_to_all(tmp_path: Path) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp is

    made = private_file(shared / "service.sqlite")

    assert shared.stat().st_mode & 0o7777 == 0o1777
    assert _mode(made) == 0o600
