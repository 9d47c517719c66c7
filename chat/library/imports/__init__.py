"""Reference managers' files read as entries (BibTeX, CSL-JSON, RIS) and matched to the
library's papers by arXiv id, DOI or title, to become a collection."""
