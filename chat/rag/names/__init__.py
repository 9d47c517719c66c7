"""Named methods and acronyms in a question, recognised against the index's catalog of names.

Recognition and the boost it gives (`recognition`), what one match is (`matches`), its
settings (`config`), how the papers print a word (`printing`), and questions that ask what
a name means (`definitions`).
"""
