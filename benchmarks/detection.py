"""Detection benchmark: token-level masking precision/recall and speed of three detectors.

Systems: (a) this recognizer with the mask-all strategy, (b) the bare spaCy model (all its
entities), (c) Presidio's ``AnalyzerEngine`` on the same spaCy model. Datasets: presidio-research's
synthetic sentences (every gold span is PII) and TAB documents (gold = mentions whose
identifier_type is DIRECT or QUASI, any annotator).

Tokens are ``\\w+`` runs. A token is *masked* if any of its characters lies in a predicted span and
*gold* if any lies in a gold span; precision = masked&gold / masked, recall = masked&gold / gold,
pooled over all tokens of the dataset. docs/s is wall time of prediction only (models loaded and
warmed up beforehand), on the whole dataset; datasets under 100 documents are timed ``--repeat``
times and the fastest run is reported.

Usage: ``.venv/bin/python benchmarks/detection.py [--presidio PATH] [--tab PATH] [--limit N]``
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Presidio's e-mail recognizer uses tldextract, whose default extractor downloads the Public
# Suffix List; an empty URL list makes it use the snapshot shipped in the package instead.
os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

import regex

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sanitizer.metrics import Prf
from sanitizer.recognizer import build_recognizer
from sanitizer.recognizer.base import DEFAULT_SPACY_MODEL, load_spacy

TOKEN = regex.compile(r"\w+")
Spans = list[tuple[int, int]]
Detector = Callable[[Sequence[str]], list[Spans]]


def load_presidio_data(path: Path) -> tuple[list[str], list[Spans]]:
    """Texts and gold spans of presidio-research's synthetic dataset."""
    data = json.loads(path.read_text(encoding="utf-8"))
    texts = [d["full_text"] for d in data]
    gold = [[(s["start_position"], s["end_position"]) for s in d["spans"]] for d in data]
    return texts, gold


def load_tab_data(path: Path) -> tuple[list[str], list[Spans]]:
    """Texts and DIRECT/QUASI mention spans (union over annotators) of TAB documents."""
    data = json.loads(path.read_text(encoding="utf-8"))
    texts, gold = [], []
    for doc in data:
        spans: Spans = []
        for ann in doc.get("annotations", {}).values():
            for m in ann.get("entity_mentions", []):
                if m.get("identifier_type") in ("DIRECT", "QUASI"):
                    spans.append((m["start_offset"], m["end_offset"]))
        texts.append(doc["text"])
        gold.append(spans)
    return texts, gold


def token_scores(
    texts: Sequence[str], gold: Sequence[Spans], pred: Sequence[Spans]
) -> tuple[float, float]:
    """Pooled token precision and recall (see module docstring)."""
    tp = n_pred = n_gold = 0
    for text, g_spans, p_spans in zip(texts, gold, pred, strict=True):
        g_mark = bytearray(len(text))
        p_mark = bytearray(len(text))
        for s, e in g_spans:
            g_mark[s:e] = b"\x01" * (e - s)
        for s, e in p_spans:
            p_mark[s:e] = b"\x01" * (e - s)
        for tok in TOKEN.finditer(text):
            is_gold = any(g_mark[tok.start() : tok.end()])
            is_pred = any(p_mark[tok.start() : tok.end()])
            n_gold += is_gold
            n_pred += is_pred
            tp += is_gold and is_pred
    scores = Prf.from_counts(tp, n_pred, n_gold)
    return scores.precision, scores.recall


def recognizer_detector(model: str) -> Detector:
    """(a) this recognizer, mask-all."""
    recognizer = build_recognizer({"spacy_model": model})

    def run(texts: Sequence[str]) -> list[Spans]:
        return [[(s.start, s.end) for s in spans] for spans in recognizer.predict_batch(texts)]

    return run


def spacy_detector(model: str) -> Detector:
    """(b) bare spaCy NER, every entity."""
    nlp = load_spacy(model)

    def run(texts: Sequence[str]) -> list[Spans]:
        return [
            [(e.start_char, e.end_char) for e in doc.ents]
            for doc in nlp.pipe(texts, batch_size=32, disable=["parser", "lemmatizer"])
        ]

    return run


def presidio_detector(model: str) -> Detector:
    """(c) Presidio AnalyzerEngine with the same spaCy model (installed package: no download)."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": model}],
        }
    )
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])

    def run(texts: Sequence[str]) -> list[Spans]:
        return [[(r.start, r.end) for r in engine.analyze(text=t, language="en")] for t in texts]

    return run


def main(argv: Sequence[str] | None = None) -> None:
    """Run every system on every dataset and print one table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--presidio", type=Path, default=Path("/work/shared/data/presidio_synth_dataset_v2.json")
    )
    parser.add_argument("--tab", type=Path, default=Path("/work/shared/data/tab_sample.json"))
    parser.add_argument("--model", default=DEFAULT_SPACY_MODEL)
    parser.add_argument(
        "--limit", type=int, default=0, help="use only the first N docs of each set"
    )
    parser.add_argument("--systems", default="recognizer,spacy,presidio")
    parser.add_argument(
        "--repeat", type=int, default=5, help="timing runs for datasets under 100 documents"
    )
    args = parser.parse_args(argv)

    datasets = {"presidio_synth": load_presidio_data(args.presidio), "tab": load_tab_data(args.tab)}
    if args.limit:
        datasets = {k: (t[: args.limit], g[: args.limit]) for k, (t, g) in datasets.items()}
    factories = {
        "recognizer(mask-all)": recognizer_detector,
        "spacy": spacy_detector,
        "presidio": presidio_detector,
    }
    wanted = set(args.systems.split(","))
    rows = []
    for name, factory in factories.items():
        if name.split("(")[0] not in wanted:
            continue
        detect = factory(args.model)
        detect(["Warm-up sentence by John Smith in Paris on 5 May 2001."])
        for ds_name, (texts, gold) in datasets.items():
            # Small sets are timed several times and the fastest run is kept (as timeit does),
            # so that one scheduler hiccup on a shared machine does not decide the figure.
            runs = args.repeat if len(texts) < 100 else 1
            elapsed = float("inf")
            for _ in range(runs):
                start = time.perf_counter()
                pred = detect(texts)
                elapsed = min(elapsed, time.perf_counter() - start)
            precision, recall = token_scores(texts, gold, pred)
            rows.append((name, ds_name, precision, recall, len(texts) / elapsed))
    print(f"{'system':<22} {'dataset':<16} {'tok_P':>6} {'tok_R':>6} {'docs/s':>9}")
    for name, ds_name, precision, recall, speed in rows:
        print(f"{name:<22} {ds_name:<16} {precision:6.3f} {recall:6.3f} {speed:9.1f}")


if __name__ == "__main__":
    main()
