"""The ensemble re-identification rate and its utility measures (seed 004 §6, Table 2).

A masked document is *re-identified* when at least one model of the ensemble ranks its
true person first. Utility is the share of words masked and the information loss
(relative loss of compressed size). :class:`CurvePoint` is one method's row of the curve.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sanitizer.reid.base import ReidDocument, ReidModel, Span, rank_of
from sanitizer.reid.words import information_loss, share_masked

BATCH = 64

Ranks = dict[str, dict[str, int]]
"""``{model name: {doc id: rank of the true person}}``."""


def ensemble_ranks(
    models: Sequence[ReidModel],
    docs: Sequence[ReidDocument],
    masks_by_doc: Mapping[str, Sequence[Span]],
) -> Ranks:
    """Each model's rank of each document's target (documents without masks: unmasked).

    A target missing from a model's profiles raises ``ValueError``.
    """
    out: Ranks = {}
    for model in models:
        index = {pid: i for i, pid in enumerate(model.profile_ids)}
        missing = [d.target for d in docs if d.target not in index]
        if missing:
            raise ValueError(f"targets not among the {model.name} profiles: {missing[:5]}")
        ranks: dict[str, int] = {}
        for lo in range(0, len(docs), BATCH):
            chunk = docs[lo : lo + BATCH]
            rows = model.scores(
                [d.text for d in chunk], [list(masks_by_doc.get(d.doc_id, ())) for d in chunk]
            )
            for d, row in zip(chunk, rows, strict=True):
                ranks[d.doc_id] = rank_of(row, index[d.target])
        out[model.name] = ranks
    return out


def reidentified(ranks: Ranks) -> dict[str, bool]:
    """``{doc id: some model ranks the target first}``."""
    docs: set[str] = set()
    for per_doc in ranks.values():
        docs.update(per_doc)
    return {d: any(per_doc.get(d) == 1 for per_doc in ranks.values()) for d in sorted(docs)}


def reidentification_rate(ranks: Ranks) -> float:
    """Share of documents re-identified by the ensemble (0 without documents)."""
    flags = reidentified(ranks)
    return sum(flags.values()) / len(flags) if flags else 0.0


def per_model_rates(ranks: Ranks) -> dict[str, float]:
    """Each model's own top-1 rate."""
    return {
        name: (sum(r == 1 for r in per_doc.values()) / len(per_doc) if per_doc else 0.0)
        for name, per_doc in ranks.items()
    }


@dataclass
class CurvePoint:
    """One method on the privacy/utility curve (rates and shares in [0, 1])."""

    method: str
    label: str
    rate: float
    share_masked: float
    info_loss: float
    per_model: dict[str, float] = field(default_factory=dict)
    n_docs: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data."""
        return asdict(self)


def evaluate_masks(
    models: Sequence[ReidModel],
    docs: Sequence[ReidDocument],
    masks_by_doc: Mapping[str, Sequence[Span]],
    *,
    method: str,
    label: str,
    seconds: float = 0.0,
) -> CurvePoint:
    """The curve point of one set of masks: ensemble rate, mean share masked and info loss."""
    ranks = ensemble_ranks(models, docs, masks_by_doc)
    n = len(docs)
    shares = [share_masked(d.text, masks_by_doc.get(d.doc_id, ())) for d in docs]
    losses = [information_loss(d.text, masks_by_doc.get(d.doc_id, ())) for d in docs]
    return CurvePoint(
        method=method,
        label=label,
        rate=reidentification_rate(ranks),
        share_masked=sum(shares) / n if n else 0.0,
        info_loss=sum(losses) / n if n else 0.0,
        per_model=per_model_rates(ranks),
        n_docs=n,
        seconds=seconds,
    )


def curve_json(points: Sequence[CurvePoint], path: str | os.PathLike[str]) -> None:
    """Write ``{"points": [...]}`` (UTF-8 JSON)."""
    Path(path).write_text(
        json.dumps({"points": [p.to_dict() for p in points]}, indent=1), encoding="utf-8"
    )


def load_curve(path: str | os.PathLike[str]) -> list[CurvePoint]:
    """Points written by :func:`curve_json`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [CurvePoint(**p) for p in data["points"]]


def curve_png(points: Sequence[CurvePoint], path: str | os.PathLike[str]) -> None:
    """Plot re-identification rate against share of words masked (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    by_method: dict[str, list[CurvePoint]] = {}
    for p in points:
        by_method.setdefault(p.method, []).append(p)
    for method, group in by_method.items():
        group = sorted(group, key=lambda p: p.share_masked)
        xs = [100 * p.share_masked for p in group]
        ys = [100 * p.rate for p in group]
        ax.plot(xs, ys, marker="o", linestyle="-" if len(group) > 1 else "none", label=method)
        for p, x, y in zip(group, xs, ys, strict=True):
            ax.annotate(p.label, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("words masked (%)")
    ax.set_ylabel("ensemble re-identification rate (%)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
