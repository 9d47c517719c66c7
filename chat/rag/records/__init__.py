"""Questions about a paper's record (authors, date, venue, categories, version, an author's papers,
whom it cites and who cites it), answered from the catalog as sources of kind "record"."""
