"""Answering: a question in, a stream of events out.

The answerer, what makes the text (the chat model or quotes), the prompts, query rewriting, the
sampling a caller may ask for and the events streamed.
"""
