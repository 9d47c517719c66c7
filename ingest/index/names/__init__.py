"""Who and what the papers name: authors as people, researcher ids, institutions,
references and who cites whom, and the named methods mined from the text."""
