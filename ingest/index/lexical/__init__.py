"""The lexical index: text analysis (terms, stems) and BM25 over the chunks in tantivy,
kept as a replica of a shared catalog on each node."""
