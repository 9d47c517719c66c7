"""The Princeton WordNet database read from its own files (`index.*`, `data.*`, `*.exc`):
the words a plain English word can stand for, for widening a BM25 query."""
