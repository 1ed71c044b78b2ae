"""Gazetteer: case-insensitive, token-boundary, leftmost-longest matching."""

from sanitizer.kanon.gazetteer import Gazetteer, GazetteerMatch

GAZ = Gazetteer.from_strings(
    [
        "Lisbon",
        "Leandro Albano",
        "Albano",
        "Freamunde",
        "5 August 1992",
        "August 1992",
        "1992",
        "port",
    ]
)


def spans(text: str) -> list[tuple[str, str]]:
    return [(text[m.start : m.end], m.term) for m in GAZ.find(text)]


def test_longest_match_wins() -> None:
    text = "Leandro Albano was born on 5 August 1992."
    assert spans(text) == [("Leandro Albano", "leandro albano"), ("5 August 1992", "5 august 1992")]


def test_token_boundaries() -> None:
    # "port" inside "Portugal" / "Albanos" must not match; "1992" inside "1992-93" may.
    assert spans("He left Portugal for Albanos in 1992-93.") == [("1992", "1992")]


def test_case_and_whitespace_insensitive_with_original_offsets() -> None:
    text = "LEANDRO\n  albano visited lisbon"
    found = GAZ.find(text)
    assert found == [
        GazetteerMatch(0, 16, "leandro albano"),
        GazetteerMatch(25, 31, "lisbon"),
    ]
    assert text[0:16] == "LEANDRO\n  albano" and text[25:31] == "lisbon"


def test_save_and_load(tmp_path) -> None:
    path = GAZ.save(tmp_path / "gaz.pkl")
    again = Gazetteer.load(path, GAZ.terms)
    text = "From Freamunde to Lisbon."
    assert again.find(text) == GAZ.find(text)
    assert [m.term for m in again.find(text)] == ["freamunde", "lisbon"]
