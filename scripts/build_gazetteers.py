"""Regenerate the machine-derived gazetteer lists from installed packages (Faker, pycountry).

Run from the repository root: ``.venv/bin/python scripts/build_gazetteers.py``.
Hand-written lists in this folder are not touched. Output is deterministic (sorted, deduplicated)
so regenerating with the same package versions yields identical files.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import faker.providers.address as faker_address
import faker.providers.job as faker_job
import faker.providers.person as faker_person
import pycountry

HERE = Path(__file__).resolve().parents[1] / "sanitizer" / "recognizer" / "data" / "gazetteer"

# Faker address-provider attributes that hold settlement or region names (not street parts).
PLACE_ATTRS = (
    "cities",
    "city_names",
    "real_city_names",
    "municipalities",
    "localities",
    "states",
    "regions",
    "departments",
    "counties",
    "cantons",
    "provinces",
    "prefectures",
    "concelhos",
    "places",
    "wilayas",
    "districts",
    "region_names",
    "region_oblast",
    "bairros",
    "estados",
    "freguesias",
)
PERSON_FIRST_ATTRS = (
    "first_names",
    "first_names_male",
    "first_names_female",
    "first_names_nonbinary",
)
PERSON_LAST_ATTRS = ("last_names", "last_names_male", "last_names_female")


def _values(obj: object) -> Iterable[str]:
    """Yield the strings of a Faker list/tuple/dict (weighted dicts map name -> weight)."""
    if isinstance(obj, dict):
        obj = list(obj.keys())
    if isinstance(obj, (list, tuple)):
        for item in obj:
            if isinstance(item, str):
                yield item


def _clean(term: str) -> str:
    return " ".join(unicodedata.normalize("NFC", term).split())


def _provider_values(package: object, attrs: Iterable[str]) -> set[str]:
    out: set[str] = set()
    attrs = tuple(attrs)
    for module in pkgutil.iter_modules(package.__path__):  # type: ignore[attr-defined]
        mod = importlib.import_module(f"{package.__name__}.{module.name}")  # type: ignore[attr-defined]
        provider = getattr(mod, "Provider", None)
        for attr in attrs:
            for value in _values(getattr(provider, attr, None)):
                out.add(_clean(value))
    return out


def _is_name_like(term: str) -> bool:
    # Names must be cased words of at least 3 letters so that capitalisation can be used as
    # evidence at match time; uncased scripts and initials would only add false positives.
    return len(term) >= 3 and term[0].isupper() and any(c.isalpha() for c in term)


_AGENT_SUFFIXES = (
    "er", "or", "ist", "ian", "ant", "ent", "eer", "ier", "ary", "ath", "wife", "man", "woman",
    "ic", "ess", "maker", "smith", "wright",
)  # fmt: skip


def _job_terms(raw: str) -> set[str]:
    """Normalise one Faker job title into the terms worth matching.

    Faker writes some titles inverted ("Loss adjuster, chartered") or as alternatives
    ("Ranger/warden"); the part before a comma and each alternative are kept. Faker's list also
    holds truncated one-word entries ("Make", "Copy", "Land"); a single word is kept only if it
    has an agent-noun ending. The inverted form is added too ("chartered loss adjuster").
    """
    head, _, tail = (part.strip() for part in raw.partition(","))
    terms = {part.strip() for part in head.split("/") if part.strip()}
    tail = " ".join(re.sub(r"\([^)]*\)", " ", tail).split())
    if tail:
        # "Engineer, civil (consulting)" -> "civil engineer"
        terms.add(f"{tail} {head[0].lower()}{head[1:]}")
    return {t for t in terms if " " in t or t.lower().endswith(_AGENT_SUFFIXES)}


def _write(name: str, terms: Iterable[str], header: str) -> int:
    unique = sorted({t for t in terms if t})
    path = HERE / name
    path.write_text(f"# {header}\n" + "\n".join(unique) + "\n", encoding="utf-8")
    return len(unique)


def main() -> None:
    """Write the generated lists and print their sizes."""
    first = {t for t in _provider_values(faker_person, PERSON_FIRST_ATTRS) if _is_name_like(t)}
    last = {t for t in _provider_values(faker_person, PERSON_LAST_ATTRS) if _is_name_like(t)}
    places = {t for t in _provider_values(faker_address, PLACE_ATTRS) if _is_name_like(t)}
    countries: set[str] = set()
    for country in pycountry.countries:
        for attr in ("name", "official_name", "common_name"):
            value = getattr(country, attr, None)
            if value:
                countries.add(_clean(value))
    countries |= {t for t in _provider_values(faker_address, ("countries",)) if _is_name_like(t)}
    subdivisions = {_clean(s.name) for s in pycountry.subdivisions if _is_name_like(s.name)}
    # Only English-language job lists: the other locales' titles would never match English text.
    english_jobs = set(_values(faker_job.Provider.jobs))
    for module in pkgutil.iter_modules(faker_job.__path__):
        if module.name.startswith("en"):
            mod = importlib.import_module(f"{faker_job.__name__}.{module.name}")
            english_jobs |= set(_values(getattr(mod.Provider, "jobs", None)))
    sizes = {
        "person_first_names.txt": _write(
            "person_first_names.txt", first, "generated: Faker person providers, all locales"
        ),
        "person_last_names.txt": _write(
            "person_last_names.txt", last, "generated: Faker person providers, all locales"
        ),
        "places.txt": _write(
            "places.txt", places - countries, "generated: Faker address providers, all locales"
        ),
        "countries.txt": _write(
            "countries.txt", countries, "generated: pycountry ISO 3166-1 + Faker country names"
        ),
        "subdivisions.txt": _write(
            "subdivisions.txt", subdivisions, "generated: pycountry ISO 3166-2 subdivision names"
        ),
        "occupations_faker.txt": _write(
            "occupations_faker.txt",
            {_clean(t) for j in english_jobs for t in _job_terms(j)},
            "generated: Faker job providers, default and en_* locales",
        ),
    }
    for name, size in sizes.items():
        print(f"{name}: {size}")


if __name__ == "__main__":
    main()
