"""Named methods and acronyms in a question, recognised against the index's catalog of names.

Recognition and steering (`recognition`), how the papers print a word (`printing`), and
questions that ask what a name means (`definitions`).
"""
