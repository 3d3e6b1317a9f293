"""Train capture's keep/drop classifier and report its precision and recall.

Run: ``python bench/train_capture.py [--data bench/data/memory/capture_labels.jsonl]
[--model PATH] [--recall 0.97] [--out memo_core/memory/data/capture_classifier.json]``

Logistic regression (numpy, L2, class-balanced, full-batch Newton steps) over the gate
model's static embedding plus the cue features of :mod:`memo_core.memory.classifier`,
trained on the ``train`` split; the keep threshold is the highest one that still keeps
``--recall`` of the train keeps (capture is tuned for recall over precision). Precision
and recall are reported on the ``test`` split, whose templates training never saw, for each
weight set, and for capture as a whole (the rules alone, and the rules with the new weights,
as :func:`~memo_core.memory.extract.analyze_turn` combines them), with the junk kinds it
kept. Two weight sets are written: with the embedding, and cues only (the fallback).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from memo_core.memory.classifier import CUE_NAMES, CaptureClassifier, cue_features
from memo_core.memory.config import resolve_gate_model
from memo_core.memory.extract import analyze_turn
from memo_core.memory.gate import RecallGate

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data" / "memory" / "capture_labels.jsonl"
OUT = REPO / "memo_core" / "memory" / "data" / "capture_classifier.json"


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> np.ndarray:
    """Class-balanced L2 logistic regression by Newton's method."""
    w = np.zeros(x.shape[1])
    balance = np.where(y == 1, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    reg = np.full(x.shape[1], l2)
    reg[-1] = 0.0  # the bias column (last cue) is not shrunk
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (balance * (p - y)) + reg * w
        hess = (x * (balance * p * (1 - p))[:, None]).T @ x + np.diag(reg)
        w -= np.linalg.solve(hess, grad)
    return w


def threshold_for_recall(p: np.ndarray, y: np.ndarray, recall: float) -> float:
    keeps = np.sort(p[y == 1])
    return float(keeps[int((1.0 - recall) * len(keeps))]) if len(keeps) else 0.5


def report(p: np.ndarray, y: np.ndarray, threshold: float) -> dict[str, float]:
    kept = p >= threshold
    tp = int((kept & (y == 1)).sum())
    precision = tp / max(int(kept.sum()), 1)
    recall = tp / max(int((y == 1).sum()), 1)
    return {"precision": round(precision, 3), "recall": round(recall, 3), "n": len(y)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--model", help="a Model2Vec folder (default: the gate's model)")
    parser.add_argument("--recall", type=float, default=0.97)
    parser.add_argument("--l2", type=float, default=10.0, help="L2 strength (shrinks weights)")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line]
    source = resolve_gate_model(args.model)
    gate = RecallGate(source)
    texts = [r["text"] for r in rows]
    y = np.asarray([1.0 if r["label"] == "keep" else 0.0 for r in rows])
    train = np.asarray([r["split"] == "train" for r in rows])
    cues = np.asarray([cue_features(t) for t in texts])
    vectors = np.asarray(gate.encode(texts), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    models: dict[str, Any] = {}
    results: dict[str, Any] = {}
    for name, x in (("embedding", np.hstack([vectors, cues])), ("cues", cues)):
        w = fit(x[train], y[train], l2=args.l2)
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        threshold = threshold_for_recall(p[train], y[train], args.recall)
        models[name] = {
            "weights": [round(float(v), 6) for v in w],
            "threshold": round(threshold, 6),
            "dims": int(vectors.shape[1]) if name == "embedding" else 0,
        }
        results[name] = {
            "train": report(p[train], y[train], threshold),
            "test": report(p[~train], y[~train], threshold),
        }
        for lang in ("en", "ru"):
            mask = ~train & np.asarray([r["lang"] == lang for r in rows])
            results[name][f"test_{lang}"] = report(p[mask], y[mask], threshold)
    payload = {
        "cues": list(CUE_NAMES),
        "embedding_model": Path(source).name,
        "recall_target": args.recall,
        "trained_on": Path(args.data).name,
        "results": results,
        "models": models,
    }
    # What capture decides on the held-out turns (its keep is a fact extracted): the rules
    # alone, and the rules with the classifier just trained, as MemoHood runs them.
    ref = date(2026, 3, 1)
    held_out = [i for i in range(len(rows)) if not train[i]]
    classifier = CaptureClassifier(payload, gate.encode)
    for name, classify in (("rules_only", None), ("capture", classifier.keeps)):
        kept = np.zeros(len(rows))
        for i in held_out:
            kept[i] = 1.0 if analyze_turn(texts[i], ref=ref, classify=classify).facts else 0.0
        results[name] = {"test": report(kept[~train], y[~train], 0.5)}
        for lang in ("en", "ru"):
            mask = ~train & np.asarray([r["lang"] == lang for r in rows])
            results[name][f"test_{lang}"] = report(kept[mask], y[mask], 0.5)
        # Junk kept, by kind: a suggestion or hypothetical stored as the user's is a defect.
        results[name]["false_keeps"] = dict(
            sorted(Counter(rows[i]["kind"] for i in held_out if kept[i] and not y[i]).items())
        )
    Path(args.out).write_text(json.dumps(payload, ensure_ascii=False) + "\n", encoding="utf-8")
    for name, parts in results.items():
        print(
            name,
            "  ".join(
                f"{k}: P={v['precision']} R={v['recall']} (n={v['n']})" if "n" in v else f"{k}: {v}"
                for k, v in parts.items()
            ),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
