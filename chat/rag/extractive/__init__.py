"""Extractive answers: the source sentences that best answer a question, quoted.

The answerer, the sentences fit to quote, their scores and the question's terms.
"""
