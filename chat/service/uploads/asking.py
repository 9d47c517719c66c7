"""Questions asked of a user's own upload: answered by the same answerer as the library's
questions (its model, prompts, relevance and citation guard), over the upload's own index
alone, opened for the one question and closed after it.

Only the owner reaches it (`chat.service.storage.uploads.ready_uploads`); its passages are
cited as its paper is, `[doc:<id>]` (or `[arXiv:<id>]` for an arXiv paper the library
does not hold).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from chat.rag.answer.answering import Answerer
from chat.rag.retrieval.retriever import Retriever
from chat.service.storage.uploads import ready_uploads
from chat.service.uploads.reading import UploadReader
from chat.wiring import Wiring
from ingest.index.catalog import Catalog
from ingest.index.lexical.bm25 import LexicalIndex
from ingest.index.vectors.file_store import VectorFile
from ingest.uploads import CATALOG_FILE, LEXICAL_FOLDER


@contextmanager
def upload_answerer(index: Wiring, folder: Path) -> Iterator[Answerer]:
    """The library's answerer, retrieving from the index in the upload's `folder`."""
    library = index.answerer
    catalog = Catalog(folder / CATALOG_FILE)
    try:
        embedder = index.query_embedder
        retriever = Retriever(
            catalog,
            VectorFile(folder, embedder.name),
            LexicalIndex(folder / LEXICAL_FOLDER),
            embedder,
            index.settings.retrieval,
        )
        yield Answerer(
            retriever,
            library.prompts,
            library.generator,
            library.relevance,
            max_answer_chars=library.max_answer_chars,
            count_tokens=library.count_tokens,
        )
    finally:
        catalog.close()


def upload_folder(
    sessions: sessionmaker[Session], reader: UploadReader, user_id: str, upload_id: str
) -> Path:
    """The folder of the user's upload, read into its own index; UploadNotFound (a 404)
    for another user's, or one not ready."""
    with sessions() as session:
        [upload] = ready_uploads(session, user_id, [upload_id])
        return reader.folder(user_id, upload.id)
