# One image for every paperchat role in compose.yaml: `paperchat serve` (an API node),
# `paperchat worker` (an ingest worker) and the vector store (`chroma run` of the chromadb
# paperchat is pinned to, so that the server and its clients are always one version).
FROM python:3.11-slim-bookworm

# torch's CPU build: the default wheel brings CUDA libraries, gigabytes never used here.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    PAPERCHAT_DATA_DIR=/data \
    PAPERCHAT_MODELS_CACHE=/opt/paperchat/models

WORKDIR /opt/paperchat/src
COPY pyproject.toml README.md ./
COPY chat chat
COPY ingest ingest
COPY prompts prompts
RUN pip install --extra-index-url "$TORCH_INDEX" . \
    # The int8 embedder, derived once from the packaged model, so that no node spends a
    # minute of CPU on it at its first start.
    && python -c "from pathlib import Path; from ingest.embedders.registry import build_embedder; build_embedder('onnx', cache_dir=Path('/opt/paperchat/models')).embed(['ready'])" \
    && useradd --create-home --uid 10001 paperchat \
    && install -d -o paperchat -g paperchat /data /pdfs /chroma

USER paperchat
WORKDIR /home/paperchat
EXPOSE 8000
CMD ["paperchat", "serve", "--host", "0.0.0.0", "--port", "8000"]
