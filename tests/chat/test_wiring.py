from __future__ import annotations

from typing import get_args

from chat.settings import Settings
from ingest.embedders.registry import EMBEDDERS


def test_every_embedder_setting_names_a_registered_embedder() -> None:
    backends = get_args(Settings.model_fields["embedder_backend"].annotation)
    remote = set(get_args(Settings.model_fields["embeddings"].annotation)) - {"local"}

    keys = {*backends, *remote}

    assert keys == set(EMBEDDERS)
    assert keys == {"onnx", "onnx-fp32", "torch", "openai"}
