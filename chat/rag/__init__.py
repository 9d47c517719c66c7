"""The answering core: question -> retrieval -> an answer streamed as events, citing its sources.

One folder per concept: retrieval, rerank, names, extractive, citations, answer; the
shared passage type (`sources`) and how its settings describe and bound themselves
(`bounds`) beside them.
"""
