"""Built-in recognizer components; importing this package registers them."""

from workers.recognizer.components import gazetteer, rules, spacy_ner

__all__ = ["gazetteer", "rules", "spacy_ner"]
