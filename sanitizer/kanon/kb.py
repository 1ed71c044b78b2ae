"""Streaming knowledge-base readers yielding :class:`Person` records.

Two formats are supported, both read line by line (plain, ``.gz`` or ``.bz2``)
so a multi-gigabyte dump is never held in memory:

* ``jsonl``: one profile per line,
  ``{"id", "name", "aliases": [...], "attributes": {"property": ["value", ...]}}``;
* ``wikidata``: Wikidata's JSON dump (a JSON array, one entity per line with a
  trailing comma). Humans (P31 = Q5) are kept; item-valued claims are resolved to
  their labels with a second pass over the dump that only keeps the labels of the
  ids actually referenced.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from sanitizer.formats.bounded_json import JsonLimitError, loads
from sanitizer.registry import Registry

ProgressCallback = Callable[[int, int | None, str], None]
"""``(done, total_or_None, message)``; called every ``progress_every`` records."""


@dataclass(slots=True)
class Person:
    """A person of the knowledge base: the facts an adversary is assumed to know."""

    id: str
    name: str
    aliases: list[str] = field(default_factory=list)
    attributes: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The JSONL profile representation."""
        return {
            "id": self.id,
            "name": self.name,
            "aliases": list(self.aliases),
            "attributes": {k: list(v) for k, v in self.attributes.items()},
        }


kb_readers: Registry[Callable[..., Iterator[Person]]] = Registry("knowledge-base reader")


def open_text(path: str | os.PathLike[str]) -> IO[str]:
    """Open a UTF-8 text file for streaming, decompressing ``.gz``/``.bz2`` on the fly."""
    p = str(path)
    if p.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8")
    if p.endswith(".bz2"):
        return io.TextIOWrapper(bz2.open(p, "rb"), encoding="utf-8")
    return open(p, encoding="utf-8")


def _noop(done: int, total: int | None, message: str) -> None:
    return None


@kb_readers.register("jsonl")
def read_jsonl_profiles(
    path: str | os.PathLike[str],
    progress: ProgressCallback | None = None,
    progress_every: int = 100_000,
) -> Iterator[Person]:
    """Yield persons from a JSONL profile file; blank lines are ignored.

    Attribute values that are scalars are wrapped in a list; values are stringified.
    """
    report = progress or _noop
    done = 0
    with open_text(path) as fh:
        for line_no, line in enumerate(fh, start=1):
            line = line.strip()
            if not line:
                continue
            rec = _bounded_line(line, line_no)
            attrs: dict[str, list[str]] = {}
            for key, values in (rec.get("attributes") or {}).items():
                if isinstance(values, list):
                    attrs[key] = [str(v) for v in values if v is not None and v != ""]
                elif values is not None and values != "":
                    attrs[key] = [str(values)]
            yield Person(
                id=str(rec["id"]),
                name=str(rec.get("name") or ""),
                aliases=[str(a) for a in rec.get("aliases") or []],
                attributes=attrs,
            )
            done += 1
            if done % progress_every == 0:
                report(done, None, "profiles read")
    report(done, done, "profiles read")


def write_jsonl_profiles(persons: Iterable[Person], path: str | os.PathLike[str]) -> int:
    """Write persons as JSONL profiles (streaming); returns how many were written."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for person in persons:
            fh.write(json.dumps(person.to_json(), ensure_ascii=False))
            fh.write("\n")
            n += 1
    return n


# --------------------------------------------------------------------------- Wikidata


def _bounded_line(line: str, line_no: int) -> Any:
    # Uploaded files: nesting, NUL characters and NaN are refused naming the line.
    try:
        return loads(line)
    except JsonLimitError as exc:
        raise JsonLimitError(f"line {line_no}: {exc}") from exc


def iter_wikidata_entities(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield the entities of a Wikidata JSON dump, one parsed line at a time."""
    with open_text(path) as fh:
        for line_no, line in enumerate(fh, start=1):
            line = line.strip()
            if line.endswith(","):
                line = line[:-1]
            if not line or line in ("[", "]"):
                continue
            yield _bounded_line(line, line_no)


def _snak_value(snak: dict[str, Any]) -> tuple[str, str] | None:
    """Return ``(kind, value)`` of a main snak; kind ``"id"`` means an entity to resolve."""
    if snak.get("snaktype", "value") != "value":
        return None
    dv = snak.get("datavalue") or {}
    value = dv.get("value")
    vtype = dv.get("type")
    if value is None:
        return None
    if vtype == "wikibase-entityid":
        ent = value.get("id") or (f"Q{value['numeric-id']}" if "numeric-id" in value else None)
        return ("id", ent) if ent else None
    if vtype == "time":
        return ("text", _wikidata_time(value))
    if vtype == "monolingualtext":
        return ("text", str(value.get("text", "")))
    if vtype == "quantity":
        return ("text", str(value.get("amount", "")).lstrip("+"))
    if vtype == "globecoordinate":
        return None
    return ("text", str(value))


def _wikidata_time(value: dict[str, Any]) -> str:
    """Wikidata ``+1992-08-05T00:00:00Z`` → ISO ``1992-08-05`` cut to the stated precision."""
    raw = str(value.get("time", ""))
    sign = "-" if raw.startswith("-") else ""
    body = raw.lstrip("+-").split("T", 1)[0]
    parts = body.split("-")
    precision = int(value.get("precision", 11))
    if len(parts) != 3:
        return raw
    year, month, day = parts
    year = year.lstrip("0") or "0"
    if len(year) < 4 and not sign:
        year = year.zfill(4)
    if precision >= 11 and month != "00" and day != "00":
        return f"{sign}{year}-{month}-{day}"
    if precision == 10 and month != "00":
        return f"{sign}{year}-{month}"
    return f"{sign}{year}"


