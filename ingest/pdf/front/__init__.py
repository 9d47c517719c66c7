"""Page 1: the paper's header (title, authors, abstract, date), front matter kept out of the body.

Read from the glyphs of page 1, their boxes and rendered sizes.
"""
