"""Builds the parts from the settings: the one place that makes clients (CLI and app factory)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from chromadb.api import ClientAPI
from openai import AsyncOpenAI, DefaultAioHttpClient

from chat.rag.answer.answering import Answerer
from chat.rag.answer.generators import AnswerGenerator, ModelGenerator
from chat.rag.answer.llm import OpenAIChatModel
from chat.rag.answer.prompts import load_prompts
from chat.rag.answer.rewriting import QueryRewriter
from chat.rag.extractive.answerer import ExtractiveGenerator
from chat.rag.rerank.remote import RemoteReranker, RemoteRerankerConfig
from chat.rag.rerank.reranker import Reranker
from chat.rag.retrieval.coverage import CoverageReranker
from chat.rag.retrieval.retriever import Retriever
from chat.rag.watching import Watcher
from chat.settings import Settings
from ingest.embedders.base import Embedder
from ingest.embedders.openai_embedder import Prefixes, Role
from ingest.embedders.registry import build_embedder
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex, ensure_complete
from ingest.index.lexical.replica import LexicalReplica
from ingest.index.name_catalog import NameCatalog
from ingest.index.vectors.store import ChunkStore, open_chroma
from ingest.index.writer import Indexer

QUERY_EMBEDDER_THREADS = 1


@dataclass
class Wiring:
    """The composition root: the catalog, the stores, the embedders, the retriever and the
    answerer, each built from the settings when first asked for."""

    settings: Settings
    _closers: list[Catalog] = field(default_factory=list)

    @cached_property
    def catalog(self) -> Catalog:
        return self.open_catalog()

    def open_catalog(self) -> Catalog:
        """A new connection to the catalog, for a thread of its own."""
        catalog = Catalog(self.settings.catalog_location)
        self._closers.append(catalog)
        return catalog

    @cached_property
    def embedder(self) -> Embedder:
        """The embedder for documents (ingest): every core on batches of long texts."""
        return self._build_embedder(threads=None, role="document")

    @cached_property
    def query_embedder(self) -> Embedder:
        """The same model for questions, which come one short text at a time.

        One onnxruntime thread embeds a question for half the CPU of two, and
        sooner (3.5 against 7.5 ms of CPU, 5 against 10 ms here: the second
        thread mostly spins waiting); concurrent questions run side by side.
        """
        onnx = self.settings.embedder_backend != "torch"  # torch's thread count is global
        return self._build_embedder(threads=QUERY_EMBEDDER_THREADS if onnx else None, role="query")

    def _build_embedder(self, threads: int | None, role: Role) -> Embedder:
        settings = self.settings
        embedder: str = settings.embedder_backend
        client = None
        if settings.embeddings == "openai":
            from openai import OpenAI

            embedder = "openai"
            key, base_url = settings.embeddings_endpoint()
            client = OpenAI(api_key=key, base_url=base_url)
        return build_embedder(
            embedder,
            cache_dir=settings.models_dir,
            openai_model=settings.embeddings_model,
            openai_client=client,
            threads=threads,
            prefixes=Prefixes(
                settings.embeddings_query_prefix, settings.embeddings_document_prefix
            ),
            role=role,
            concurrency=settings.embeddings_concurrency,
            batch_size=settings.embeddings_batch,
            model=settings.embedder_model,
        )

    @cached_property
    def store(self) -> ChunkStore:
        """The Chroma collection, checked against the embedder that writes or queries it."""
        return ChunkStore(self._chroma, self.embedder.name)

    @cached_property
    def unchecked_store(self) -> ChunkStore:
        """The collection without loading the embedder: for deleting and counting."""
        return ChunkStore(self._chroma, None)

    @cached_property
    def _chroma(self) -> ClientAPI:
        return open_chroma(self.settings.chroma_path, self.settings.chroma_url)

    @cached_property
    def indexer(self) -> Indexer:
        # A shared catalog's lexical indexes are the serving nodes' replicas, not the ingest's.
        lexical = None if self.settings.shared_catalog else self.lexical
        return Indexer(self.open_catalog(), self.store, lexical)

    @cached_property
    def replica(self) -> LexicalReplica:
        """This node's lexical index as a replica of the shared catalog's change log."""
        # The catalog's transactions belong to the thread that opens them: one is shared.
        return LexicalReplica(self.catalog, self.lexical, self.settings.lexical_replica_path)

    @cached_property
    def lexical(self) -> LexicalIndex:
        return LexicalIndex(self.settings.lexical_path)

    @cached_property
    def retriever(self) -> Retriever:
        """Retrieval with the query embedder, on the collection checked against it; an
        index made before names were mined gets them here, from the catalog alone."""
        if self.settings.shared_catalog:
            self.replica.catch_up()
        else:
            ensure_complete(self.lexical, self.catalog)
        names = NameCatalog(self.catalog)
        names.backfill()
        store = ChunkStore(self._chroma, self.query_embedder.name)
        config = self.settings.retrieval
        rerankers: tuple[Reranker, ...] | None = None
        if self.remote_reranker is not None:
            rerankers = (CoverageReranker(config.coverage), self.remote_reranker)
        return Retriever(
            self.catalog, store, self.lexical, self.query_embedder, config, rerankers, names
        )

    @cached_property
    def watcher(self) -> Watcher:
        """Saved questions asked again for what new papers bring (`chat/rag/watching.py`)."""
        return Watcher(self.retriever, self.settings.relevance, self.settings.uploads_path)

    @cached_property
    def remote_reranker(self) -> RemoteReranker | None:
        """The reranking model's server (`PAPERCHAT_RERANKER_URL`), after the coverage look."""
        settings = self.settings
        if not settings.reranker_url:
            return None
        key = settings.reranker_key.get_secret_value() if settings.reranker_key else ""
        return RemoteReranker(
            RemoteRerankerConfig(
                settings.reranker_url,
                settings.reranker_api,
                settings.reranker_model,
                key,
                settings.rerank_depth,
                settings.reranker_timeout_s,
            )
        )

    @cached_property
    def answerer(self) -> Answerer:
        """The chat model's answers (with query rewriting, if asked for) when one is
        configured, else extractive ones."""
        settings = self.settings
        prompts = load_prompts()
        count_tokens = self.query_embedder.count_tokens
        generator: AnswerGenerator = ExtractiveGenerator(count_tokens)
        rewriter = None
        if settings.llm == "openai":
            key, base_url = settings.openai_endpoint()
            client = AsyncOpenAI(api_key=key, base_url=base_url, max_retries=0)
            model = OpenAIChatModel(
                client,
                settings.llm_model,
                max_tokens=settings.max_answer_tokens,
                http_client=DefaultAioHttpClient,
            )
            rewriter = QueryRewriter.build(model, settings.query_rewrite, settings.query_rewrites)
            generator = ModelGenerator(
                model,
                prompts,
                settings.llm_model,
                settings.history_messages,
                settings.history_tokens,
            )
        return Answerer(
            self.retriever,
            prompts,
            generator,
            settings.relevance,
            rewriter,
            max_answer_chars=settings.max_answer_chars,
            count_tokens=count_tokens,
        )

    def close(self) -> None:
        if "remote_reranker" in self.__dict__ and self.remote_reranker is not None:
            self.remote_reranker.close()
        for catalog in self._closers:
            catalog.close()
        self._closers.clear()
