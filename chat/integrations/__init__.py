"""Clients of the HTTP API for other tools (LangChain's retriever).

They import nothing of the server: they speak to it over HTTP as any client would.
"""
