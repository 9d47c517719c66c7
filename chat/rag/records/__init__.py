"""Questions about a paper's record (authors, date, venue, categories, version, an author's papers),
answered from the catalog's record as a source of kind "record"."""
