"""`/api/uploads`: a signed-in user's own PDFs, read into private indexes only they can
ask; another user's upload is a 404 on every route, as one that does not exist is."""
