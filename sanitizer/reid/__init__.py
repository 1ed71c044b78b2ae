"""Re-identification (seed 004): models that rank the true person, greedy de-identification.

* :mod:`sanitizer.reid.base`: the model protocol, the ``reid_models`` registry, ``rank_of``;
* :mod:`sanitizer.reid.profiles`: profiles as ``key || value`` rows;
* :mod:`sanitizer.reid.words`: words, masks, share masked, information loss;
* :mod:`sanitizer.reid.models`: the registered models (``bm25``, ``tfidf-char``, ``dense``);
* :mod:`sanitizer.reid.greedy`: Algorithm 1, mask until the target leaves every top K;
* :mod:`sanitizer.reid.evaluate` / :mod:`sanitizer.reid.curve`: the ensemble
  re-identification rate and the privacy/utility curve.
"""
