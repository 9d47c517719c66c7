"""The web dock and the pages around it: search, paper and author pages, the reader, the API
docs and /llms.txt; their routes, templates and static files, and dock.js."""
