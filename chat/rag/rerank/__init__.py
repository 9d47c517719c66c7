"""Rerankers: optional last looks at the fused candidates.

The `Reranker` protocol and its passages (`reranker`), and a reranking model behind an HTTP
server (`remote`).
"""
