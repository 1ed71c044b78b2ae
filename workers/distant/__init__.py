"""Distant supervision for text anonymisation (seed 000).

Knowledge base (Wikidata dump or JSONL profiles) → linguistic variants →
roaring-bitmap inverted index → Aho-Corasick gazetteer → Algorithm 1
(k-anonymity masking) → character masks with explanations. Plain Python, no
Django. Main entry points:

* :func:`workers.distant.kb.read_kb` / ``read_wikidata_dump`` / ``read_jsonl_profiles``
* :func:`workers.distant.index.build_index`, :class:`workers.distant.index.InvertedIndex`
* :class:`workers.distant.gazetteer.Gazetteer`
* :func:`workers.distant.algorithm.terms_to_mask` (selection functions registered in
  ``selection_functions``)
* :func:`workers.distant.labelling.label_document`, ``label_documents``, ``label_file``
* :mod:`workers.distant.synthetic` for synthetic people and biographies
"""