def _is_human(entity: dict[str, Any], class_ids: frozenset[str]) -> bool:
    for st in (entity.get("claims") or {}).get("P31", []):
        got = _snak_value(st.get("mainsnak") or {})
        if got and got[0] == "id" and got[1] in class_ids:
            return True
    return False


def _lang_value(block: dict[str, Any] | None, language: str) -> str | None:
    entry = (block or {}).get(language)
    return str(entry["value"]) if entry and entry.get("value") else None


@kb_readers.register("wikidata")
def read_wikidata_dump(
    path: str | os.PathLike[str],
    language: str = "en",
    human_classes: Iterable[str] = ("Q5",),
    skip_properties: Iterable[str] = ("P31",),
    resolve_property_labels: bool = True,
    progress: ProgressCallback | None = None,
    progress_every: int = 100_000,
    spool_dir: str | os.PathLike[str] | None = None,
) -> Iterator[Person]:
    """Yield the humans of a Wikidata JSON dump as :class:`Person` records.

    Pass 1 streams the dump, keeps humans in a compact temporary spool file and
    collects the ids their item-valued claims point to; pass 2 streams the dump
    again and keeps only the labels of those ids; the spool is then replayed with
    the ids replaced by labels. Memory is bounded by the number of referenced ids,
    not by the dump. Attribute keys are property labels (e.g. ``"place of birth"``)
    when ``resolve_property_labels`` and the dump holds the property, else P-ids.
    Unresolvable ids are dropped. The entity description becomes the
    ``"description"`` attribute. Temporary files are removed at the end.
    """
    report = progress or _noop
    classes = frozenset(human_classes)
    skipped = frozenset(skip_properties)
    needed: set[str] = set()
    fd, spool_path = tempfile.mkstemp(suffix=".jsonl", prefix="wd_spool_", dir=spool_dir)
    os.close(fd)
    try:
        n_humans = 0
        seen = 0
        with open(spool_path, "w", encoding="utf-8") as spool:
            for entity in iter_wikidata_entities(path):
                seen += 1
                if seen % progress_every == 0:
                    report(seen, None, "pass 1: entities scanned")
                if entity.get("type", "item") != "item" or not _is_human(entity, classes):
                    continue
                name = _lang_value(entity.get("labels"), language)
                if not name:
                    continue
                aliases = [
                    str(a["value"])
                    for a in (entity.get("aliases") or {}).get(language, [])
                    if a.get("value")
                ]
                claims: list[tuple[str, str, str]] = []
                for prop, statements in (entity.get("claims") or {}).items():
                    if prop in skipped:
                        continue
                    for st in statements:
                        got = _snak_value(st.get("mainsnak") or {})
                        if got is None or not got[1]:
                            continue
                        claims.append((prop, got[0], got[1]))
                        if got[0] == "id":
                            needed.add(got[1])
                    if resolve_property_labels:
                        needed.add(prop)
                desc = _lang_value(entity.get("descriptions"), language)
                spool.write(json.dumps([entity["id"], name, aliases, desc, claims]))
                spool.write("\n")
                n_humans += 1
        report(seen, seen, "pass 1 done")

        labels: dict[str, str] = {}
        if needed:
            seen = 0
            for entity in iter_wikidata_entities(path):
                seen += 1
                if seen % progress_every == 0:
                    report(seen, None, "pass 2: resolving labels")
                eid = entity.get("id")
                if eid in needed:
                    label = _lang_value(entity.get("labels"), language)
                    if label:
                        labels[eid] = label
            report(seen, seen, "pass 2 done")
        needed.clear()

        done = 0
        with open(spool_path, encoding="utf-8") as spool:
            for line in spool:
                eid, name, aliases, desc, claims = json.loads(line)
                attrs: dict[str, list[str]] = {}
                for prop, kind, value in claims:
                    text = labels.get(value) if kind == "id" else value
                    if not text:
                        continue
                    key = labels.get(prop, prop) if resolve_property_labels else prop
                    bucket = attrs.setdefault(key, [])
                    if text not in bucket:
                        bucket.append(text)
                if desc:
                    attrs.setdefault("description", []).append(desc)
                yield Person(id=eid, name=name, aliases=aliases, attributes=attrs)
                done += 1
                if done % progress_every == 0:
                    report(done, n_humans, "persons resolved")
        report(done, n_humans, "persons resolved")
    finally:
        Path(spool_path).unlink(missing_ok=True)


def read_kb(
    path: str | os.PathLike[str], fmt: str | None = None, **kwargs: Any
) -> Iterator[Person]:
    """Read a knowledge base with the reader registered as ``fmt``.

    Without ``fmt``, files whose name contains ``wikidata`` or ends in ``.json``
    (optionally compressed) are read as Wikidata dumps, the rest as JSONL profiles.
    """
    if fmt is None:
        name = Path(path).name.lower()
        for suffix in (".gz", ".bz2"):
            name = name.removesuffix(suffix)
        fmt = "wikidata" if ("wikidata" in name or name.endswith(".json")) else "jsonl"
    return kb_readers.get(fmt)(path, **kwargs)
