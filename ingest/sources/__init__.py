"""Where papers come from: arXiv metadata files (one JSON record a line), the arXiv API and
its feed, and the units of work (a record, a PDF) that the pipeline ingests.
"""
