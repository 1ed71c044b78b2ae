"""The "long" biography style, the documents' ``target`` field and the unchanged short style."""

import hashlib
import json
from pathlib import Path

import pytest

from sanitizer.kanon.synthetic import SyntheticPeople, generate_dataset

# sha256 of the first 200 short biographies (seeds 0 and 2) as generated before the long
# style existed: other benchmarks and fixtures depend on them staying byte-identical.
SHORT_SHA256 = {
    0: "fc206eaf723b6e0d9ad117519172650b885c19e77553f9cd3ffee9a23b2e08db",
    2: "ab6e3b645fb3c6aa51f8a66a71267c67a5a15a108afb2db5c2323cd01f20cb06",
}


@pytest.mark.parametrize("seed", sorted(SHORT_SHA256))
def test_short_style_is_unchanged_and_the_default(seed: int) -> None:
    gen = SyntheticPeople(seed)
    recs = list(gen.people(0, 200))
    text = "\n".join(gen.biography(i, r) for i, r in recs)
    assert hashlib.sha256(text.encode()).hexdigest() == SHORT_SHA256[seed]
    assert gen.biography(5, recs[5][1], "short") == gen.biography(5, recs[5][1])


def test_long_biographies_are_long_named_and_deterministic() -> None:
    gen = SyntheticPeople(2)
    recs = list(gen.people(0, 300))
    longs = [gen.biography(i, r, style="long") for i, r in recs]
    lengths = [len(b.split()) for b in longs]
    assert min(lengths) >= 120 and max(lengths) <= 185
    for (i, r), b in zip(recs, longs, strict=True):
        assert r["last"] in b and r["first"] in b
        assert b != gen.biography(i, r)
    again = SyntheticPeople(2)
    assert [again.biography(i, r, "long") for i, r in recs[:20]] == longs[:20]
    other = SyntheticPeople(5)
    assert other.biography(0, recs[0][1], "long") != longs[0]


def test_long_style_uses_other_phrasings() -> None:
    gen = SyntheticPeople(0)
    recs = list(gen.people(0, 300))
    longs = " ".join(gen.biography(i, r, "long") for i, r in recs)
    shorts = " ".join(gen.biography(i, r) for i, r in recs)
    for phrase in ("a native of", "in the year", "on the staff of", "(born"):
        assert (phrase in longs) != (phrase in shorts)
    # ISO dates from the knowledge base are never written verbatim
    assert not any(r["attributes"]["date of birth"][0] in longs for _i, r in recs)


def test_unknown_style_is_refused() -> None:
    gen = SyntheticPeople(0)
    i, rec = next(gen.people(0, 1))
    with pytest.raises(ValueError, match="style"):
        gen.biography(i, rec, "medium")


def test_documents_carry_the_target_and_the_style(tmp_path: Path) -> None:
    ds = generate_dataset(tmp_path, n_people=50, n_docs=5, n_docs_outside=1, seed=1, style="long")
    docs = json.loads(ds.docs_path.read_text())
    gen = SyntheticPeople(1)
    recs = dict(gen.people(0, 51))
    for d in docs:
        assert d["target"] == d["meta"]["person_id"]
        i = int(d["target"].removeprefix("SP"))
        assert d["text"] == gen.biography(i, recs[i], "long")
