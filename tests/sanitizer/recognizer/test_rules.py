"""The ``rules`` component on small hand-checked texts."""

from __future__ import annotations

import pytest

from sanitizer.recognizer.components.rules import Rule, extend_address, make_rules

RULES = make_rules()


def matches(text: str) -> set[tuple[str, str, str]]:
    return {(s.text, s.label, s.attrs["rule"]) for s in RULES(text, None)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Application no. 36110/97 was lodged", ("36110/97", "CODE", "application_number")),
        ("write to anna.kowalska@example.org now", ("anna.kowalska@example.org", "CODE", "email")),
        (
            "IBAN DE89 3704 0044 0532 0130 00 is hers",
            ("DE89 3704 0044 0532 0130 00", "CODE", "iban"),
        ),
        ("SSN 078-05-1120.", ("078-05-1120", "CODE", "ssn")),
        ("from 192.168.0.1 yesterday", ("192.168.0.1", "CODE", "ipv4")),
        ("see https://www.example.com/a?b=1.", ("https://www.example.com/a?b=1", "CODE", "url")),
        ("visit WholePrices.ch today", ("WholePrices.ch", "CODE", "domain")),
        ("card 4111 1111 1111 1111 expired", ("4111 1111 1111 1111", "CODE", "card_number")),
        ("call +44 20 7946 0958 today", ("+44 20 7946 0958", "CODE", "phone")),
        ("born on 5 August 1992 in", ("5 August 1992", "DATETIME", "date_day_month_year")),
        ("on August 5, 1992 he", ("August 5, 1992", "DATETIME", "date_month_day_year")),
        ("dated 1992-08-05.", ("1992-08-05", "DATETIME", "iso_datetime")),
        ("moved in 1992 to", ("1992", "DATETIME", "year")),
        ("served three years in", ("three years", "DATETIME", "duration")),
        ("retired at the age of 54", ("54", "DEM", "age_aged")),
        ("a 36 year old man", ("36", "DEM", "age_years_old")),
        ("pay EUR 3,000 in damages", ("EUR 3,000", "QUANTITY", "money_code_before")),
        ("a rate of 15% was", ("15%", "QUANTITY", "percent")),
        ("SEK 147,000 or 15,800 euros", ("15,800 euros", "QUANTITY", "money_after")),
        ("London SW1A 1AA is", ("SW1A 1AA", "LOC", "postcode_uk")),
        ("Mr. Matthews grew up", ("Matthews", "PERSON", "honorific_name")),
    ],
)
def test_rule_finds(text: str, expected: tuple[str, str, str]) -> None:
    assert expected in matches(text)


def test_age_rule_does_not_fire_on_durations() -> None:
    assert not {m for m in matches("he stayed 3 years in prison") if m[1] == "DEM"}


def test_phone_rule_rejects_iso_dates_and_short_numbers() -> None:
    phones = {m[0] for m in matches("on 1992-08-05 room 12 34") if m[2] == "phone"}
    assert phones == set()


def test_address_grows_over_city_and_postcode() -> None:
    text = "I live at 692 Kuuse 53 Apt. 641, Grubbenvorst, Netherlands 04020. Call me."
    spans = {m[0] for m in matches(text) if m[2] == "street_number_words_number"}
    assert spans == {"692 Kuuse 53 Apt. 641, Grubbenvorst, Netherlands 04020"}


def test_address_block_over_lines_stops_at_running_text() -> None:
    text = "Suite 932\nTallinn\n93318\nPlease send it there."
    end = extend_address(text, len("Suite 932"))
    assert text[:end] == "Suite 932\nTallinn\n93318"


def test_street_with_suffix_and_foreign_street() -> None:
    found = matches("at 224 Bond Street and at Koskikatu 25 and at ul. Biskupa Bogedaina 118")
    texts = {m[0] for m in found if m[1] == "LOC"}
    assert {"224 Bond Street", "Koskikatu 25", "ul. Biskupa Bogedaina 118"} <= texts


def test_custom_rules_and_exclusion() -> None:
    only = make_rules(rules=[Rule("flight", "CODE", r"\b[A-Z]{2}\d{3,4}\b")])
    assert [(s.text, s.label) for s in only("flight LH3042 left", None)] == [("LH3042", "CODE")]
    no_year = make_rules(exclude=["year"])
    assert not [s for s in no_year("in 1992 he", None) if s.attrs["rule"] == "year"]


def test_unknown_rule_label_is_rejected() -> None:
    with pytest.raises(ValueError):
        Rule("x", "EMAIL", r"x")
