"""Where the index lives and what fills it: the `PAPERCHAT_*` settings of the data dir, the
stores and the embedder (`IndexSettings`), and of ingest (`IngestSettings`).

Groups of fields of the one settings tree, `chat.settings.Settings`, which reads them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from ingest.embedders.openai_embedder import (
    DEFAULT_BATCH,
    DEFAULT_CONCURRENCY,
    DEFAULT_OPENAI_MODEL,
)
from ingest.pdf.isolation import PDF_MAX_MB, PDF_TIMEOUT_S
from ingest.sources.arxiv_api import DEFAULT_API_URL, DEFAULT_INTERVAL_S, DEFAULT_PDF_BASE_URL
from ingest.sources.metadata import MAX_RECORD_BYTES


class IndexSettings(BaseModel):
    """The data dir, the vector store, the database, and the embedder that fills the index."""

    data_dir: Path = Field(
        Path("./data"),
        description="the index (`chroma/`, `catalog.sqlite`), the database, harvested PDFs",
    )
    chroma_url: str = Field(
        "",
        description="a Chroma server, e.g. `http://127.0.0.1:8001`; empty: embedded Chroma "
        "in the data dir",
    )
    database_url: str = Field(
        "",
        description="any SQLAlchemy URL (PostgreSQL works); empty: a SQLite file in the data dir",
    )
    embeddings: Literal["local", "openai"] = Field(
        "local",
        description="`local` (the packaged all-MiniLM-L6-v2, offline) or `openai` (any "
        "OpenAI-compatible embeddings endpoint)",
    )
    embedder_backend: Literal["onnx", "onnx-fp32", "torch"] = Field(
        "onnx",
        description="how `local` runs: `onnx` (the same model, int8, built once from the "
        "packaged weights), `onnx-fp32` or `torch` (fp32 sentence-transformers)",
    )
    embedder_model: Path | None = Field(
        None,
        description="the folder of a model trained on the library by `paperchat embedder "
        "train`, run as `embedder_backend` says; empty: the packaged all-MiniLM-L6-v2. The "
        "index records its embedder: switching re-embeds (`paperchat index reembed`)",
    )
    embeddings_cache: Path | None = Field(
        None,
        description="an `.npz` of vectors keyed by the SHA-256 of the texts they embed, made "
        "by the same embedder (`keys`, `vectors`, `meta`): ingest and `index rebuild-vectors` "
        "take a text's vector from it instead of embedding the text; empty: embed every text",
    )
    embeddings_model: str = Field(
        DEFAULT_OPENAI_MODEL, description="model name for `PAPERCHAT_EMBEDDINGS=openai`"
    )
    embeddings_url: str = Field(
        "",
        description="an embeddings server of its own (TEI, vLLM, Infinity), e.g. "
        "`http://127.0.0.1:8080/v1`; empty: the chat model's (`OPENAI_BASE_URL`)",
    )
    embeddings_key: SecretStr | None = Field(
        None, description="that server's key; empty: `OPENAI_API_KEY`"
    )
    embeddings_query_prefix: str = Field(
        "",
        description="put before each question, as e5 (`query: `) and bge models need; part of "
        "the index's identity: changing it means re-ingesting",
    )
    embeddings_document_prefix: str = Field(
        "",
        description="put before each passage (e5: `passage: `); part of the index's identity too",
    )
    embeddings_batch: int = Field(
        DEFAULT_BATCH,
        ge=1,
        le=2048,
        description="texts per request to the embeddings server (TEI accepts 32 by default)",
    )
    embeddings_concurrency: int = Field(
        DEFAULT_CONCURRENCY,
        ge=1,
        le=64,
        description="requests in flight at once to the embeddings server, so that a GPU "
        "server stays busy",
    )

    @property
    def chroma_path(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def lexical_path(self) -> Path:
        return self.data_dir / "lexical"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite"

    @property
    def shared_catalog(self) -> bool:
        """Whether the catalog lives in the database server every node shares
        (`PAPERCHAT_DATABASE_URL` naming PostgreSQL) rather than in the data dir."""
        if not self.database_url:
            return False
        try:
            backend = make_url(self.database_url).get_backend_name()
        except ArgumentError:  # not a URL: the service's database says so when it opens
            return False
        return backend in ("postgres", "postgresql")

    @property
    def catalog_location(self) -> Path | str:
        """The catalog: the shared database's URL, or the SQLite file in the data dir."""
        return self.database_url if self.shared_catalog else self.catalog_path

    @property
    def lexical_replica_path(self) -> Path:
        """Where this node's lexical index notes the last catalog change it applied."""
        return self.data_dir / "lexical-replica.json"

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'paperchat.sqlite').resolve()}"


class IngestSettings(BaseModel):
    """What ingest keeps, how long and how much a PDF may take, where arXiv and the mail are."""

    pdf_store: Path | None = Field(
        None,
        description="where ingest keeps a copy of each PDF it reads, by its SHA-256 "
        "(`ab/ab12....pdf`), and the reader finds it: a folder every node can read, for "
        "several nodes; empty: `pdf-store/` in the data dir",
    )
    models_cache: Path | None = Field(
        None,
        description="where derived model files (the int8 ONNX embedder) are cached; empty: "
        "`models/` in the data dir",
    )
    pdf_timeout_s: float = Field(PDF_TIMEOUT_S, description="seconds one PDF may take to parse")
    pdf_max_mb: int = Field(
        PDF_MAX_MB,
        ge=128,
        description="memory (address space) one PDF parser worker may use, in MB; a file "
        "that needs more is skipped with its reason",
    )
    max_record_bytes: int = Field(
        MAX_RECORD_BYTES,
        ge=1024,
        description="a metadata record (one JSON line) over this many bytes is skipped with "
        "its reason",
    )
    arxiv_api_url: str = Field(DEFAULT_API_URL, description="the arXiv export API")
    arxiv_pdf_url: str = Field(DEFAULT_PDF_BASE_URL, description="where PDFs are fetched from")
    arxiv_interval_s: float = Field(
        DEFAULT_INTERVAL_S, description="seconds between two arXiv requests (arXiv asks for 3)"
    )
    smtp_url: SecretStr | None = Field(
        None,
        description="the SMTP server that sends the e-mail digests of alerts, "
        "`smtp://[user:password@]host:port` (`smtps://` for TLS from the start); unset: no "
        "digests. `paperchat harvest` sends the digests that are due after each round",
    )
    smtp_sender: str = Field(
        "paperchat@localhost", description="the From address of the e-mail digests"
    )
    workers: int = Field(1, description="PDF parser processes when `--workers` is not given")
    uploads_dir: Path | None = Field(
        None,
        description="where the PDFs users upload (`POST /api/uploads`) are kept, each with "
        "its own private index: a folder every node can read and write, for several nodes; "
        "empty: `uploads/` in the data dir",
    )
    max_upload_mb: int = Field(
        50, ge=1, description="largest PDF a user may upload, in MB (413 beyond)"
    )
    max_uploads_per_user: int = Field(
        100, ge=0, description="PDFs one user may keep uploaded (409 beyond); 0: no uploads"
    )
    max_upload_mb_per_user: int = Field(
        500,
        ge=1,
        description="what one user's uploaded PDFs may take together, in MB (413 beyond)",
    )
