"""Normalisation and linguistic variants of knowledge-base facts.

A fact is rarely written in running text the way a knowledge base stores it, so
every value is expanded into the surface forms text is likely to use before it
is indexed (seed 000 §4.1 and its slides): dates as prose writes them, parts and
initials of names, nationality ↔ country and official ↔ common country names.

All terms go through :func:`normalize` at index time and document text through
the same character-level folding at query time (see ``gazetteer``), so a variant
matches whatever the case or spacing of the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pycountry

from sanitizer.kanon.kb import Person
from sanitizer.registry import Registry

# Length-preserving character folding: typographic quotes and dashes become ASCII
# so curly and straight apostrophes index identically. Must stay 1 char → 1 char because
# the gazetteer maps match offsets back to the original text position by position.
_FOLD_TABLE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
    }
)


def fold_chars(text: str) -> str:
    """Lower-case and fold ``text`` character by character, keeping its length."""
    folded = text.translate(_FOLD_TABLE)
    low = folded.lower()
    if len(low) == len(folded):
        return low
    # A few characters (e.g. "İ") lower-case to two code points: keep those as-is.
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)


def normalize(term: str) -> str:
    """Normalised form of a term: folded (see :func:`fold_chars`), whitespace collapsed."""
    return " ".join(fold_chars(term).split())


# --------------------------------------------------------------------------- resources


def _data_path(name: str) -> Path:
    return Path(str(resources.files("sanitizer.kanon").joinpath("data", name)))


def _read_tsv(name: str) -> Iterator[list[str]]:
    with open(_data_path(name), encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield line.split("\t")


def load_stop_terms(path: str | Path | None = None) -> frozenset[str]:
    """Normalised generic terms that are never indexed (default: the packaged list)."""
    p = Path(path) if path is not None else _data_path("stoplist.txt")
    out: set[str] = set()
    with open(p, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                out.add(normalize(line))
    return frozenset(out)


# --------------------------------------------------------------------------- dates

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_ISO_DATE = re.compile(r"^\+?(\d{3,4})(?:-(\d{2})(?:-(\d{2}))?)?(?:T[\d:]+Z?)?$")


def date_variants(value: str) -> list[str]:
    """Prose forms of an ISO date (``1992-08-05``, ``1992-08`` or ``1992``).

    ``1992-08-05`` → ``5 August 1992``, ``August 5, 1992``, ``August 5 1992``,
    ``August 1992``, ``1992``. Returns ``[]`` for anything that is not an ISO date;
    month/day ``00`` (Wikidata's unknown) reduce the precision.
    """
    m = _ISO_DATE.match(value.strip())
    if not m:
        return []
    year = str(int(m.group(1)))
    month = int(m.group(2)) if m.group(2) else 0
    day = int(m.group(3)) if m.group(3) else 0
    if month > 12 or day > 31:
        return []
    out: list[str] = []
    if month:
        mname = _MONTHS[month - 1]
        if day:
            out += [f"{day} {mname} {year}", f"{mname} {day}, {year}", f"{mname} {day} {year}"]
        out.append(f"{mname} {year}")
    out.append(year)
    return out


# --------------------------------------------------------------------------- names

_NAME_PARTICLES = frozenset(
    [
        "van",
        "von",
        "de",
        "da",
        "di",
        "del",
        "della",
        "dos",
        "das",
        "du",
        "le",
        "la",
        "bin",
        "ibn",
        "al",
        "el",
        "der",
        "den",
        "ter",
        "ten",
        "mac",
        "st.",
    ]
)
_NAME_SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd"])


def name_variants(full_name: str) -> list[str]:
    """Forms a text may use to refer to a person named ``full_name``.

    ``Leandro Micael Gomes Albano`` → the full name, ``Leandro Albano``,
    ``L. Albano``, ``L. M. G. Albano``, ``Albano`` and the given/middle names
    (``Leandro``, ``Micael``, ``Gomes``). Surname particles stay with the surname
    (``Ludwig van Beethoven`` → ``van Beethoven`` and ``Beethoven``). Parenthesised
    qualifiers are dropped; one-character parts are not emitted alone.
    """
    name = re.sub(r"\s*\([^)]*\)", "", full_name).replace(",", " ").strip()
    tokens = [t for t in name.split() if t.lower() not in _NAME_SUFFIXES]
    out: list[str] = [full_name.strip()]
    if name and name != full_name.strip():
        out.append(name)
    if len(tokens) < 2:
        return out
    # The surname starts at the first particle after the given name, else it is the last token.
    split = len(tokens) - 1
    for i in range(1, len(tokens) - 1):
        if tokens[i].lower() in _NAME_PARTICLES:
            split = i
            break
    given, middles, surname_tokens = tokens[0], tokens[1:split], tokens[split:]
    surname = " ".join(surname_tokens)
    bare_surname = surname_tokens[-1]
    out.append(f"{given} {surname}")
    if given[0].isalpha():
        out.append(f"{given[0]}. {surname}")
        initials = [t[0] + "." for t in [given, *middles] if t[0].isalpha()]
        if middles:
            out.append(" ".join([*initials, surname]))
    out.append(surname)
    if bare_surname != surname:
        out.append(bare_surname)
    for part in [given, *middles]:
        if len(part.rstrip(".")) > 1:
            out.append(part)
    return out


# --------------------------------------------------------------------------- countries


@lru_cache(maxsize=1)
def _country_table() -> dict[str, tuple[str, ...]]:
    """normalised country name or demonym → every variant of that country."""
    groups: dict[str, set[str]] = {}
    for c in pycountry.countries:
        names = {c.name}
        for attr in ("official_name", "common_name"):
            val = getattr(c, attr, None)
            if val:
                names.add(val)
        groups[c.alpha_2] = names
    for row in _read_tsv("country_aliases.tsv"):
        if row[0] in groups:
            groups[row[0]].update(row[1].split("|"))
    for row in _read_tsv("demonyms.tsv"):
        if row[0] in groups:
            groups[row[0]].update(row[1].split("|"))
    table: dict[str, tuple[str, ...]] = {}
    ambiguous: set[str] = set()
    for names in groups.values():
        variants = tuple(sorted(names))
        for n in names:
            key = normalize(n)
            if key in table and table[key] != variants:
                ambiguous.add(key)
            table[key] = variants
    # Demonyms shared by two countries (e.g. "Congolese", "Dominican") only map to themselves.
    for key in ambiguous:
        table[key] = (key,)
    return table


def country_variants(value: str) -> list[str]:
    """Every name and demonym of the country ``value`` names (``[]`` if it names none).

    ``Greece``, ``Hellenic Republic`` and ``Greek`` all expand to the same set;
    demonyms shared by several countries expand to nothing but themselves.
    """
    return sorted(_country_table().get(normalize(value), ()))


# --------------------------------------------------------------------------- registry

VariantFunction = Callable[[str], list[str]]
variant_generators: Registry[VariantFunction] = Registry("variant generator")
variant_generators.register("dates")(date_variants)
variant_generators.register("names")(name_variants)
variant_generators.register("countries")(country_variants)


@dataclass
class TermExtractor:
    """Turns a :class:`Person` into the set of normalised terms to index.

    ``name_generators`` apply to the name and aliases (and to the values of
    ``name_properties``, e.g. a spouse's name), ``value_generators`` to every
    attribute value. Each value is also indexed as itself. Terms in ``stop_terms``
    or shorter than ``min_term_chars`` are never returned.
    """

    name_generators: tuple[str, ...] = ("names",)
    value_generators: tuple[str, ...] = ("dates", "countries")
    stop_terms: frozenset[str] = field(default_factory=load_stop_terms)
    skip_attributes: frozenset[str] = frozenset()
    name_properties: frozenset[str] = frozenset()
    min_term_chars: int = 2
    cache_size: int = 1 << 18

    def __post_init__(self) -> None:
        self._name_fns = [variant_generators.get(n) for n in self.name_generators]
        self._value_fns = [variant_generators.get(n) for n in self.value_generators]
        # Attribute values repeat across millions of people (places, years, jobs):
        # caching their expansion is what keeps index building fast.
        self._value_terms = lru_cache(maxsize=self.cache_size)(self._expand_value)

    def _keep(self, term: str) -> bool:
        return len(term) >= self.min_term_chars and term not in self.stop_terms

    def _expand_value(self, value: str) -> tuple[str, ...]:
        forms = [value]
        for fn in self._value_fns:
            forms.extend(fn(value))
        return tuple(dict.fromkeys(t for t in map(normalize, forms) if self._keep(t)))

    def name_terms(self, name: str) -> list[str]:
        """Normalised, filtered variants of a person name."""
        forms: list[str] = [name]
        for fn in self._name_fns:
            forms.extend(fn(name))
        return [t for t in map(normalize, forms) if self._keep(t)]

    def value_terms(self, value: str) -> tuple[str, ...]:
        """Normalised, filtered variants of an attribute value (cached)."""
        return self._value_terms(value)

    def terms(self, person: Person) -> set[str]:
        """All normalised terms describing ``person``."""
        out: set[str] = set()
        for name in (person.name, *person.aliases):
            if name:
                out.update(self.name_terms(name))
        for prop, values in person.attributes.items():
            if prop in self.skip_attributes:
                continue
            is_name = prop in self.name_properties
            for v in values:
                out.update(self.name_terms(v) if is_name else self.value_terms(v))
        return out


def expand_all(values: Iterable[str], extractor: TermExtractor | None = None) -> set[str]:
    """Normalised variants of several attribute values (used for "always-known" facts)."""
    ex = extractor or TermExtractor()
    out: set[str] = set()
    for v in values:
        out.update(ex.value_terms(v))
    return out
