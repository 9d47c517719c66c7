"""The researcher and institution pages (`/researchers/...`, `/authors/...`, `/institutions`),
with a researcher's co-author network drawn as SVG."""
