from __future__ import annotations

from pathlib import Path

import onnx
import pytest

from ingest.embedders.base import model_dir
from ingest.embedders.onnx_embedder import cache_key, cached_onnx_model
from ingest.embedders.quantisation import INT8, MODEL_LAYERS, Int8Recipe

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def int8_graph(models_cache: Path) -> onnx.ModelProto:
    return onnx.load(str(cached_onnx_model(model_dir(), models_cache, quantize=True)))


def _float_matmuls(model: onnx.ModelProto) -> list[str]:
    """Producers of the inputs of MatMuls whose weight is a float constant."""
    floats = {i.name for i in model.graph.initializer if i.data_type == onnx.TensorProto.FLOAT}
    producers = {output: node.op_type for node in model.graph.node for output in node.output}
    return [
        producers.get(node.input[0], "?")
        for node in model.graph.node
        if node.op_type == "MatMul" and node.input[1] in floats
    ]


def test_int8_model_keeps_only_the_recipes_ffn_outputs_in_fp32(
    int8_graph: onnx.ModelProto,
) -> None:
    kept = _float_matmuls(int8_graph)

    assert kept == ["Gelu"] * len(INT8.float_ffn_out_layers)
    assert sum(n.op_type == "MatMulInteger" for n in int8_graph.graph.node) == (
        MODEL_LAYERS * 6 - len(INT8.float_ffn_out_layers)
    )


def test_int8_model_keeps_the_word_embeddings_in_fp32(int8_graph: onnx.ModelProto) -> None:
    tables = [i for i in int8_graph.graph.initializer if "word_embeddings" in i.name]

    assert [t.data_type for t in tables] == [onnx.TensorProto.FLOAT]
    assert list(tables[0].dims) == [30522, 384]


def test_a_changed_int8_recipe_gets_a_new_cache_key() -> None:
    directory = model_dir()
    other = Int8Recipe(float_ffn_out_layers=())

    keys = {cache_key(directory, quantize=True, recipe=r) for r in (INT8, other, Int8Recipe())}

    assert len(keys) == 2
    assert cache_key(directory, quantize=False, recipe=other) == cache_key(
        directory, quantize=False
    )


@pytest.mark.parametrize("spec", ["all", "matmul", "matmul:0,2", "all:5/tensor"])
def test_a_recipe_spec_reads_back_as_written(spec: str) -> None:
    recipe = Int8Recipe.parse(spec)

    assert recipe.label() == spec


def test_the_default_recipe_is_matmuls_per_channel_with_two_float_ffn_outputs() -> None:
    assert Int8Recipe.parse("matmul:0,2") == INT8


def test_an_unknown_recipe_spec_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown int8 recipe 'gather'"):
        Int8Recipe.parse("gather")
