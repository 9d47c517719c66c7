"""The library as a reader browses it: a paper's record, search by paper, authors.

Lookups over the catalog and the retriever, shared by the API, the web pages, MCP and the
command line.
"""
