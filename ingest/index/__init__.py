"""The index: written by ingest, read by chat, its schema defined here once.

The catalog (papers, chunks, authors, names; SQLite, with numbered migrations), the Chroma
vector store, the tantivy BM25 index, and the writer that keeps the three in step.
"""
