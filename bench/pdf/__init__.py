"""Benchmarks of the PDF reading: the page layout (rule-based and learned), the metadata read
from page 1, and the references read and resolved."""
