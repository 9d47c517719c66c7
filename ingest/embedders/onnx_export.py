"""Export the packaged MiniLM to ONNX (fp32; `ingest.embedders.quantisation` makes the int8 copy).

The exported graph takes `input_ids` and `attention_mask` (int64, batch x
sequence, both dynamic) and returns `sentence_embedding`: the transformer's
token states mean-pooled over the mask and L2-normalised, as sentence-
transformers does for this model.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch
from transformers import AutoModel, PreTrainedModel
from transformers.utils import logging as hf_logging

from ingest.embedders.base import EmbedderError, quiet_logger, stay_offline

INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "sentence_embedding"


class MeanPooledEncoder(torch.nn.Module):
    """Transformer + masked mean pooling + L2 normalisation, one graph."""

    def __init__(self, transformer: PreTrainedModel) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        states = self.transformer(
            input_ids=input_ids, attention_mask=attention_mask
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(states.dtype)
        summed = (states * mask).sum(dim=1)
        mean = summed / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2.0, dim=1)


def export_onnx(model_dir: Path, target: Path) -> None:
    """Write the fp32 ONNX graph of the model in `model_dir` to `target`."""
    encoder = MeanPooledEncoder(_load_transformer(model_dir)).eval()
    # A padded example, so the traced graph keeps the attention mask's effect.
    input_ids = torch.full((2, 8), 1000, dtype=torch.int64)
    attention_mask = torch.ones((2, 8), dtype=torch.int64)
    attention_mask[1, 5:] = 0
    batch = torch.export.Dim("batch")
    sequence = torch.export.Dim("sequence", max=512)
    axes = {0: batch, 1: sequence}
    with warnings.catch_warnings(), quiet_logger("torch.onnx"):
        # The exporter warns about its own internals (shared axis names, pytree
        # API deprecations); none concerns the graph it writes.
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            torch.onnx.export(
                encoder,
                (input_ids, attention_mask),
                str(target),
                input_names=list(INPUT_NAMES),
                output_names=[OUTPUT_NAME],
                dynamic_shapes={"input_ids": axes, "attention_mask": axes},
                dynamo=True,
                external_data=False,
                verbose=False,
            )
        except (RuntimeError, ImportError, OSError) as e:
            raise EmbedderError(f"cannot export {str(model_dir)!r} to ONNX: {e}") from e


@contextmanager
def quiet_progress_bars() -> Iterator[None]:
    """No "Loading weights" bar of the library's own while the model loads: the ingest
    shows its own progress."""
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def _load_transformer(model_dir: Path) -> PreTrainedModel:
    stay_offline()
    try:
        with quiet_progress_bars():
            model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
    except (OSError, ValueError) as e:
        raise EmbedderError(f"cannot load model from {str(model_dir)!r}: {e}") from e
    if not isinstance(model, PreTrainedModel):
        raise EmbedderError(f"{str(model_dir)!r} holds no transformer model")
    return model
