"""Embedders behind one protocol (`base.Embedder`): the local MiniLM as int8 or fp32 ONNX, or
torch, and an OpenAI-compatible embeddings server; `registry.py` picks one by name.
"""
