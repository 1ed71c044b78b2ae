"""Reading, validating and writing documents in TAB JSON, JSONL and plain text.

TAB (the Text Anonymization Benchmark) distributes a JSON list of documents, each
with ``doc_id``, ``text``, ``annotations`` → annotator → ``entity_mentions``,
``task``, ``meta``, ``dataset_type`` and ``quality_checked``. Readers stream: a
TAB list is parsed item by item with ijson, so a large file is read once and never
held whole in memory. Every reader validates as it goes and raises
:class:`FormatError` naming the document, the mention and the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson

from sanitizer.formats.bounded_json import MAX_DEPTH, JsonLimitError, iter_items, loads
from sanitizer.types import CONFIDENTIAL_STATUSES, IDENTIFIER_TYPES, SEMANTIC_TYPES

SPLITS = ("train", "dev", "test")
# TAB mention keys that have their own field; everything else rides along in attrs.
_MENTION_CORE_KEYS = {
    "entity_mention_id",
    "start_offset",
    "end_offset",
    "span_text",
    "entity_type",
    "identifier_type",
    "confidential_status",
    "entity_id",
}
_DOC_CORE_KEYS = {
    "doc_id",
    "text",
    "annotations",
    "task",
    "meta",
    "dataset_type",
    "quality_checked",
}
_TASK_PERSON = re.compile(r"following (?:person|individual)s?\s*:\s*(.+?)\s*$", re.IGNORECASE)


class FormatError(ValueError):
    """A file that cannot be imported; names where the problem is."""

    def __init__(self, problem: str, *, doc_id: str | None = None, mention_id: str | None = None):
        self.problem = problem
        self.doc_id = doc_id
        self.mention_id = mention_id
        where = []
        if doc_id is not None:
            where.append(f"document {doc_id!r}")
        if mention_id is not None:
            where.append(f"mention {mention_id!r}")
        super().__init__(f"{', '.join(where)}: {problem}" if where else problem)


@dataclass(slots=True)
class MentionRecord:
    mention_id: str
    start: int
    end: int
    span_text: str
    entity_type: str
    identifier_type: str
    confidential_status: str = "NOT_CONFIDENTIAL"
    entity_id: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)

    def to_tab(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "entity_type": self.entity_type,
            "entity_mention_id": self.mention_id,
            "start_offset": self.start,
            "end_offset": self.end,
            "span_text": self.span_text,
            "identifier_type": self.identifier_type,
            "entity_id": self.entity_id,
            "confidential_status": self.confidential_status,
        }
        out.update(self.attrs)
        return out


@dataclass(slots=True)
class DocumentRecord:
    doc_id: str
    text: str
    annotations: dict[str, list[MentionRecord]] = field(default_factory=dict)
    task: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    split: str = "none"
    quality_checked: list[str] = field(default_factory=list)
    target: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_tab(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "doc_id": self.doc_id,
            "text": self.text,
            "annotations": {
                annotator: {"entity_mentions": [m.to_tab() for m in mentions]}
                for annotator, mentions in self.annotations.items()
            },
            "task": self.task,
            "meta": self.meta,
            "dataset_type": self.split if self.split in SPLITS else None,
            "quality_checked": self.quality_checked,
        }
        out.update(self.extra)
        return out


def target_person(meta: dict[str, Any], task: str, explicit: str = "") -> str:
    """The person to protect: explicit target, else TAB's ``meta.applicant``, else the task line."""
    if explicit:
        return explicit.strip()
    applicant = meta.get("applicant") if isinstance(meta, dict) else None
    if isinstance(applicant, str) and applicant.strip():
        return applicant.strip()
    match = _TASK_PERSON.search(task or "")
    return match.group(1) if match else ""


