"""The web dock and the pages around it, a folder per page family; here what they share (templates,
static files, Markdown, the site's address) and the search and paper pages, dock.js and /static."""
