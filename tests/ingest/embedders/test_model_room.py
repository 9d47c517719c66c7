"""Preparing the embedding model (its ONNX export, written to the models cache) on a disk
without room for it: a DiskFull that says so and names the folder, before any export; an
ingest into a full data dir (the models cache's default home) stops with that one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.disk import DiskFull
from ingest.embedders.base import model_dir
from ingest.embedders.onnx_embedder import cached_onnx_model
from tests.support.data import ABSTRACTS
from tests.support.running.cli import environment, run
from tests.support.running.disk import tiny_disk

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(name="small_disk")
def small_disk_fixture(tmp_path: Path) -> Iterator[Path]:
    with tiny_disk(tmp_path / "disk", "3m") as disk:
        yield disk


def test_a_models_cache_without_room_is_a_full_disk_before_any_export(small_disk: Path) -> None:
    cache = small_disk / "data" / "models"

    with pytest.raises(DiskFull) as raised:
        cached_onnx_model(model_dir(), cache, quantize=True)

    message = str(raised.value)
    assert message.startswith(f"the disk holding {str(cache)!r} is full (")
    assert "PAPERCHAT_MODELS_CACHE" in message
    assert not cache.exists()


@pytest.mark.slow  # a `paperchat ingest` process of its own
def test_an_ingest_into_a_full_data_dir_says_so_and_stops(small_disk: Path, tmp_path: Path) -> None:
    data = small_disk / "data"
    env = environment(data, tmp_path / "unused")
    del env["PAPERCHAT_MODELS_CACHE"]  # the default: `models/` in the data dir

    result = run(env, "ingest", "abstracts", str(ABSTRACTS), "--limit", "3", timeout=300)

    *_, error = result.stderr.strip().splitlines()
    assert result.code == 2, result.stderr
    assert error.startswith(f"paperchat: error: the disk holding {str(data / 'models')!r} is full")
    assert "preparing the embedding model there needs about" in error
    assert "Traceback" not in result.stderr
