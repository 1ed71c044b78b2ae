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
from sanitizer.reid.base import ReidDocument, ReidModel, Span, build_model
from sanitizer.reid.profiles import load_profiles, target_of


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
) -> tuple[list[ReidDocument], list[str]]:
    """The documents whose target is a profile of the knowledge base, and the ids of the
    others (no ``target``, or one the knowledge base does not hold)."""
    known = {p.id for p in profiles}
    kept: list[ReidDocument] = []
    skipped: list[str] = []
    for doc in docs:
        target = target_of(doc)
        if target is None or target not in known:
            skipped.append(str(doc["doc_id"]))
        else:
            kept.append(ReidDocument(str(doc["doc_id"]), str(doc["text"]), target))
    return kept, skipped


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
    """The ensemble: ``--models`` as given, else BM25 plus the dense model when there is one."""
    if names:
        chosen = [n.strip() for n in names.split(",") if n.strip()]
    else:
        chosen = ["bm25", "dense"] if model_dir else ["bm25"]
    if "dense" in chosen and not model_dir:
        raise CommandError("the dense model needs --model DIR (made by train_reid)")
    if not chosen:
        raise CommandError("--models names no model")
    return list(dict.fromkeys(chosen))


def build_ensemble(
    names: Sequence[str], profiles: Sequence[Person], model_dir: str | None
) -> list[ReidModel]:
    models = []
    for name in names:
        try:
            models.append(build_model(name, profiles, model_dir=model_dir))
        except KeyError as exc:
            # The registry's message names the known models.
            raise CommandError(str(exc.args[0])) from exc
        except (OSError, ValueError) as exc:
            raise CommandError(f"{name}: {exc}") from exc
    return models
