"""Retrieval over several indexes at once: the library's and users' uploads' each searched
alone, their passages merged into one ranking (`retrievers`)."""
