"""Linguistic variants and normalisation."""

from sanitizer.kanon.kb import Person
from sanitizer.kanon.variants import (
    TermExtractor,
    country_variants,
    date_variants,
    name_variants,
    normalize,
)


def test_date_variants_as_prose_writes_them() -> None:
    assert date_variants("1992-08-05") == [
        "5 August 1992",
        "August 5, 1992",
        "August 5 1992",
        "August 1992",
        "1992",
    ]
    # Wikidata time strings and reduced precision
    assert date_variants("+1992-08-00T00:00:00Z") == ["August 1992", "1992"]
    assert date_variants("1992") == ["1992"]
    assert date_variants("Lisbon") == []
    assert date_variants("1992-13-01") == []


def test_name_parts_and_initials() -> None:
    v = name_variants("Leandro Micael Gomes Albano")
    for expected in ("Leandro Albano", "L. Albano", "Albano", "Leandro Micael Gomes Albano"):
        assert expected in v
    assert "Leandro" in v and "Micael" in v and "Gomes" in v
    assert "L. M. G. Albano" in v
    assert name_variants("Madonna") == ["Madonna"]
    particles = name_variants("Ludwig van Beethoven")
    assert "van Beethoven" in particles and "Beethoven" in particles
    assert "L. van Beethoven" in particles


def test_nationality_and_country_names() -> None:
    greece = set(country_variants("Greece"))
    assert {"Greece", "Hellenic Republic", "Greek"} <= greece
    assert set(country_variants("Hellenic Republic")) == greece
    assert set(country_variants("greek")) == greece
    assert "Austria" in country_variants("Austrian")
    # a demonym shared by two countries does not pick one of them
    assert country_variants("Dominican") == ["dominican"]
    assert country_variants("Lisbon") == []


def test_normalize_is_case_and_space_insensitive() -> None:
    assert normalize("  Leandro \n ALBANO ") == "leandro albano"
    assert normalize("O\u2019Brien") == "o'brien"


def test_extractor_applies_variants_and_stop_list() -> None:
    person = Person(
        "Q1",
        "Leandro Micael Gomes Albano",
        [],
        {
            "date of birth": ["1992-08-05"],
            "country of citizenship": ["Portugal"],
            "sex or gender": ["male"],
            "place of birth": ["Lisbon"],
        },
    )
    terms = TermExtractor().terms(person)
    for t in (
        "leandro albano",
        "l. albano",
        "albano",
        "5 august 1992",
        "august 5, 1992",
        "august 1992",
        "1992",
        "portuguese",
        "portugal",
        "lisbon",
    ):
        assert t in terms
    assert "male" not in terms  # generic term on the stop list
    custom = TermExtractor(stop_terms=frozenset({"lisbon"}))
    assert "lisbon" not in custom.terms(person)
    assert "male" in custom.terms(person)
