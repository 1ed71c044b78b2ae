"""The release function: replacement styles, numbered placeholders per entity and the
placeholders' offsets (no database)."""

from __future__ import annotations

import pytest

from sanitizer.formats.release import (
    REPLACEMENT_STYLES,
    Placeholder,
    normalised_surface,
    release,
    release_text,
)

TEXT = "Anna Berg met Per Olsen in Oslo on 3 May 2001."
SPANS = [(0, 9, "PERSON"), (14, 23, "PERSON"), (27, 31, "LOC")]


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("stars", "*** met *** in *** on 3 May 2001."),
        ("mask", "[MASK] met [MASK] in [MASK] on 3 May 2001."),
        ("type", "[PERSON] met [PERSON] in [LOC] on 3 May 2001."),
        ("numbered", "[PERSON 1] met [PERSON 2] in [LOC 1] on 3 May 2001."),
    ],
)
def test_release_text_styles(style, expected):
    assert release_text(TEXT, SPANS, style) == expected


def test_the_four_styles_are_offered():
    assert REPLACEMENT_STYLES == ("stars", "mask", "type", "numbered")


def test_release_text_default_style_is_type_and_order_does_not_matter():
    assert release_text(TEXT, list(reversed(SPANS))) == release_text(TEXT, SPANS, "type")


def test_overlapping_spans_become_one_region_with_the_first_type():
    spans = [(35, 45, "DATETIME"), (37, 40, "MISC"), (39, 46, "QUANTITY")]
    assert release_text(TEXT, spans, "type") == "Anna Berg met Per Olsen in Oslo on [DATETIME]"
    assert (
        release_text(TEXT, spans, "numbered") == "Anna Berg met Per Olsen in Oslo on [DATETIME 1]"
    )


def test_touching_spans_stay_two_replacements():
    assert release_text("abcdef", [(0, 3, "A"), (3, 6, "B")], "type") == "[A][B]"


def test_release_text_without_spans_and_unknown_style():
    assert release_text(TEXT, [], "stars") == TEXT
    assert release(TEXT, [], "numbered").placeholders == []
    with pytest.raises(ValueError, match="unknown replacement style"):
        release_text(TEXT, SPANS, "blur")


# --- numbered placeholders --------------------------------------------------------------

STORY = "Anna Berg met Per Olsen. Later Ms Berg and Mr Olsen left; anna  berg stayed."
#        0         1         2         3         4         5         6         7
#        0123456789012345678901234567890123456789012345678901234567890123456789012345


def at(word: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = STORY.index(word, start + 1)
    return start, start + len(word)


def test_mentions_of_one_entity_id_share_a_number_in_order_of_first_appearance():
    spans = [
        (*at("Anna Berg"), "PERSON", "anna"),
        (*at("Per Olsen"), "PERSON", "per"),
        (*at("Ms Berg"), "PERSON", "anna"),
        (*at("Mr Olsen"), "PERSON", "per"),
    ]
    assert release_text(STORY, spans, "numbered") == (
        "[PERSON 1] met [PERSON 2]. Later [PERSON 1] and [PERSON 2] left; anna  berg stayed."
    )


def test_unlinked_mentions_with_the_same_normalised_text_share_a_number():
    spans = [
        (*at("Anna Berg"), "PERSON"),
        (*at("Per Olsen"), "PERSON"),
        (*at("anna  berg"), "PERSON"),
    ]
    released = release_text(STORY, spans, "numbered")
    assert (
        released == "[PERSON 1] met [PERSON 2]. Later Ms Berg and Mr Olsen left; [PERSON 1] stayed."
    )


def test_an_unlinked_mention_joins_the_one_linked_entity_with_its_text():
    spans = [
        (*at("Per Olsen"), "PERSON", ""),
        (*at("Anna Berg"), "PERSON", "anna"),
        (*at("Ms Berg"), "PERSON", "anna"),
        (*at("anna  berg"), "PERSON", ""),
    ]
    assert release_text(STORY, spans, "numbered") == (
        "[PERSON 1] met [PERSON 2]. Later [PERSON 1] and Mr Olsen left; [PERSON 1] stayed."
    )


def test_a_text_shared_by_two_linked_entities_stays_unlinked():
    # "X" is the surface of two different entities: an unlinked "X" belongs to neither.
    text = "X and X and X."
    spans = [(0, 1, "PERSON", "a"), (6, 7, "PERSON", "b"), (12, 13, "PERSON", "")]
    assert release_text(text, spans, "numbered") == "[PERSON 1] and [PERSON 2] and [PERSON 3]."


def test_numbers_count_per_type_and_the_same_id_of_two_types_is_two_entities():
    text = "Oslo, Acme and Oslo."
    spans = [(0, 4, "LOC", "e1"), (6, 10, "ORG", "e2"), (15, 19, "ORG", "e1")]
    assert release_text(text, spans, "numbered") == "[LOC 1], [ORG 1] and [ORG 2]."


def test_normalised_surface():
    assert normalised_surface("  Anna\n\tBERG ") == "anna berg"
    assert normalised_surface("Ａｎｎａ") == "anna"  # full-width letters (NFKC)


# --- placeholder offsets ----------------------------------------------------------------


@pytest.mark.parametrize("style", REPLACEMENT_STYLES)
def test_placeholders_point_at_their_text_in_the_release(style):
    text = "Ünïcode 😀 Anna met Anna in Oslo."
    spans = [(10, 14, "PERSON", "a"), (19, 23, "PERSON", "a"), (27, 31, "LOC", "")]
    result = release(text, spans, style)
    assert [(p.source_start, p.source_end) for p in result.placeholders] == [
        (10, 14),
        (19, 23),
        (27, 31),
    ]
    labels = [result.text[p.start : p.end] for p in result.placeholders]
    expected = {
        "stars": ["***"] * 3,
        "mask": ["[MASK]"] * 3,
        "type": ["[PERSON]", "[PERSON]", "[LOC]"],
        "numbered": ["[PERSON 1]", "[PERSON 1]", "[LOC 1]"],
    }[style]
    assert labels == expected
    # Outside the placeholders the released text is the original text, in order.
    kept, cursor = [], 0
    for p in result.placeholders:
        kept.append(result.text[cursor : p.start])
        cursor = p.end
    kept.append(result.text[cursor:])
    assert kept == ["Ünïcode 😀 ", " met ", " in ", "."]


def test_placeholder_records_type_and_number():
    result = release(TEXT, SPANS, "numbered")
    assert result.placeholders[1] == Placeholder(15, 25, 14, 23, "PERSON", 2)
    assert release(TEXT, SPANS, "type").placeholders[1].number is None
