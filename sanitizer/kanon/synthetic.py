"""Synthetic people and biographies for developing and testing distant supervision.

:class:`SyntheticPeople` draws people from pools built once (Faker's name lists and
a few hundred Faker-generated cities and companies per locale, plus the packaged
occupation vocabulary), so a million profiles take seconds: each chunk of people
is sampled with numpy from a generator seeded by ``(seed, chunk number)``, so
person ``i`` is the same whatever is generated around it.

Biographies are deliberately not a verbatim rendering of the profile: facts are
left out at random, dates take several prose formats, names appear as initials
or surname only, nationality is written instead of country, occupations use
synonyms, and facts absent from the knowledge base (hobbies, family, travels)
are added. Biographies of people absent from the knowledge base are produced
from indices past the knowledge base's end.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from faker import Faker

from sanitizer.kanon.kb import Person
from sanitizer.kanon.synthetic_long import _article, long_biography_of
from sanitizer.kanon.variants import _MONTHS, _read_tsv, country_variants

# Faker locale → ISO country code of the people drawn from it, and its sampling weight.
DEFAULT_LOCALES: tuple[tuple[str, str, float], ...] = (
    ("en_US", "US", 3.0),
    ("en_GB", "GB", 1.5),
    ("pt_PT", "PT", 1.0),
    ("pt_BR", "BR", 1.0),
    ("de_DE", "DE", 1.5),
    ("fr_FR", "FR", 1.5),
    ("it_IT", "IT", 1.2),
    ("es_ES", "ES", 1.2),
    ("nl_NL", "NL", 0.8),
    ("pl_PL", "PL", 0.8),
    ("sv_SE", "SE", 0.6),
    ("tr_TR", "TR", 0.8),
    ("da_DK", "DK", 0.5),
    ("fi_FI", "FI", 0.5),
    ("cs_CZ", "CZ", 0.6),
)
_CHUNK = 8192
_EPOCH = dt.date(1930, 1, 1)
_N_DAYS = (dt.date(2004, 12, 31) - _EPOCH).days
_FIELDS = (
    "Physics",
    "Literature",
    "Journalism",
    "Public Service",
    "Architecture",
    "Music",
    "Medicine",
    "Engineering",
    "Human Rights",
    "Economics",
    "Sport",
    "Film",
)
_HOBBIES = (
    "chess",
    "sailing",
    "gardening",
    "birdwatching",
    "amateur astronomy",
    "marathon running",
    "jazz piano",
    "mountaineering",
    "pottery",
    "photography",
)


def _names(provider: Any, attr: str) -> list[str]:
    val = getattr(provider, attr, None)
    if not val:
        return []
    return list(val.keys()) if isinstance(val, dict) else list(val)


def _cities(fake: Any, n: int) -> list[str]:
    """``n`` draws of city names, sorted and de-duplicated.

    Some Faker locales (it_IT) build their fixed city list from a set, so its order
    and hence ``fake.city()`` depend on the process's hash seed; drawing from the
    sorted list keeps the generator deterministic across processes.
    """
    fixed = next(
        (p.cities for p in fake.providers if isinstance(getattr(p, "cities", None), list | tuple)),
        None,
    )
    if fixed:
        pool = sorted(set(fixed))
        return sorted({pool[fake.random_int(0, len(pool) - 1)] for _ in range(n)})
    return sorted({fake.city() for _ in range(n)})


@dataclass
class _LocalePool:
    country: str
    country_name: str
    nationality: str
    male: list[str]
    female: list[str]
    last: list[str]
    cities: list[str]


class SyntheticPeople:
    """Deterministic generator of synthetic people (see module docstring)."""

    def __init__(
        self,
        seed: int = 0,
        locales: tuple[tuple[str, str, float], ...] = DEFAULT_LOCALES,
        cities_per_locale: int = 120,
        companies: int = 3000,
    ) -> None:
        self.seed = seed
        self.locales = locales
        self.cities_per_locale = cities_per_locale
        self.n_companies = companies

    # ------------------------------------------------------------------ pools

    @cached_property
    def pools(self) -> list[_LocalePool]:
        """Per-locale name and city pools (built once, seeded)."""
        out: list[_LocalePool] = []
        for i, (locale, country, _w) in enumerate(self.locales):
            fake = Faker(locale)
            fake.seed_instance(self.seed * 7919 + i)
            person = next(p for p in fake.providers if hasattr(p, "last_names"))
            male = _names(person, "first_names_male") or _names(person, "first_names")
            female = _names(person, "first_names_female") or _names(person, "first_names")
            last = _names(person, "last_names")
            if len(last) < 20:  # some locales (e.g. pl_PL) only list gendered surnames
                last = sorted(
                    set(last)
                    | set(_names(person, "last_names_male"))
                    | set(_names(person, "last_names_female"))
                )
            cities = _cities(fake, self.cities_per_locale)
            variants = country_variants(country)
            names = [v for v in variants if v[0].isupper()]
            country_name = _preferred_country_name(country, names)
            nationality = _demonym(country)
            out.append(_LocalePool(country, country_name, nationality, male, female, last, cities))
        return out

    @cached_property
    def companies(self) -> list[str]:
        """Employer pool."""
        fake = Faker([loc for loc, _c, _w in self.locales])
        fake.seed_instance(self.seed * 104729 + 1)
        return sorted({fake.company() for _ in range(self.n_companies)})

    @cached_property
    def occupations(self) -> list[tuple[str, list[str]]]:
        """``(knowledge-base form, synonyms)`` pairs from the packaged vocabulary."""
        return [
            (row[0], row[1].split("|") if len(row) > 1 else [])
            for row in _read_tsv("occupations.tsv")
        ]

    @cached_property
    def schools(self) -> list[str]:
        """Universities and institutes named after pool cities and surnames."""
        rng = random.Random(self.seed * 31 + 5)
        out: set[str] = set()
        for pool in self.pools:
            for city in rng.sample(pool.cities, min(12, len(pool.cities))):
                out.add(f"University of {city}")
            for name in rng.sample(pool.last, min(4, len(pool.last))):
                out.add(f"{name} Institute of Technology")
        return sorted(out)

    @cached_property
    def awards(self) -> list[str]:
        """Award names built from surnames and fields."""
        rng = random.Random(self.seed * 37 + 11)
        out: set[str] = set()
        lasts = [n for p in self.pools for n in p.last]
        while len(out) < 400:
            field = rng.choice(_FIELDS)
            out.add(
                rng.choice(
                    [
                        f"{rng.choice(lasts)} Prize for {field}",
                        f"{rng.choice(lasts)} Medal",
                        f"National {field} Award",
                        f"{rng.choice(lasts)} Award in {field}",
                    ]
                )
            )
        return sorted(out)

    # ------------------------------------------------------------------ people

    def _chunk(self, c: int) -> list[dict[str, Any]]:
        pools = self.pools
        rng = np.random.default_rng([self.seed, c])
        n = _CHUNK
        weights = np.asarray([w for _l, _c, w in self.locales], dtype=float)
        loc = rng.choice(len(pools), size=n, p=weights / weights.sum())
        female = rng.random(n) < 0.5
        u = rng.random((n, 16))
        day = rng.integers(0, _N_DAYS, size=n)
        n_occ = len(self.occupations)
        companies, schools, awards = self.companies, self.schools, self.awards
        out: list[dict[str, Any]] = []
        for j in range(n):
            pool = pools[loc[j]]
            r = u[j]
            firsts = pool.female if female[j] else pool.male
            first = firsts[int(r[0] * len(firsts))]
            middle = firsts[int(r[1] * len(firsts))] if r[2] < 0.3 else None
            last = pool.last[int(r[3] * len(pool.last))]
            if r[4] < 0.15:
                last = f"{pool.last[int(r[5] * len(pool.last))]} {last}"
            name = " ".join(x for x in (first, middle, last) if x)
            born = _EPOCH + dt.timedelta(days=int(day[j]))
            attrs: dict[str, list[str]] = {
                "sex or gender": ["female" if female[j] else "male"],
                "date of birth": [born.isoformat()],
                "place of birth": [pool.cities[int(r[6] * len(pool.cities))]],
                "country of citizenship": [pool.country_name],
                "occupation": [self.occupations[int(r[7] * n_occ)][0]],
                "employer": [companies[int(r[8] * len(companies))]],
            }
            if r[9] < 0.6:
                attrs["educated at"] = [schools[int(r[10] * len(schools))]]
            if r[11] < 0.2:
                attrs["award received"] = [awards[int(r[12] * len(awards))]]
            if r[13] < 0.4:
                spouse_pool = pool.male if female[j] else pool.female
                attrs["spouse"] = [f"{spouse_pool[int(r[14] * len(spouse_pool))]} {last}"]
            if r[15] < 0.5:
                other = pools[int(r[15] * 2 * len(pools)) % len(pools)]
                attrs["residence"] = [other.cities[int(r[1] * len(other.cities))]]
            out.append(
                {
                    "name": name,
                    "first": first,
                    "last": last,
                    "female": bool(female[j]),
                    "attributes": attrs,
                }
            )
        return out

    def people(self, start: int, stop: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """Raw records of people ``start`` … ``stop - 1`` as ``(index, record)``."""
        c = start // _CHUNK
        while c * _CHUNK < stop:
            chunk = self._chunk(c)
            lo = max(start, c * _CHUNK)
            hi = min(stop, (c + 1) * _CHUNK)
            for i in range(lo, hi):
                yield i, chunk[i - c * _CHUNK]
            c += 1

    @staticmethod
    def person_id(i: int) -> str:
        """External id of person ``i``."""
        return f"SP{i:08d}"

    def to_person(self, i: int, rec: dict[str, Any]) -> Person:
        """The knowledge-base :class:`Person` of record ``rec``."""
        return Person(
            self.person_id(i), rec["name"], [], {k: list(v) for k, v in rec["attributes"].items()}
        )

    # ------------------------------------------------------------------ biographies

    def biography(self, i: int, rec: dict[str, Any], style: str = "short") -> str:
        """A biography of record ``rec`` (deterministic in ``seed``, ``i`` and ``style``).

        ``style`` is ``"short"`` (the original templates) or ``"long"`` (120–180 words,
        other templates and phrasings: :mod:`sanitizer.kanon.synthetic_long`).
        """
        if style == "long":
            return long_biography_of(self, i, rec)
        if style != "short":
            raise ValueError(f"unknown biography style {style!r} (known: short, long)")
        rng = random.Random(self.seed * 1_000_003 + i)
        a = rec["attributes"]
        first, last, name = rec["first"], rec["last"], rec["name"]
        he, his = ("She", "Her") if rec["female"] else ("He", "His")
        mention = rng.choice([name, name, f"{first} {last}", f"{first[0]}. {last}"])
        born = dt.date.fromisoformat(a["date of birth"][0])
        date_txt = _date_prose(born, rng)
        pool_by_country = {p.country_name: p for p in self.pools}
        pool = pool_by_country.get(a["country of citizenship"][0])
        occ_kb = a["occupation"][0]
        synonyms = dict(self.occupations).get(occ_kb, [])
        occ = rng.choice(synonyms) if synonyms and rng.random() < 0.35 else occ_kb
        nat = pool.nationality if pool else ""
        country = pool.country_name if pool else ""
        place = a["place of birth"][0]

        a_nat_occ = _article(f"{nat} {occ}" if nat else occ)
        a_occ = _article(occ)
        opening = rng.choice(
            [
                f"{mention} (born {date_txt}) is {a_nat_occ}.",
                f"{mention} is {a_occ} from {country}.",
                f"{mention}, born in {place} on {date_txt}, is {a_nat_occ}.",
                f"{mention} (born {date_txt} in {place}) is {a_occ}.",
                f"Born in {born.year}, {mention} works as {a_occ}.",
            ]
        )
        body: list[str] = []
        later = rng.choice([last, last, he])
        if "born in" not in opening and "in " + place not in opening and rng.random() < 0.7:
            body.append(rng.choice([f"{he} grew up in {place}.", f"{later} was born in {place}."]))
        if rng.random() < 0.75:
            body.append(
                rng.choice(
                    [
                        f"{later} works for {a['employer'][0]}.",
                        f"{he} joined {a['employer'][0]} in {_year(born, rng, 22, 35)}.",
                        f"{his} employer is {a['employer'][0]}.",
                    ]
                )
            )
        if "educated at" in a and rng.random() < 0.7:
            body.append(
                rng.choice(
                    [
                        f"{he} graduated from the {a['educated at'][0]}.",
                        f"{later} studied at the {a['educated at'][0]}.",
                    ]
                )
            )
        if "award received" in a and rng.random() < 0.8:
            body.append(
                f"In {_year(born, rng, 28, 45)}, {last} received the {a['award received'][0]}."
            )
        if "spouse" in a and rng.random() < 0.6:
            body.append(
                rng.choice(
                    [f"{he} is married to {a['spouse'][0]}.", f"{his} spouse is {a['spouse'][0]}."]
                )
            )
        if "residence" in a and rng.random() < 0.6:
            body.append(
                rng.choice(
                    [
                        f"{he} lives in {a['residence'][0]}.",
                        f"{later} is now based in {a['residence'][0]}.",
                    ]
                )
            )
        # Facts that no knowledge base holds for this person.
        if rng.random() < 0.5:
            body.append(f"{he} is known for {his.lower()} interest in {rng.choice(_HOBBIES)}.")
        if rng.random() < 0.3:
            body.append(f"{he} has {rng.choice(['two', 'three', 'four'])} children.")
        if rng.random() < 0.3:
            far = rng.choice(self.pools)
            body.append(
                f"{he} spent a year in {rng.choice(far.cities)} in {_year(born, rng, 18, 30)}."
            )
        rng.shuffle(body)
        return " ".join([opening, *body])

    def document(
        self, i: int, rec: dict[str, Any], in_kb: bool, style: str = "short"
    ) -> dict[str, Any]:
        """A TAB-format document about record ``rec``; ``target`` is the profile id."""
        return {
            "doc_id": f"synth-{i:08d}",
            "text": self.biography(i, rec, style),
            "target": self.person_id(i),
            "annotations": {},
            "task": f"Task: Annotate the document to anonymise the following person: {rec['name']}",
            "meta": {"applicant": rec["name"], "person_id": self.person_id(i), "in_kb": in_kb},
            "dataset_type": "synthetic",
        }


def _preferred_country_name(code: str, names: list[str]) -> str:
    import pycountry

    c = pycountry.countries.get(alpha_2=code)
    if c is None:
        return names[0] if names else code
    return str(getattr(c, "common_name", None) or c.name)


def _demonym(code: str) -> str:
    for row in _read_tsv("demonyms.tsv"):
        if row[0] == code:
            return row[1].split("|")[0]
    return ""


def _year(born: dt.date, rng: random.Random, lo: int, hi: int) -> int:
    return min(2024, born.year + rng.randint(lo, hi))


def _date_prose(d: dt.date, rng: random.Random) -> str:
    month = _MONTHS[d.month - 1]
    return rng.choice(
        [
            f"{d.day} {month} {d.year}",
            f"{month} {d.day}, {d.year}",
            f"{month} {d.year}",
            str(d.year),
        ]
    )


@dataclass(frozen=True)
class GeneratedDataset:
    """Paths and counts of a generated data set."""

    kb_path: Path
    docs_path: Path
    n_people: int
    n_docs_in_kb: int
    n_docs_outside: int


def generate_dataset(
    out_dir: str | os.PathLike[str],
    n_people: int,
    n_docs: int,
    n_docs_outside: int = 0,
    seed: int = 0,
    generator: SyntheticPeople | None = None,
    progress: Callable[[int, int | None, str], None] | None = None,
    style: str = "short",
) -> GeneratedDataset:
    """Write ``kb.jsonl`` (``n_people`` profiles) and ``docs.json`` (TAB format).

    ``n_docs`` biographies are about people drawn from the knowledge base and
    ``n_docs_outside`` about people who are not in it. Streaming: only the
    sampled people's records are kept in memory. ``style`` picks the biography
    templates (``"short"`` or ``"long"``, see :meth:`SyntheticPeople.biography`).
    """
    gen = generator or SyntheticPeople(seed)
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    picker = np.random.default_rng([seed, 2**31 - 1])
    n_docs = min(n_docs, n_people)
    chosen = set(picker.choice(n_people, size=n_docs, replace=False).tolist()) if n_docs else set()
    docs: list[dict[str, Any]] = []
    kb_path = d / "kb.jsonl"
    with open(kb_path, "w", encoding="utf-8") as fh:
        for i, rec in gen.people(0, n_people):
            fh.write(
                json.dumps(
                    {
                        "id": gen.person_id(i),
                        "name": rec["name"],
                        "aliases": [],
                        "attributes": rec["attributes"],
                    },
                    ensure_ascii=False,
                )
            )
            fh.write("\n")
            if i in chosen:
                docs.append(gen.document(i, rec, in_kb=True, style=style))
            if progress is not None and (i + 1) % 100_000 == 0:
                progress(i + 1, n_people, "people written")
    for i, rec in gen.people(n_people, n_people + n_docs_outside):
        docs.append(gen.document(i, rec, in_kb=False, style=style))
    docs_path = d / "docs.json"
    with open(docs_path, "w", encoding="utf-8") as fh:
        json.dump(docs, fh, ensure_ascii=False, indent=0)
    return GeneratedDataset(kb_path, docs_path, n_people, n_docs, n_docs_outside)
