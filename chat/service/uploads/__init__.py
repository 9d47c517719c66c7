"""Users' own PDFs: kept in a folder of their own each, read in the background into a
private index, or linked to the library's paper they are."""
