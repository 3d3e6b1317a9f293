"""Calibrate the answerability gate per embedder, and report how well it separates.

    python bench/calibrate_gate.py [--embedders default,hash,keyword-only] [--write]

For each embedder: ingest ../shared/eval/qa/corpus.jsonl, compute the gate's
features (memo_core.answer.gate.FEATURES) for every ``answerable`` and
``out_of_base`` question, fit a logistic model on one half and report ROC AUC on
the other half, then fit on all of it and choose the lowest threshold that answers
at most 5% of the out-of-base questions (the issue's "at most 5% false answers");
precision and recall at that threshold are reported too. ``--write`` stores the
weights in memo_core/data/gate_calibration.json (what SufficiencyGate ships with).
Results: bench/results/gate.json and .md.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

import numpy as np
from _common import REPO, markdown_table, qa_dir, read_jsonl, write_results

from memo_core.answer.gate import FEATURES, KEYWORD_ONLY, _DocumentFrequencies, gate_features
from memo_core.embedders import HashEmbedder, default_local_embedder
from memo_core.kb import MemoBase

CALIBRATION_FILE = REPO / "memo_core" / "data" / "gate_calibration.json"
MAX_FALSE_ANSWERS = 0.05


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, ties averaged."""
    ranks = _average_ranks(scores)
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties given their average rank (as scipy's ``rankdata``)."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    ranks = np.empty(len(values))
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 4000) -> np.ndarray:
    """Plain gradient-descent logistic regression (weights..., bias)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0.0]
        w -= 2.5 * grad
    return w


def score(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(np.hstack([x, np.ones((len(x), 1))]) @ w)))


def calibrate(name: str, corpus: list[dict], questions: list[dict]) -> dict:
    embedder = {
        "default": default_local_embedder,
        "hash": lambda: HashEmbedder(256),
        KEYWORD_ONLY: lambda: None,
    }[name]()
    with tempfile.TemporaryDirectory() as tmp:
        kb = MemoBase(Path(tmp) / "cal.db", embedder=embedder)
        kb.add_texts([p["text"] for p in corpus], ids=[p["id"] for p in corpus])
        freqs = _DocumentFrequencies(kb.store)
        rows = []
        for q in questions:
            f = gate_features(q["question"], kb.search(q["question"], k=5), freqs)
            rows.append(([float(f[name] or 0.0) for name in FEATURES], q["kind"]))
        model = kb.store.fingerprint.model if kb.store.fingerprint else KEYWORD_ONLY
        kb.close()
    kinds = np.array([r[1] for r in rows])
    feats = np.array([r[0] for r in rows])
    if embedder is None:
        feats[:, FEATURES.index("similarity")] = 0.0
    fit_mask = kinds != "unanswerable"
    x, y = feats[fit_mask], (kinds[fit_mask] == "answerable").astype(float)
    order = list(range(len(y)))
    random.Random(7).shuffle(order)
    half = len(order) // 2
    train, test = np.array(order[:half]), np.array(order[half:])
    heldout_auc = auc(score(x[test], fit_logistic(x[train], y[train])), y[test])
    w = fit_logistic(x, y)
    s_all = score(feats, w)
    outside = np.sort(s_all[kinds == "out_of_base"])
    # The lowest threshold that lets at most MAX_FALSE_ANSWERS of out-of-base through.
    threshold = float(outside[min(len(outside) - 1, int((1 - MAX_FALSE_ANSWERS) * len(outside)))])

    def refusal(kind: str) -> float:
        return float((s_all[kinds == kind] < threshold).mean())

    answered_true = float((s_all[kinds == "answerable"] >= threshold).sum())
    answered_false = float((s_all[kinds == "out_of_base"] >= threshold).sum())
    weights = {name: float(w[i]) for i, name in enumerate(FEATURES)}
    if embedder is None:
        weights["similarity"] = 0.0
    return {
        "embedder": model,
        "weights": weights,
        "bias": float(w[-1]),
        "threshold": threshold,
        "metrics": {
            "roc_auc_heldout": heldout_auc,
            "roc_auc_fit": auc(score(x, w), y),
            "precision": answered_true / max(1.0, answered_true + answered_false),
            "recall": 1 - refusal("answerable"),
            "answerable_kept": 1 - refusal("answerable"),
            "out_of_base_refused": refusal("out_of_base"),
            "unanswerable_refused": refusal("unanswerable"),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="default,hash,keyword-only")
    parser.add_argument("--write", action="store_true", help="update the shipped calibration")
    args = parser.parse_args()
    data = qa_dir()
    corpus = list(read_jsonl(data / "corpus.jsonl"))
    questions = list(read_jsonl(data / "questions.jsonl"))
    results = {}
    for name in args.embedders.split(","):
        result = calibrate(name, corpus, questions)
        results[result["embedder"] if name != KEYWORD_ONLY else KEYWORD_ONLY] = result
        print(name, json.dumps(result["metrics"]))
    rows = [
        [
            name,
            r["metrics"]["roc_auc_heldout"],
            r["metrics"]["precision"],
            r["metrics"]["recall"],
            r["threshold"],
            r["metrics"]["answerable_kept"],
            r["metrics"]["out_of_base_refused"],
            r["metrics"]["unanswerable_refused"],
        ]
        for name, r in results.items()
    ]
    table = markdown_table(
        [
            "embedder",
            "ROC AUC (held-out half)",
            "precision",
            "recall",
            "threshold",
            "answerable kept",
            "out_of_base refused",
            "unanswerable refused",
        ],
        rows,
    )
    write_results("gate", {"calibrations": results}, table)
    print(table)
    if args.write:
        existing = json.loads(CALIBRATION_FILE.read_text()) if CALIBRATION_FILE.exists() else {}
        calibrations = existing.get("calibrations", {})
        for name, r in results.items():
            context = calibrations.get(name, {}).get("context")  # kept: its own floor
            calibrations[name] = {k: v for k, v in r.items() if k != "embedder"}
            if context is not None:
                calibrations[name]["context"] = context
        CALIBRATION_FILE.write_text(
            json.dumps(
                {
                    "about": existing.get("about", "Written by bench/calibrate_gate.py."),
                    "calibrations": calibrations,
                },
                indent=2,
            )
            + "\n"
        )
        print(f"wrote {CALIBRATION_FILE}")


if __name__ == "__main__":
    main()
