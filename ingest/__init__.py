"""The ingest side: sources -> pdf -> chunk -> embed -> index, driven by `pipeline.py`.

It never imports chat and reads no settings: the command line hands it what it needs.
"""
