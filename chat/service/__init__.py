"""The FastAPI service: the app factory, the JSON API's and `/v1`'s routes, who may ask and how
much (access/), its own database (storage/), the pages and the dock (web/) and MCP (mcp/).
"""
