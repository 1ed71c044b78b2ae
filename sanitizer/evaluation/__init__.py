"""Evaluation of anonymization output: TAB metrics, SemEval-2013 entity scores and
per-category token scores. Plain Python (no Django): JSON-like dicts in, dataclasses out.

Main entry points:

* :func:`evaluate_tab` / :func:`evaluate_files`: TAB's entity/mention/token
  recall, uniform and weighted token precision and F1 for system masks.
* :func:`semeval_scores`: SemEval-2013 task 9 strict/exact/partial/type P/R/F1.
* :func:`token_scores_by_type`: token-level P/R/F1 per semantic category.
* :data:`token_weightings`: registry of token weighting schemes for weighted precision.
"""

from sanitizer.evaluation.semeval import SCHEMES, SchemeScore, SemEvalResult, semeval_scores
from sanitizer.evaluation.spans import (
    DEFAULT_IGNORABLE,
    TAB_IGNORED_PUNCTUATION,
    TAB_IGNORED_WORDS,
    IgnorableText,
    LabeledSpan,
    is_span_masked,
    to_labeled_span,
    word_tokens,
)
from sanitizer.evaluation.tab import (
    GoldDocument,
    GoldEntity,
    GoldMention,
    TabCounts,
    TabMetrics,
    evaluate_files,
    evaluate_tab,
    load_gold,
    parse_masks,
)
from sanitizer.evaluation.token_metrics import (
    PRF,
    TAB_INTERCHANGEABLE,
    TokenScores,
    gold_spans_from_tab,
    token_labels,
    token_scores_by_type,
)
from sanitizer.evaluation.weighting import (
    DEFAULT_WEIGHTING,
    MaskedLMWeighting,
    TokenWeighting,
    UniformWeighting,
    UnigramWeighting,
    make_weighting,
    token_weightings,
)

__all__ = [
    "DEFAULT_IGNORABLE",
    "DEFAULT_WEIGHTING",
    "PRF",
    "SCHEMES",
    "TAB_IGNORED_PUNCTUATION",
    "TAB_IGNORED_WORDS",
    "TAB_INTERCHANGEABLE",
    "GoldDocument",
    "GoldEntity",
    "GoldMention",
    "IgnorableText",
    "LabeledSpan",
    "MaskedLMWeighting",
    "SchemeScore",
    "SemEvalResult",
    "TabCounts",
    "TabMetrics",
    "TokenScores",
    "TokenWeighting",
    "UniformWeighting",
    "UnigramWeighting",
    "evaluate_files",
    "evaluate_tab",
    "gold_spans_from_tab",
    "is_span_masked",
    "load_gold",
    "make_weighting",
    "parse_masks",
    "semeval_scores",
    "to_labeled_span",
    "token_labels",
    "token_scores_by_type",
    "token_weightings",
    "word_tokens",
]
