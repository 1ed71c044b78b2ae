"""The "long" biography style of :class:`sanitizer.kanon.synthetic.SyntheticPeople`.

120–180 words in a register the "short" style never uses: the story runs from childhood
to the present, facts are phrased differently ("the year 1987", "a native of Braga",
"on the staff of X"), and more than half of the text is filler that no knowledge base
holds. Models trained on short biographies meet these templates only at evaluation
(the "unseen templates" check of issue 11).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

from sanitizer.kanon.variants import _MONTHS

# The season of each month (northern hemisphere).
_SEASONS: tuple[str, ...] = ("winter", "winter", "spring", "spring", "spring", "summer")
_SEASONS += ("summer", "summer", "autumn", "autumn", "autumn", "winter")
_PASTIMES = (
    "restoring old bicycles",
    "cooking for friends",
    "long-distance cycling",
    "collecting vintage maps",
    "amateur theatre",
    "cold-water swimming",
    "woodworking",
    "reading crime novels",
    "choir singing",
    "baking bread",
)
_TRAITS = ("meticulous", "generous", "patient", "outspoken", "curious", "quietly determined")


def _article(phrase: str) -> str:
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _long_date(d: dt.date, rng: random.Random) -> str:
    month = _MONTHS[d.month - 1]
    return rng.choice(
        [
            f"in the year {d.year}",
            f"in the {_SEASONS[d.month - 1]} of {d.year}",
            f"on the {_ordinal(d.day)} of {month}, {d.year}",
            f"in {month} of {d.year}",
        ]
    )


def long_biography(
    rec: dict[str, Any],
    rng: random.Random,
    *,
    nationality: str,
    country: str,
    occupation: str,
    far_cities: Callable[[], str],
) -> str:
    """A 120–180 word biography of ``rec`` (see module docstring)."""
    a = rec["attributes"]
    first, last, name = rec["first"], rec["last"], rec["name"]
    he, his, him = ("she", "her", "her") if rec["female"] else ("he", "his", "him")
    He, His = he.capitalize(), his.capitalize()
    mention = rng.choice([name, name, f"{first} {last}"])
    born = dt.date.fromisoformat(a["date of birth"][0])
    when = _long_date(born, rng)
    place = a["place of birth"][0]
    occ = occupation
    nat = f"{nationality} " if nationality else ""
    trait, other_trait = rng.sample(_TRAITS, 2)

    story: list[str] = [
        rng.choice(
            [
                f"This profile tells the story of {mention}, a native of {place}.",
                f"Few outside {his} field know much about {mention}, who hails from {place}.",
                f"The life of {mention} began in {place}, {when}.",
            ]
        )
    ]
    if when not in story[0]:
        story.append(
            rng.choice(
                [f"{He} came into the world {when}.", f"{His} parents welcomed {him} {when}."]
            )
        )
    story.append(
        rng.choice(
            [
                f"As a child {he} spent long afternoons outdoors and read everything within reach.",
                f"Teachers remember {him} as {_article(trait)} pupil who asked too many questions.",
            ]
        )
    )
    if "educated at" in a and rng.random() < 0.8:
        story.append(
            rng.choice(
                [
                    f"Years at the {a['educated at'][0]} shaped {his} thinking.",
                    f"{He} is an alumnus of the {a['educated at'][0]}."
                    if not rec["female"]
                    else f"{He} is an alumna of the {a['educated at'][0]}.",
                ]
            )
        )
    career = rng.choice(
        [
            f"Today {last} has made a career as {_article(occ)}",
            f"By profession {last} is {_article(nat + occ)}",
            f"{His} working life is that of {_article(occ)}",
        ]
    )
    if rng.random() < 0.85:
        career += rng.choice([f", at {a['employer'][0]}", f", on the staff of {a['employer'][0]}"])
    story.append(career + ".")
    if country and rng.random() < 0.7:
        story.append(
            rng.choice(
                [
                    f"{He} holds {country} citizenship.",
                    f"{He} is a {nat}national." if nat else f"{He} holds {country} citizenship.",
                ]
            )
        )
    if "award received" in a and rng.random() < 0.8:
        story.append(f"Recognition arrived with the {a['award received'][0]}.")
    if "spouse" in a and rng.random() < 0.7:
        story.append(
            rng.choice(
                [
                    f"{He} shares a home with {a['spouse'][0]}.",
                    f"{His} partner is {a['spouse'][0]}.",
                ]
            )
        )
    if "residence" in a and rng.random() < 0.7:
        story.append(
            rng.choice(
                [
                    f"These days {he} calls {a['residence'][0]} home.",
                    f"{He} currently resides in {a['residence'][0]}.",
                ]
            )
        )

    fillers = [
        f"Colleagues describe {him} as {other_trait} and generous with {his} time.",
        f"Outside of work, {he} enjoys {rng.choice(_PASTIMES)} and long walks.",
        f"{He} once spent a whole summer in {far_cities()}, an experience {he} still mentions.",
        f"In interviews {he} often credits an early mentor with {his} choice of path.",
        f"{He} speaks {rng.choice(['two', 'three', 'four'])} languages, not all of them well.",
        f"Friends say that {his} favourite season is {rng.choice(['autumn', 'spring', 'winter'])}.",
        f"{He} volunteers at a local library on some weekends.",
        f"A trip to {far_cities()} left {him} with a lasting love of small museums.",
        f"{He} rarely gives interviews and prefers to let the work speak.",
        f"Former classmates remember {his} habit of carrying a notebook everywhere.",
        f"{He} has {rng.choice(['two', 'three', 'no'])} children and a very old cat.",
        f"Asked about the future, {he} says there is still much to learn.",
    ]
    rng.shuffle(fillers)
    closing = rng.choice(
        [f"{first} {last} remains active today.", f"Such, in brief, is the life of {name}."]
    )
    facts = story[1:]
    target = rng.randint(130, 170)
    used = sum(len(x.split()) for x in [*story, closing])
    chosen: list[str] = []
    for sentence in fillers:  # filler up to the drawn length, never past 180 words
        n = len(sentence.split())
        if used >= target or used + n > 180:
            break
        chosen.append(sentence)
        used += n
    middle = facts + chosen
    rng.shuffle(middle)
    body = [story[0], *middle, closing]
    return " ".join(body)


def long_biography_of(gen: Any, i: int, rec: dict[str, Any]) -> str:
    """The long biography of record ``i`` of ``gen`` (a ``SyntheticPeople``, which calls
    this from ``biography``; typed ``Any`` because that module imports this one)."""
    # A string seed: its own stream, independent of the short style's integer seeds.
    rng = random.Random(f"long:{gen.seed}:{i}")
    a = rec["attributes"]
    pool = {p.country_name: p for p in gen.pools}.get(a["country of citizenship"][0])
    occ_kb = a["occupation"][0]
    synonyms = dict(gen.occupations).get(occ_kb, [])
    occ = rng.choice(synonyms) if synonyms and rng.random() < 0.5 else occ_kb
    return long_biography(
        rec,
        rng,
        nationality=pool.nationality if pool else "",
        country=pool.country_name if pool else "",
        occupation=occ,
        far_cities=lambda: rng.choice(rng.choice(gen.pools).cities),
    )
