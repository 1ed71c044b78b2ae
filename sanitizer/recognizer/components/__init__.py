"""Built-in recognizer components; importing this package registers them."""

from sanitizer.recognizer.components import gazetteer, proper_nouns, rules, spacy_ner

__all__ = ["gazetteer", "proper_nouns", "rules", "spacy_ner"]
