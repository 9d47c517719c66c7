"""Benchmarks: each script prints one table and writes its figures to bench/results/*.json;
`python -m bench.report` makes docs/benchmarks.md from those files.
"""
