"""The text repair stage: raw page lines into cleaned blocks per section.

Headings, broken words (hyphens, ligatures) and the cleaning that joins them.
"""
