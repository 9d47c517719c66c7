"""Retrieval: a question in, the passages an answer is grounded in.

Dense and lexical candidates (`retriever`), their fusion, the second looks (coverage, names,
leading definitions), pseudo-relevance feedback, the refusal policy and the evaluation over gold
questions.
"""