def _int_offset(value: Any, name: str, doc_id: str, mention_id: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(
            f"{name} must be an integer, got {value!r}", doc_id=doc_id, mention_id=mention_id
        )
    return value


# Limits of the database columns the values go into.
MAX_ID_CHARS = 255
RESERVED_META_KEYS = ("_tab_extra",)
# Meta keys starting with this belong to the app (``_tab_extra`` holds TAB's unknown
# keys for export): no file and no API call may set them.
RESERVED_META_PREFIX = "_"


def reserved_meta_keys(meta: dict[str, Any]) -> list[str]:
    """The keys of ``meta`` that only the app itself may write."""
    return [
        key
        for key in meta
        if key in RESERVED_META_KEYS or str(key).startswith(RESERVED_META_PREFIX)
    ]


def _checked_meta(meta: Any, doc_id: str) -> dict[str, Any]:
    meta = meta or {}
    if not isinstance(meta, dict):
        raise FormatError("meta must be an object", doc_id=doc_id)
    reserved = reserved_meta_keys(meta)
    if reserved:
        raise FormatError(
            f"meta key {reserved[0]!r} is reserved (keys starting with "
            f"{RESERVED_META_PREFIX!r} belong to the app)",
            doc_id=doc_id,
        )
    return meta


def _check_text(text: str, doc_id: str) -> None:
    if not text.strip():
        raise FormatError("the text is empty", doc_id=doc_id)
    if "\x00" in text:
        raise FormatError("the text contains a NUL character", doc_id=doc_id)
    if len(doc_id) > MAX_ID_CHARS:
        raise FormatError(f"doc_id is longer than {MAX_ID_CHARS} characters", doc_id=doc_id[:80])


def parse_mention(raw: Any, *, doc_id: str, text: str, position: int) -> MentionRecord:
    if not isinstance(raw, dict):
        raise FormatError(f"mention #{position} is not an object", doc_id=doc_id)
    mention_id = str(raw.get("entity_mention_id") or f"#{position}")
    for key in ("start_offset", "end_offset", "entity_type", "identifier_type"):
        if key not in raw:
            raise FormatError(f"missing {key}", doc_id=doc_id, mention_id=mention_id)
    start = _int_offset(raw["start_offset"], "start_offset", doc_id, mention_id)
    end = _int_offset(raw["end_offset"], "end_offset", doc_id, mention_id)
    if start < 0 or end > len(text):
        raise FormatError(
            f"offsets {start}..{end} are outside the text (length {len(text)})",
            doc_id=doc_id,
            mention_id=mention_id,
        )
    if start >= end:
        raise FormatError(
            f"start_offset {start} is not before end_offset {end}",
            doc_id=doc_id,
            mention_id=mention_id,
        )
    span_text = raw.get("span_text", text[start:end])
    if span_text != text[start:end]:
        raise FormatError(
            f"span_text {span_text!r} differs from the text at {start}..{end} "
            f"({text[start:end]!r})",
            doc_id=doc_id,
            mention_id=mention_id,
        )
    entity_type = raw["entity_type"]
    if entity_type not in SEMANTIC_TYPES:
        raise FormatError(
            f"unknown entity_type {entity_type!r}", doc_id=doc_id, mention_id=mention_id
        )
    identifier_type = raw["identifier_type"]
    if identifier_type not in IDENTIFIER_TYPES:
        raise FormatError(
            f"unknown identifier_type {identifier_type!r}", doc_id=doc_id, mention_id=mention_id
        )
    confidential = raw.get("confidential_status") or "NOT_CONFIDENTIAL"
    if confidential not in CONFIDENTIAL_STATUSES:
        raise FormatError(
            f"unknown confidential_status {confidential!r}", doc_id=doc_id, mention_id=mention_id
        )
    for key in ("entity_mention_id", "entity_id"):
        if len(str(raw.get(key) or "")) > MAX_ID_CHARS:
            raise FormatError(
                f"{key} is longer than {MAX_ID_CHARS} characters",
                doc_id=doc_id,
                mention_id=mention_id[:80],
            )
    attrs = {k: v for k, v in raw.items() if k not in _MENTION_CORE_KEYS}
    return MentionRecord(
        mention_id=str(raw.get("entity_mention_id") or ""),
        start=start,
        end=end,
        span_text=span_text,
        entity_type=entity_type,
        identifier_type=identifier_type,
        confidential_status=confidential,
        entity_id=str(raw.get("entity_id") or ""),
        attrs=attrs,
    )


def parse_tab_document(raw: Any, *, position: int) -> DocumentRecord:
    """Validate one TAB document object and turn it into a record."""
    if not isinstance(raw, dict):
        raise FormatError(f"item #{position} is not a document object")
    doc_id = raw.get("doc_id")
    if not isinstance(doc_id, str | int) or isinstance(doc_id, bool) or str(doc_id) == "":
        raise FormatError(f"item #{position} has no doc_id")
    doc_id = str(doc_id)
    text = raw.get("text")
    if not isinstance(text, str):
        raise FormatError("text is missing or not a string", doc_id=doc_id)
    meta = _checked_meta(raw.get("meta"), doc_id)
    _check_text(text, doc_id)
    annotations_raw = raw.get("annotations") or {}
    if not isinstance(annotations_raw, dict):
        raise FormatError("annotations must be an object keyed by annotator", doc_id=doc_id)
    annotations: dict[str, list[MentionRecord]] = {}
    for annotator, body in annotations_raw.items():
        if not isinstance(body, dict) or not isinstance(body.get("entity_mentions", []), list):
            raise FormatError(f"annotator {annotator!r} has no entity_mentions list", doc_id=doc_id)
        mentions = [
            parse_mention(m, doc_id=doc_id, text=text, position=i)
            for i, m in enumerate(body.get("entity_mentions", []))
        ]
        seen: set[str] = set()
        for mention in mentions:
            if mention.mention_id and mention.mention_id in seen:
                raise FormatError(
                    f"duplicate entity_mention_id for annotator {annotator!r}",
                    doc_id=doc_id,
                    mention_id=mention.mention_id,
                )
            seen.add(mention.mention_id)
        annotations[str(annotator)] = mentions
    dataset_type = raw.get("dataset_type")
    # Other corpora name their own subsets; those are kept verbatim for export.
    split = dataset_type if dataset_type in SPLITS else "none"
    if dataset_type is not None and not isinstance(dataset_type, str):
        raise FormatError(f"dataset_type must be a string, got {dataset_type!r}", doc_id=doc_id)
    quality = raw.get("quality_checked") or []
    if isinstance(quality, str):
        quality = [quality]
    if not isinstance(quality, list) or not all(isinstance(q, str) for q in quality):
        raise FormatError(
            f"quality_checked must be a list of annotator names, got {quality!r:.80}",
            doc_id=doc_id,
        )
    task = raw.get("task") or ""
    explicit_target = raw.get("target") or ""
    extra = {k: v for k, v in raw.items() if k not in _DOC_CORE_KEYS | {"target"}}
    if dataset_type is not None and dataset_type not in SPLITS:
        extra["dataset_type"] = dataset_type
    if explicit_target:
        extra["target"] = explicit_target
    return DocumentRecord(
        doc_id=doc_id,
        text=text,
        annotations=annotations,
        task=str(task),
        meta=meta,
        split=split,
        quality_checked=[str(q) for q in quality],
        target=target_person(meta, str(task), str(explicit_target)),
        extra=extra,
    )


class _UniqueIds:
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def check(self, record: DocumentRecord) -> DocumentRecord:
        if record.doc_id in self.seen:
            raise FormatError("duplicate doc_id", doc_id=record.doc_id)
        self.seen.add(record.doc_id)
        return record


def _json_error_line(exc: Exception) -> str:
    # yajl's messages carry a drawing of the offending text on the following lines.
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def iter_tab(stream: IO[bytes], *, max_depth: int = MAX_DEPTH) -> Iterator[DocumentRecord]:
    """Stream documents from a TAB JSON list (a single object is accepted too).

    Nesting deeper than ``max_depth`` is refused before it is built, and so are
    strings with NUL characters or lone surrogates (see ``bounded_json``).
    """
    ids = _UniqueIds()
    last_doc: str | None = None
    position = 0
    try:
        if _peek_non_space(stream) not in (b"{", b"["):
            raise FormatError("not a JSON list of documents")
        for position, raw in enumerate(iter_items(stream, max_depth=max_depth)):
            record = parse_tab_document(raw, position=position)
            last_doc = record.doc_id
            yield ids.check(record)
    except JsonLimitError as exc:
        # The path names the field: ``annotations.a.entity_mentions[2].entity_id``
        # (without the item's own ``[3]``, which the message gives as "item #3").
        where = f" after document {last_doc!r}" if last_doc else ""
        item = re.match(r"\[(\d+)\]\.?", exc.path)
        field = exc.path[item.end() :] if item else exc.path
        problem = f"{field}: {exc.problem}" if field else exc.problem
        position = int(item.group(1)) if item else position
        partial = exc.partial.get("doc_id") if isinstance(exc.partial, dict) else None
        doc_id = str(partial) if isinstance(partial, str | int) and partial != "" else None
        raise FormatError(f"item #{position}{where}: {problem}", doc_id=doc_id) from exc
    except ijson.JSONError as exc:
        where = f" after document {last_doc!r}" if last_doc else ""
        raise FormatError(
            f"invalid JSON{where} (item #{position}): {_json_error_line(exc)}"
        ) from exc


def _peek_non_space(stream: IO[bytes]) -> bytes:
    # ijson needs the stream from the start, so peek and rewind.
    start = stream.tell()
    while True:
        char = stream.read(1)
        if not char:
            return b""
        if not char.isspace() and char != b"\xef" and char != b"\xbb" and char != b"\xbf":
            stream.seek(start)
            return char


def iter_jsonl(stream: IO[bytes], *, max_depth: int = MAX_DEPTH) -> Iterator[DocumentRecord]:
    """Stream ``{"id", "text", "target"?, "meta"?}`` lines.

    Each line goes through ``bounded_json.loads``: not UTF-8, nested deeper than
    ``max_depth``, NaN or a NUL character is refused naming the line and the field.
    """
    ids = _UniqueIds()
    for line_no, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            raw = loads(line, max_depth=max_depth)
        except JsonLimitError as exc:
            raise FormatError(f"line {line_no}: {exc}") from exc
        if not isinstance(raw, dict):
            raise FormatError(f"line {line_no}: not an object")
        doc_id = raw.get("id", raw.get("doc_id"))
        if doc_id is None or str(doc_id) == "":
            raise FormatError(f"line {line_no}: missing id")
        doc_id = str(doc_id)
        text = raw.get("text")
        if not isinstance(text, str):
            raise FormatError("text is missing or not a string", doc_id=doc_id)
        meta = _checked_meta(raw.get("meta"), doc_id)
        _check_text(text, doc_id)
        target = str(raw.get("target") or "")
        extra = {"target": target} if target else {}
        yield ids.check(
            DocumentRecord(
                doc_id=doc_id,
                text=text,
                meta=meta,
                target=target_person(meta, "", target),
                extra=extra,
            )
        )


def iter_text(path: Path) -> Iterator[DocumentRecord]:
    """One document per ``.txt`` file (a file, or every ``*.txt`` in a folder); id = file stem."""
    files = sorted(path.glob("*.txt")) if path.is_dir() else [path]
    ids = _UniqueIds()
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(f"not UTF-8 text: {exc}", doc_id=file.stem) from exc
        _check_text(text, file.stem)
        yield ids.check(DocumentRecord(doc_id=file.stem, text=text))


def iter_documents(path: Path, fmt: str) -> Iterator[DocumentRecord]:
    """Stream validated documents from ``path`` in format ``tab``, ``jsonl`` or ``text``."""
    if fmt == "text":
        yield from iter_text(path)
        return
    with path.open("rb") as stream:
        if fmt == "tab":
            yield from iter_tab(stream)
        elif fmt == "jsonl":
            yield from iter_jsonl(stream)
        else:
            raise FormatError(f"unknown format {fmt!r}")


def write_tab(records: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write TAB documents as a JSON list, one document at a time; returns the count."""
    out.write("[")
    count = 0
    for record in records:
        out.write(",\n" if count else "\n")
        out.write(json.dumps(record, ensure_ascii=False))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count
