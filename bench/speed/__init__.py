"""Benchmarks of how fast and lean the product is: ingest, serving, the reader, the
embedder's speed, and what a hostile client costs the others."""
