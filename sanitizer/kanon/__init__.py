"""Distant supervision for text anonymisation (seed 000).

Knowledge base (Wikidata dump or JSONL profiles) → linguistic variants →
roaring-bitmap inverted index → Aho-Corasick gazetteer → Algorithm 1
(k-anonymity masking) → character masks with explanations. Plain Python, no
Django. Main entry points:

* :func:`sanitizer.kanon.kb.read_kb` / ``read_wikidata_dump`` / ``read_jsonl_profiles``
* :func:`sanitizer.kanon.index.build_index`, :class:`sanitizer.kanon.index.InvertedIndex`
* :class:`sanitizer.kanon.gazetteer.Gazetteer`
* :func:`sanitizer.kanon.algorithm.terms_to_mask` (selection functions registered in
  ``selection_functions``)
* :func:`sanitizer.kanon.labelling.label_document`, ``label_documents``, ``label_file``
* :mod:`sanitizer.kanon.synthetic` for synthetic people and biographies
"""
