"""Synthetic people and biographies: determinism, mismatch with the KB, TAB format."""

import json
from pathlib import Path

from sanitizer.kanon.synthetic import SyntheticPeople, generate_dataset

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "distant"


def test_people_are_deterministic_and_chunk_independent() -> None:
    gen = SyntheticPeople(seed=3)
    whole = dict(gen.people(0, 40))
    part = dict(SyntheticPeople(seed=3).people(25, 30))
    assert part == {i: whole[i] for i in range(25, 30)}
    assert dict(SyntheticPeople(seed=4).people(0, 40)) != whole
    assert gen.biography(7, whole[7]) == SyntheticPeople(seed=3).biography(7, whole[7])


def test_generate_dataset_is_reproducible(tmp_path: Path) -> None:
    a = generate_dataset(tmp_path / "a", n_people=300, n_docs=10, n_docs_outside=4, seed=1)
    b = generate_dataset(tmp_path / "b", n_people=300, n_docs=10, n_docs_outside=4, seed=1)
    assert a.kb_path.read_bytes() == b.kb_path.read_bytes()
    assert a.docs_path.read_bytes() == b.docs_path.read_bytes()
    kb_lines = a.kb_path.read_text().splitlines()
    assert len(kb_lines) == 300
    kb_ids = {json.loads(line)["id"] for line in kb_lines}
    docs = json.loads(a.docs_path.read_text())
    assert len(docs) == 14
    inside = [d for d in docs if d["meta"]["in_kb"]]
    outside = [d for d in docs if not d["meta"]["in_kb"]]
    assert len(inside) == 10 and len(outside) == 4
    assert all(d["meta"]["person_id"] in kb_ids for d in inside)
    assert not any(d["meta"]["person_id"] in kb_ids for d in outside)
    for d in docs:
        assert set(d) >= {"doc_id", "text", "annotations", "task", "meta", "dataset_type"}
        assert d["annotations"] == {}
        assert d["meta"]["applicant"] in d["task"]


def test_biographies_paraphrase_the_knowledge_base() -> None:
    gen = SyntheticPeople(seed=0)
    records = list(gen.people(0, 300))
    bios = [gen.biography(i, r) for i, r in records]
    # not every biography starts with the full KB name, and some use a synonym occupation
    assert sum(b.startswith(r["name"]) for b, (_i, r) in zip(bios, records, strict=True)) < 300
    assert any(
        r["attributes"]["occupation"][0] not in b for b, (_i, r) in zip(bios, records, strict=True)
    )
    # ISO dates from the KB never appear verbatim: prose formats are used
    assert not any(
        r["attributes"]["date of birth"][0] in b for b, (_i, r) in zip(bios, records, strict=True)
    )


def test_fixture_set_matches_generator() -> None:
    kb = (FIXTURES / "kb.jsonl").read_text().splitlines()
    docs = json.loads((FIXTURES / "docs.json").read_text())
    assert len(kb) == 2000 and len(docs) == 50
    gen = SyntheticPeople(seed=0)
    first = next(gen.people(0, 1))[1]
    assert json.loads(kb[0])["name"] == first["name"]
    total = sum(p.stat().st_size for p in FIXTURES.iterdir())
    assert total < 2 * 2**20


def test_generator_does_not_depend_on_the_hash_seed() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import hashlib, json\n"
        "from sanitizer.kanon.synthetic import SyntheticPeople\n"
        "sp = SyntheticPeople(seed=3)\n"
        "recs = list(sp.people(0, 400))\n"
        "docs = [sp.document(i, r, True) for i, r in recs[:100]]\n"
        "blob = json.dumps([recs, docs], default=str, sort_keys=True)\n"
        "print(hashlib.md5(blob.encode()).hexdigest())\n"
    )
    repo = Path(__file__).resolve().parents[3]
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=repo,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert len(digests) == 1
