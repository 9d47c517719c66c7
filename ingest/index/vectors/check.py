"""Is the vector store whole? `paperchat index check`, and `paperchat serve` before it serves.

The store is checked against the catalog, which holds every chunk's text: the counts, a
random sample of the catalog's chunks (present, with a finite vector of the collection's
size, under the right paper) and a nearest-neighbour search for some of those vectors,
which must find a vector as close as the chunk's own. An embedded store's files are
looked at first: an HNSW file that claims far more bytes than it holds is the mark of
two processes having written the directory. When this process opens the embedded store
itself the look happens in a child process, so that a store that crashes whoever opens
it is reported instead of taking the command down.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ingest.index.vectors.server import describe_exit

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from chromadb.api import ClientAPI

    from ingest.index.catalog import Catalog

SAMPLE = 200
SEARCHED = 20
# A file larger than this whose blocks hold under 1/SPARSE_RATIO of its length is damage.
SPARSE_MIN_BYTES = 1 << 30
SPARSE_RATIO = 64
PROBE_TIMEOUT_S = 600.0
Severity = Literal["damaged", "incomplete"]


@dataclass(frozen=True)
class Finding:
    severity: Severity  # damaged: unusable, rebuild it; incomplete: chunks lack vectors
    text: str


@dataclass
class Probe:
    """What the store answered: its count, the sampled chunks it holds, the searches."""

    count: int = 0
    found: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> paper_id, ok
    nearest: list[float] = field(default_factory=list)  # best similarity of each search
    error: str = ""
    no_collection: bool = False


@dataclass
class Report:
    vectors: int | None  # None: the store could not be read
    chunks: int
    sampled: int
    findings: list[Finding]

    @property
    def damaged(self) -> bool:
        return any(f.severity == "damaged" for f in self.findings)

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": not self.findings,
            "damaged": self.damaged,
            "vectors": self.vectors,
            "chunks": self.chunks,
            "sampled": self.sampled,
            "findings": [{"severity": f.severity, "text": f.text} for f in self.findings],
        }


def check_files(path: Path) -> list[Finding]:
    """Files of an embedded store that claim far more than they hold."""
    findings = []
    for file in sorted(path.rglob("*")) if path.is_dir() else []:
        try:
            stat = file.stat()
        except OSError:
            continue
        if not file.is_file() or stat.st_size < SPARSE_MIN_BYTES:
            continue
        if stat.st_blocks * 512 * SPARSE_RATIO < stat.st_size:
            text = f"{file.relative_to(path)} claims {stat.st_size:,} bytes but holds"
            text += f" {stat.st_blocks * 512:,}: two processes wrote the graph at once"
            findings.append(Finding("damaged", text))
    return findings


def probe(client: ClientAPI, ids: list[str], searched: int = SEARCHED) -> Probe:
    """Ask the store for its count, the sampled `ids` and searches by the first vectors."""
    from ingest.index.vectors.store import COLLECTION

    result = Probe()
    if COLLECTION not in {c.name for c in client.list_collections()}:
        result.no_collection = True
        return result
    collection = client.get_collection(COLLECTION, embedding_function=None)
    result.count = int(collection.count())
    if not ids:
        return result
    got = collection.get(ids=ids, include=["embeddings", "metadatas"])
    vectors = got["embeddings"] if got["embeddings"] is not None else []
    metadatas = got["metadatas"] or []
    usable = []
    for chunk_id, vector, metadata in zip(got["ids"], vectors, metadatas, strict=False):
        values = np.asarray(vector, dtype=np.float32)
        ok = bool(values.size) and bool(np.isfinite(values).all()) and bool(values.any())
        paper_id = (metadata or {}).get("paper_id")
        result.found[chunk_id] = {"paper_id": paper_id, "ok": ok, "dims": int(values.size)}
        if ok:
            usable.append(values)
    if usable:
        queries = np.stack(usable[:searched])
        answer = collection.query(query_embeddings=queries, n_results=1, include=["distances"])
        result.nearest = [1.0 - float(d[0]) if d else -1.0 for d in answer["distances"] or []]
    return result


def judge(probed: Probe, chunks: int, sample: dict[str, str]) -> list[Finding]:
    """Findings from what the store answered against the catalog's `chunks` and the
    sampled chunk ids with their papers."""
    if probed.error:
        return [Finding("damaged", probed.error)]
    if probed.no_collection:
        text = f"the vector store has no collection for the catalog's {chunks:,} chunks"
        return [Finding("damaged", text)] if chunks else []
    findings = []
    missing = [i for i in sample if i not in probed.found]
    broken = [i for i, got in probed.found.items() if not got["ok"]]
    misplaced = [i for i, got in probed.found.items() if got["paper_id"] != sample.get(i)]
    sizes = {got["dims"] for got in probed.found.values() if got["ok"]}
    lost = [s for s in probed.nearest if s < 0.98]
    if broken or len(sizes) > 1:
        text = f"{len(broken)} of {len(sample)} sampled vectors are unusable"
        findings.append(Finding("damaged", f"{text}; sizes seen: {sorted(sizes)}"))
    if misplaced:
        text = f"{len(misplaced)} sampled chunks are filed under another paper"
        findings.append(Finding("damaged", f"{text} (e.g. {misplaced[0]})"))
    if lost:
        text = f"{len(lost)} of {len(probed.nearest)} searches by a stored vector missed it"
        findings.append(Finding("damaged", f"{text}: the search graph is broken"))
    if missing:
        severity: Severity = "damaged" if len(missing) > len(sample) / 2 else "incomplete"
        text = f"{len(missing)} of {len(sample)} sampled chunks have no vector"
        findings.append(Finding(severity, f"{text} (e.g. {missing[0]})"))
    if probed.count < chunks and not missing:
        text = f"{chunks - probed.count:,} of the catalog's {chunks:,} chunks have no vector"
        findings.append(Finding("incomplete", text))
    return findings


def check(client: ClientAPI | None, catalog: Catalog, path: Path | None = None) -> Report:
    """Check the store: through `client`, or, with `client` None, the embedded store in
    `path` opened by a child process (the caller holds the directory)."""
    sample = catalog.sample_chunks(SAMPLE)
    chunks = catalog.chunk_count()
    findings = check_files(path) if path is not None else []
    if client is not None:
        try:
            probed = probe(client, list(sample))
        except Exception as e:  # noqa: BLE001 - any failure of the store is the finding
            probed = Probe(error=f"the vector store did not answer: {type(e).__name__}: {e}")
    elif path is not None and not path.exists():
        probed = Probe(error=f"there is no vector store at {str(path)!r}")
    else:
        probed = probe_in_child(path or Path(), list(sample))
    vectors = None if probed.error else probed.count
    return Report(vectors, chunks, len(sample), findings + judge(probed, chunks, sample))


def probe_in_child(path: Path, ids: list[str]) -> Probe:
    """`probe` of the embedded store in `path`, run by a child process."""
    context = multiprocessing.get_context("spawn")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_probe_child, args=(str(path), ids, sending), daemon=True)
    child.start()
    sending.close()
    result = None
    try:
        if receiving.poll(PROBE_TIMEOUT_S):
            result = receiving.recv()
    except EOFError:  # the child died before it answered
        result = None
    receiving.close()
    child.join(timeout=30)
    if child.is_alive():
        child.kill()
        child.join()
    if isinstance(result, Probe):
        return result
    how = describe_exit(child.exitcode)
    return Probe(error=f"opening the vector store crashed its process ({how})")


def _probe_child(path: str, ids: list[str], answer: Connection) -> None:
    """In the child: open the embedded store and send back `probe`'s answer."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    try:
        client = chromadb.PersistentClient(path, ChromaSettings(anonymized_telemetry=False))
        answer.send(probe(client, ids))
    except Exception as e:  # noqa: BLE001 - a child's boundary: its failure is the answer
        answer.send(Probe(error=f"the vector store cannot be read: {type(e).__name__}: {e}"))
