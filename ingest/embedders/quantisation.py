"""Quantise the exported MiniLM graph to int8, and the recipe that names the result.

Quantisation is dynamic: int8 weights, activations quantised per batch at
run time. Weights are scaled per output channel (per tensor cost this model
too much: mean cosine 0.94 to the fp32 vectors on arXiv abstracts, against
0.995). Only the MatMuls are quantised: the word-embedding table stays
fp32. Some feed-forward output MatMuls (the ones fed by GELU, whose inputs
have the widest range, so one activation scale per batch fits them worst)
stay fp32 too; which ones was chosen by measurement (`bench.speed.embedder`,
`bench.quality.embedder_quality`).

The recipe is part of the cached model's key (`ingest.embedders.onnx_embedder`), so a
changed recipe builds a new file and never reuses one made by another.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.embedders.base import EmbedderError, quiet_logger

if TYPE_CHECKING:
    import onnx

MODEL_LAYERS = 6


@dataclass(frozen=True)
class Int8Recipe:
    """How the fp32 graph becomes int8; `describe()` goes into the cache key."""

    per_channel: bool = True
    op_types: tuple[str, ...] = ("MatMul",)  # () for every op type onnxruntime can quantise
    # Layers (0-5) whose feed-forward output MatMul keeps fp32 weights.
    float_ffn_out_layers: tuple[int, ...] = (0, 2)

    def describe(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, spec: str) -> Int8Recipe:
        """`matmul` or `all` (op types), then optionally `:0,2` (fp32 FFN outputs), `/tensor`."""
        spec, per_tensor = spec.removesuffix("/tensor"), spec.endswith("/tensor")
        ops, _, layers = spec.partition(":")
        if ops not in ("matmul", "all"):
            raise ValueError(f"unknown int8 recipe {spec!r}: expected matmul or all, then :LAYERS")
        return cls(
            per_channel=not per_tensor,
            op_types=("MatMul",) if ops == "matmul" else (),
            float_ffn_out_layers=tuple(int(n) for n in layers.split(",") if n),
        )

    def label(self) -> str:
        ops = (
            "matmul"
            if self.op_types == ("MatMul",)
            else "all"
            if not self.op_types
            else "+".join(self.op_types)
        )
        layers = ",".join(map(str, self.float_ffn_out_layers))
        return f"{ops}{':' + layers if layers else ''}{'' if self.per_channel else '/tensor'}"


INT8 = Int8Recipe()


def ffn_output_matmuls(model: onnx.ModelProto) -> list[str]:
    """Names of the feed-forward output MatMuls, one per layer, in layer order.

    They are the MatMuls with a constant weight whose input comes from a GELU.
    """
    constants = {i.name for i in model.graph.initializer}
    producers = {output: node.op_type for node in model.graph.node for output in node.output}
    found = [
        node.name
        for node in model.graph.node
        if node.op_type == "MatMul"
        and node.input[1] in constants
        and producers.get(node.input[0]) == "Gelu"
    ]
    if len(found) != MODEL_LAYERS:
        raise EmbedderError(
            f"expected {MODEL_LAYERS} feed-forward output MatMuls in the graph, found {len(found)}"
        )
    return found


def quantise_int8(source: Path, target: Path, recipe: Int8Recipe = INT8) -> None:
    """Write an int8-weight copy of the ONNX graph `source` to `target`."""
    # Imported here: only a build needs them, and they take a while to import.
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    try:
        ffn_out = ffn_output_matmuls(onnx.load(str(source)))
        # Its one warning (pre-process before quantising) is for image models' graphs.
        with quiet_logger(""):
            quantize_dynamic(
                source,
                target,
                weight_type=QuantType.QInt8,
                per_channel=recipe.per_channel,
                op_types_to_quantize=list(recipe.op_types) or None,
                nodes_to_exclude=[ffn_out[layer] for layer in recipe.float_ffn_out_layers],
            )
    except (
        RuntimeError,
        ValueError,
        OSError,
        onnx.onnx_cpp2py_export.checker.ValidationError,
    ) as e:
        raise EmbedderError(f"cannot quantise {str(source)!r}: {e}") from e
