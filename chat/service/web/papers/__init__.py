"""A paper page's parts beyond its route: the tags it tells machines in its head, and the
reader: the PDF's pages as images and text layers, and where a cited passage lies in them."""
