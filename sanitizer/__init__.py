"""The sanitizer library: plain Python, no Django.

Text and arrays in, dataclasses out. It holds the shared types and registries,
the file formats, the privacy-enhanced recognizer, k-anonymity distant labelling
(``kanon``), model training, evaluation and agreement, and the small shared
modules each written once: ``metrics`` (P/R/F1), ``intervals`` (interval
operations) and ``textmatch`` (the Aho-Corasick phrase matcher). The Django apps and the
Celery workers call into it; it never imports them (an import-linter contract
checks this).
"""
