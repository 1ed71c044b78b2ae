"""Benchmark scripts: each prints its figures (run as files: `python benchmarks/solver.py`)."""
