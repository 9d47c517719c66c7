"""The routes of collections: a signed-in user's named sets of papers, their files (BibTeX,
CSV, Markdown) and the read-only links that share them."""
