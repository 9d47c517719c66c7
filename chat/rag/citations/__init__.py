"""Citations in a streamed answer: checked against the sources, normalised, kept whole.

The guard, references written outside brackets, and the look-alike characters both judge by.
"""
