"""The lexical side of the index: BM25 over the chunks' stemmed terms, in tantivy.

It lives in the data dir beside Chroma and the catalog and holds the same
chunk ids. Ingest updates it unit by unit (a paper's abstract or full text);
the catalog stays the record of what it should hold, so a missing or
half-written lexical index is rebuilt from the catalog, never per query.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import tantivy
from rapidfuzz.distance import OSA

from ingest.errors import PaperchatError
from ingest.index.catalog import Catalog
from ingest.index.filters import Filters, date_number
from ingest.index.lexical.analysis import terms
from ingest.index.records import Chunk
from ingest.index.tables.chunks import Unit, unit_of
from ingest.private import private_dir

Hit = tuple[str, str, float]  # (chunk id, paper id, BM25 score: higher is better)
_WRITER_HEAP = 64_000_000
# How long a write waits for another process's commit to the index before it gives up.
WRITER_WAIT_S = 600.0


class LexicalIndexError(PaperchatError):
    """The lexical index cannot be opened or written."""


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("paper_id", stored=True, tokenizer_name="raw")
    builder.add_text_field("unit", tokenizer_name="raw")
    builder.add_text_field("category", tokenizer_name="raw")
    builder.add_integer_field("published", indexed=True, fast=True)
    builder.add_text_field("terms", tokenizer_name="default")
    return builder.build()


def lexical_text(chunk: Chunk) -> str:
    """What BM25 reads for a chunk: full-text chunks get their paper's title and section."""
    if chunk.kind == "abstract":
        return chunk.text
    return f"{chunk.paper.title}\n{chunk.section}\n{chunk.text}"


def inverse_document_frequency(frequency: int, documents: int) -> float:
    """How rare a term is: high for a term in few of the index's `documents` chunks."""
    return math.log(1 + documents / (1 + frequency))


def unit_key(unit: Unit) -> str:
    return f"{unit[0]}\x1f{unit[1]}"


def _document(chunk: Chunk) -> tantivy.Document:
    paper = chunk.paper
    return tantivy.Document(
        chunk_id=chunk.id,
        paper_id=chunk.paper_id,
        unit=unit_key((chunk.paper_id, unit_of(chunk.kind))),
        category=list(paper.categories),
        published=date_number(paper.published),
        terms=" ".join(terms(lexical_text(chunk))),
    )


