"""The MCP server: the tools paperchat offers agents (`tools.py`) and the `/mcp` endpoint that
serves them over streamable HTTP beside the API, with the same sign-in (`endpoint.py`).
"""
