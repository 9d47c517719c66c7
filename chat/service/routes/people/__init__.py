"""The routes of the people behind the papers: an author's papers by name, researcher profiles
by their stable ids, and institutions read from the papers' affiliations."""
