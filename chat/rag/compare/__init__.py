"""Comparison tables across papers: one cell per paper and aspect (task, method, datasets...),
each taken from that paper's own passages and citing the one it comes from.
"""
