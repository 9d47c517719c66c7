"""The chat side: answers from the index, served over HTTP, MCP and the command line.

rag/ answers, library/ browses, service/ serves, cli/ commands; settings.py is the one settings
tree and wiring.py the one place that builds clients from it.
"""
