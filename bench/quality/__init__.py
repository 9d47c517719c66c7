"""Benchmarks of what the product answers: retrieval, names, fusion, extractive answers,
definitions, facts, authors, PDF layout and metadata, and the embedder's recall."""
