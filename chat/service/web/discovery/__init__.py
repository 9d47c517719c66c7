"""How machines find and read the site: `/sitemap.xml` and `/robots.txt` for search engines,
`/llms.txt` for language models and agents, and `/docs` for the API."""
