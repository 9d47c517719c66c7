"""The `paperchat` command: one module per command group (ingest, index, ask, serve, admin,
evaluate, mcp); `main.py` loads each group when it is asked for.
"""
