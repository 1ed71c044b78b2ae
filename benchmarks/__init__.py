"""Benchmark scripts: each prints its figures (run them as files, e.g. `python benchmarks/solver.py`)."""
