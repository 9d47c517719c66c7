"""The web dock: the search and paper pages, their templates and static files, and dock.js."""
