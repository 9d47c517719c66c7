"""A page's layout: where its words, lines, figures and tables sit, and which lines are prose.

Geometry, page furniture, graphic regions, reading order, asides (captions, footnotes) and the
sorting of lines into kinds.
"""
