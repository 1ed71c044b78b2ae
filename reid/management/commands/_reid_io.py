"""Files the re-identification commands share: TAB-style documents with a ``target``,
TAB masks, and the ensemble named on the command line. (A leading underscore: Django
does not take this module for a command.)"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from sanitizer.kanon.kb import Person
from sanitizer.reid import curve, ensemble
from sanitizer.reid.base import ReidDocument, ReidModel, Span
from sanitizer.reid.profiles import load_profiles


def read_documents(path: str | Path) -> list[dict[str, Any]]:
    """A JSON list of objects with ``doc_id`` and ``text`` (TAB style)."""
    try:
        docs = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"{path}: {exc}") from exc
    if not isinstance(docs, list) or not all(
        isinstance(d, dict) and "doc_id" in d and "text" in d for d in docs
    ):
        raise CommandError(f"{path}: expected a JSON list of objects with doc_id and text")
    return docs


def read_profiles(path: str | Path) -> list[Person]:
    try:
        profiles = load_profiles(path)
    except (OSError, ValueError, KeyError) as exc:
        raise CommandError(f"{path}: {exc}") from exc
    if not profiles:
        raise CommandError(f"{path}: no profiles")
    return profiles


def reid_documents(
    docs: Sequence[Mapping[str, Any]], profiles: Sequence[Person]
) -> tuple[list[ReidDocument], int]:
    """The documents (``read_documents``'s, each with a ``doc_id``) whose target is a profile
    of the knowledge base, and how many others there were (no ``target``, or one the
    knowledge base does not hold)."""
    kept, _raw = curve.reid_documents(docs, [p.id for p in profiles])
    return kept, len(docs) - len(kept)


def read_masks(path: str | Path | None) -> dict[str, list[Span]]:
    """TAB masks ``{doc_id: [[start, end], ...]}`` (what ``sanitize`` writes); none: {}."""
    if path is None:
        return {}
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"{path}: {exc}") from exc
    if not isinstance(data, dict):
        raise CommandError(f"{path}: expected {{doc_id: [[start, end], ...]}}")
    masks: dict[str, list[Span]] = {}
    for doc_id, spans in data.items():
        try:
            masks[str(doc_id)] = [(int(s), int(e)) for s, e in spans]
        except (TypeError, ValueError) as exc:
            raise CommandError(f"{path}: masks of {doc_id!r} are not [[start, end], ...]") from exc
    return masks


def model_names(names: str | None, model_dir: str | None) -> list[str]:
    """The ensemble: ``--models`` as given (each once), else BM25 plus the dense model when
    there is one."""
    # A --models naming nothing (",") is the user's mistake, not a request for the defaults.
    if names and not any(n.strip() for n in names.split(",")):
        raise CommandError("--models names no model")
    chosen = list(dict.fromkeys(ensemble.model_names(names, model_dir)))
    if "dense" in chosen and not model_dir:
        raise CommandError("the dense model needs --model DIR (made by train_reid)")
    return chosen


def build_ensemble(
    names: Sequence[str], profiles: Sequence[Person], model_dir: str | None
) -> list[ReidModel]:
    """The models of ``names`` (from :func:`model_names`); a failure names its model."""
    models = []
    for name in names:
        try:
            models.extend(ensemble.build_ensemble(profiles, [name], model_dir))
        except KeyError as exc:
            # The registry's message names the known models.
            raise CommandError(str(exc.args[0])) from exc
        except (OSError, ValueError) as exc:
            raise CommandError(f"{name}: {exc}") from exc
    return models
