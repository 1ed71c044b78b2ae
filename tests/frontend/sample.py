"""Spans of :data:`tests.factories.SAMPLE_TEXT` the browser scenarios annotate."""

from tests.factories import SAMPLE_TEXT

NAME = (SAMPLE_TEXT.index("Galip Yalman"), SAMPLE_TEXT.index("Galip Yalman") + len("Galip Yalman"))
ANKARA = (SAMPLE_TEXT.index("Ankara"), SAMPLE_TEXT.index("Ankara") + len("Ankara"))
DATE = (SAMPLE_TEXT.index("12 March 1997"), SAMPLE_TEXT.index("12 March 1997") + 13)
