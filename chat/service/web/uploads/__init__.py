"""A user's own uploaded PDFs in the site: the reader of an upload, for its owner alone."""