class LexicalIndex:
    def __init__(self, path: Path) -> None:
        self.schema = _schema()
        try:
            private_dir(path)
            self.index = tantivy.Index(self.schema, path=str(path), reuse=True)
        except (OSError, ValueError) as e:
            raise LexicalIndexError(f"cannot open the lexical index {str(path)!r}: {e}") from e
        self._path = path

    @contextmanager
    def _writing(self) -> Iterator[tantivy.IndexWriter]:
        """tantivy's one writer of the index, held for one commit: an ingest and a server
        beside it (or two ingests) take turns instead of the second failing. Waits up to
        `WRITER_WAIT_S` for another process's commit."""
        deadline = time.monotonic() + WRITER_WAIT_S
        while True:
            try:
                writer = self.index.writer(heap_size=_WRITER_HEAP, num_threads=1)
                break
            except ValueError as e:
                if "LockBusy" not in str(e) or time.monotonic() > deadline:
                    raise LexicalIndexError(
                        f"cannot write the lexical index {str(self._path)!r}: another process "
                        f"held it for over {WRITER_WAIT_S:.0f}s ({e})"
                    ) from e
                time.sleep(0.05)
        try:
            yield writer
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        finally:
            writer.wait_merging_threads()  # lets go of the index's lock

    def replace_units(self, units: Iterable[Unit], chunks: Sequence[Chunk]) -> None:
        """Drop every chunk of `units`, add `chunks`, and commit."""
        with self._writing() as writer:
            for unit in units:
                writer.delete_documents_by_term("unit", unit_key(unit))
            for chunk in chunks:
                writer.add_document(_document(chunk))

    def clear(self) -> None:
        with self._writing() as writer:
            writer.delete_all_documents()

    def count(self) -> int:
        self.index.reload()
        return int(self.index.searcher().num_docs)

    def chunk_ids(self) -> set[str]:
        """Every chunk id the index holds (for checks; reads the whole index)."""
        self.index.reload()
        searcher = self.index.searcher()
        total = max(int(searcher.num_docs), 1)
        result = searcher.search(tantivy.Query.all_query(), total, count=False)
        return {searcher.doc(address)["chunk_id"][0] for _, address in result.hits}

    def search(
        self,
        query: str,
        limit: int = 50,
        filters: Filters | None = None,
        *,
        fix_typos: bool = True,
        extra: Sequence[tuple[str, float]] = (),
    ) -> list[Hit]:
        """The best chunks for `query`, within the papers, categories and dates of `filters`.

        With `fix_typos`, a query term the index (nearly) lacks also matches the
        common index term one or two edits away ("transfromer" -> "transformer").
        `extra` adds index terms (stems) with weights of their own. An author must have
        been resolved to paper ids (`Filters.within`).
        """
        words = list(dict.fromkeys(terms(query)))
        if not words and not extra:
            return []
        self.index.reload()
        searcher = self.index.searcher()
        if fix_typos:
            words += [w for w in corrections(searcher, words) if w not in words]
        weighted = [(w, 1.0) for w in words] + [(w, b) for w, b in extra if w not in words]
        should = [
            (tantivy.Occur.Should, self._term(term, boost)) for term, boost in weighted if boost > 0
        ]
        clauses = [(tantivy.Occur.Must, tantivy.Query.boolean_query(should))]
        clauses.extend(self._filters(filters or Filters()))
        result = searcher.search(tantivy.Query.boolean_query(clauses), limit, count=False)
        hits = []
        for score, address in result.hits:
            document = searcher.doc(address)
            hits.append((document["chunk_id"][0], document["paper_id"][0], float(score)))
        return hits

    def _term(self, term: str, boost: float) -> tantivy.Query:
        query = tantivy.Query.term_query(self.schema, "terms", term)
        return query if boost == 1.0 else tantivy.Query.boost_query(query, boost)

    def document_frequencies(self, stems: Sequence[str]) -> dict[str, int]:
        """How many chunks hold each stem."""
        self.index.reload()
        searcher = self.index.searcher()
        return {stem: int(searcher.doc_freq("terms", stem)) for stem in stems}

    def _filters(self, filters: Filters) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        filters.check_resolved()
        clauses = []
        if filters.searched_papers:
            papers = list(filters.searched_papers)
            query = tantivy.Query.term_set_query(self.schema, "paper_id", papers)
            clauses.append((tantivy.Occur.Must, query))
        if filters.categories:
            query = tantivy.Query.term_set_query(self.schema, "category", list(filters.categories))
            clauses.append((tantivy.Occur.Must, query))
        low, high = filters.published_range
        if low is not None or high is not None:
            integer = tantivy.FieldType.Integer
            dated = tantivy.Query.range_query(self.schema, "published", integer, low, high)
            # A paper of unknown date (0) is kept: nothing says it is outside the range.
            unknown = tantivy.Query.range_query(self.schema, "published", integer, 0, 0)
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, dated), (tantivy.Occur.Should, unknown)]
            )
            clauses.append((tantivy.Occur.Must, query))
        return clauses


# A term in fewer chunks than this may be a typo; a correction must be far more common.
_RARE_TERM = 3
_MORE_COMMON = 20
_PREFIX = 2
_CANDIDATES = 3000


def corrections(searcher: tantivy.Searcher, words: Sequence[str]) -> list[str]:
    """For each rare query term, the most common index term within a small edit distance."""
    fixed = []
    for word in words:
        if len(word) < 4 or word.isdigit():
            continue
        frequency = searcher.doc_freq("terms", word)
        if frequency >= _RARE_TERM:
            continue
        allowed = 1 if len(word) < 7 else 2
        candidates = searcher.terms_with_prefix("terms", word[:_PREFIX], limit=_CANDIDATES)
        best = [
            (count, term)
            for term, count in candidates
            if count >= _MORE_COMMON * max(frequency, 1)
            and abs(len(term) - len(word)) <= allowed
            and OSA.distance(term, word, score_cutoff=allowed) <= allowed
        ]
        if best:
            fixed.append(max(best)[1])
    return fixed


def rebuild_units(lexical: LexicalIndex, catalog: Catalog, units: Sequence[Unit]) -> int:
    """Make the lexical index hold exactly the catalog's chunks of `units`."""
    chunks = [c for unit in units for c in catalog.unit_chunks(*unit)]
    lexical.replace_units(units, chunks)
    return len(chunks)


def ensure_complete(lexical: LexicalIndex, catalog: Catalog) -> bool:
    """Rebuild the lexical index from the catalog when it is missing chunks (an index
    made before the lexical index existed, or lost). Returns whether it rebuilt; an
    ingest running elsewhere holds the writer, and then nothing is done."""
    if catalog.pending_units() or lexical.count() == catalog.chunk_count():
        return False
    try:
        rebuild_all(lexical, catalog)
    except LexicalIndexError:
        return False
    return True


def rebuild_all(lexical: LexicalIndex, catalog: Catalog, batch: int = 2000) -> int:
    """Rebuild the whole lexical index from the catalog (a missing or stale index)."""
    writer_units = catalog.all_units()
    lexical.clear()
    added = 0
    for start in range(0, len(writer_units), batch):
        added += rebuild_units(lexical, catalog, writer_units[start : start + batch])
    return added
