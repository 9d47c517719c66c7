"""Questions asked of a user's own uploads, alone or beside the library: answered by the
same answerer as the library's questions (its model, prompts, relevance and citation
guard), over each upload's own index, opened for the one question and closed after it.

What a question reads (`QuestionScope`): the uploads it names (`upload_ids`, each the
user's own and `ready`: `chat.service.storage.uploads.ready_uploads`, a 404 otherwise,
as for one that does not exist) and those of the collection it is asked within; and the
library, when the question names papers of it (`paper_ids`, `author`, a collection
holding papers, an upload the library holds) or asks for it (`with_library`). Uploads
alone are asked alone, as one always was. An upload the library holds already (its
`library_id`: it keeps no index of its own) is asked as that library paper. Several
indexes are searched each on its own and their passages merged
(`chat.rag.retrieval.combined`); an upload's passages are cited as its paper is,
`[doc:<id>]` (or `[arXiv:<id>]` for an arXiv paper the library does not hold), the
library's as `[arXiv:<id>]`, both in one answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from chat.rag.answer.answering import Answerer
from chat.rag.retrieval.combined.retrievers import CombinedRetriever, Part
from chat.rag.retrieval.retriever import Retriever
from chat.service.routes.deps import Services, chosen_filters
from chat.service.storage.collections import collection_uploads, get_collection, paper_ids
from chat.service.storage.uploads import UploadNotFound, get_upload, ready_uploads
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.file_store import VectorFile
from ingest.uploads import CATALOG_FILE, LEXICAL_FOLDER

# The most uploads one question names.
MAX_ASKED_UPLOADS = 20
# An upload's folder: (user id, upload id) -> `<uploads>/<user>/<upload>/`.
FolderOf = Callable[[str, str], Path]


@dataclass(frozen=True)
class AskedUpload:
    """An upload a question reads: its paper's id in its own index, and its folder."""

    doc_id: str
    folder: Path


@dataclass(frozen=True)
class QuestionScope:
    """What one question reads: the library within `filters` (when `with_library`), and
    `uploads`. Without uploads it is the library's question as it always was."""

    filters: Filters = field(default_factory=Filters)
    uploads: tuple[AskedUpload, ...] = ()
    with_library: bool = True


@dataclass(frozen=True)
class Asked:
    """What a request names, as `/api/chat`, `/v1` and the MCP tools take it."""

    paper_ids: Sequence[str] = ()
    author: str | None = None
    collection_id: str | None = None
    upload_ids: Sequence[str] = ()
    with_library: bool = False

    @property
    def names_library(self) -> bool:
        return bool(self.paper_ids or self.author or self.collection_id)


def library_paper(session: Session, user_id: str, upload_id: str) -> str | None:
    """The library's paper the user's upload `upload_id` is, once read (its `library_id`);
    None for any other upload, or one that is not the user's."""
    try:
        found = get_upload(session, user_id, upload_id)
    except UploadNotFound:
        return None
    return found.library_id if found.status == "ready" else None


def asked_uploads(
    sessions: sessionmaker[Session], folder_of: FolderOf, user_id: str, upload_ids: Sequence[str]
) -> tuple[list[AskedUpload], list[str]]:
    """The user's uploads `upload_ids`, each once: those read into indexes of their own,
    and the library papers of those the library holds; UploadNotFound (a 404) for any
    other user's, or one not ready, in the words a missing one gets."""
    wanted = list(dict.fromkeys(upload_ids))
    with sessions() as session:
        linked = {i: library_paper(session, user_id, i) for i in wanted}
        found = ready_uploads(session, user_id, [i for i in wanted if linked[i] is None])
        uploads = [AskedUpload(u.doc_id or "", folder_of(user_id, u.id)) for u in found]
        papers = [paper for paper in linked.values() if paper is not None]
        return uploads, list(dict.fromkeys(papers))


def collection_contents(
    sessions: sessionmaker[Session], folder_of: FolderOf, user_id: str, collection_id: str
) -> tuple[list[str], list[AskedUpload]]:
    """The papers and the ready uploads of the user's collection; CollectionNotFound (a 404)
    for another user's."""
    with sessions() as session:
        collection = get_collection(session, user_id, collection_id)
        held = paper_ids(session, collection)
        uploads = [
            AskedUpload(u.doc_id, folder_of(user_id, u.id))
            for u in collection_uploads(session, collection)
            if u.status == "ready" and u.doc_id is not None
        ]
        return held, uploads


def question_scope(
    services: Services, folder_of: FolderOf, user_id: str, asked: Asked
) -> QuestionScope:
    """What the question reads: its uploads, and the library within the filters of what it
    names (`chosen_filters`: 404 for an unknown author or another user's collection, 422
    for a collection holding nothing asked)."""
    sessions = services.sessions
    uploads, linked = asked_uploads(sessions, folder_of, user_id, asked.upload_ids)
    library = asked.with_library or asked.names_library or not uploads
    if asked.collection_id is not None and not asked.paper_ids:
        held, kept = collection_contents(sessions, folder_of, user_id, asked.collection_id)
        uploads += [u for u in kept if u not in uploads]
        # A collection of uploads alone is answered from them; an empty one is refused.
        library = library and bool(held or not kept)
    if not library and not linked:
        return QuestionScope(uploads=tuple(uploads), with_library=False)
    filters = Filters()
    if library:
        filters = chosen_filters(
            services, user_id, list(asked.paper_ids), asked.author, asked.collection_id
        )
    named = bool(filters.paper_ids) or not asked.with_library
    if (linked and named) or (uploads and filters.paper_ids):
        # The papers named are the library's (the uploads it holds among them), and the
        # uploads are named too; with the whole library asked, its uploads are in it.
        papers = [*filters.paper_ids, *linked, *(u.doc_id for u in uploads)]
        filters = filters.with_papers(list(dict.fromkeys(papers)))
    return QuestionScope(filters, tuple(uploads), with_library=True)


@contextmanager
def upload_retriever(index: Wiring, folder: Path) -> Iterator[Retriever]:
    """The library's retrieval over the index in the upload's `folder`."""
    catalog = Catalog(folder / CATALOG_FILE)
    try:
        embedder = index.query_embedder
        yield Retriever(
            catalog,
            VectorFile(folder, embedder.name),
            LexicalIndex(folder / LEXICAL_FOLDER),
            embedder,
            index.settings.retrieval,
        )
    finally:
        catalog.close()


@contextmanager
def scope_answerer(index: Wiring, scope: QuestionScope) -> Iterator[Answerer]:
    """The answerer for `scope`: the library's own without uploads; otherwise one over the
    uploads' indexes, and the library's first when it is read too."""
    library = index.answerer
    if not scope.uploads:
        yield library
        return
    with ExitStack() as opened:
        parts = [Part(library.retriever)] if scope.with_library else []
        for upload in scope.uploads:
            retriever = opened.enter_context(upload_retriever(index, upload.folder))
            parts.append(Part(retriever, (upload.doc_id,)))
        yield Answerer(
            parts[0].retriever if len(parts) == 1 else CombinedRetriever(parts),
            library.prompts,
            library.generator,
            library.relevance,
            library.rewriter if scope.with_library else None,
            max_answer_chars=library.max_answer_chars,
            count_tokens=library.count_tokens,
        )
