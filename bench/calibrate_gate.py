"""Calibrate the answerability gate per embedder on both dev sets, and report how well it separates.

    python bench/calibrate_gate.py [--embedders default,hash,keyword-only]
                                   [--sets squad,pydoc,topics,library] [--fit squad,pydoc]
                                   [--bases DIR] [--write] [--name gate]

For each embedder, both dev sets (``bench/answer_sets.py``: the public SQuAD split
and the pydoc set) are ingested into fresh bases (``--bases DIR`` keeps them for
the next run), every question is retrieved as the engine retrieves it
(``GuardedAnswerer.retrieve``) and the gate's features
(``memo_core.answer.gate.FEATURES``) are computed with that embedder's sentence
similarity. Each set is split in two by ``EvalQuestion.heldout`` (by SQuAD
paragraph and by pydoc module, so no paragraph or module is on both sides). A
logistic model is fitted on the *train* halves of the ``--fit`` sets together (answerable
against SQuAD's ``out_of_base`` and pydoc's ``near_miss`` and ``nonexistent``;
SQuAD's ``unanswerable`` need a reader and are only reported; each set weighs in
proportion to the square root of its size, see :data:`L2`), and the threshold
is the lowest that answers at most 5% of each fitted set's train refusals. The other
``--sets`` (by default the Language Reference set, ``topics``, and the 32 other
modules of ``library``) are only reported: they check that the fit carries over to
documents it never saw. Reported per set on the *held-out* half (and on the other
half too, in ``train``): ROC AUC, precision and recall at that threshold, the
share of each refusal kind refused, and the same for the previous two-feature
model (coverage, similarity) fitted the same way. ``--write`` stores the fitted
model in memo_core/data/gate_calibration.json (what SufficiencyGate ships with).
Results: bench/results/NAME.json and .md (``gate`` unless ``--name``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _common import REPO, markdown_table, write_results
from answer_sets import AnswerSet, load_set

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import FEATURES, KEYWORD_ONLY, _DocumentFrequencies, gate_features
from memo_core.answer.reader import PassageReader
from memo_core.answer.respell import respelled
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.embedders import HashEmbedder, default_local_embedder
from memo_core.kb import MemoBase
from memo_core.types import Hit

CALIBRATION_FILE = REPO / "memo_core" / "data" / "gate_calibration.json"
MAX_FALSE_ANSWERS = 0.05
#: The refusal kinds a gate is fitted on (SQuAD's "unanswerable" need a reader).
FIT_REFUSALS = ("out_of_base", "near_miss", "nonexistent")
#: The model the gate had before the answerability features, refitted for comparison.
TWO_FEATURES = ("coverage", "similarity")
#: The L2 penalty on the weights (sample weights sum to 1); each dev set weighs in
#: proportion to the square root of its fitted questions (:func:`_balanced`), between
#: "each set alike" and "each question alike". Both were chosen by 5-fold
#: cross-validation on the train halves (grouped by SQuAD paragraph / pydoc module, three
#: shuffles, each fold's threshold from its own fit): answerable kept SQuAD 0.689 -> 0.722,
#: pydoc 0.814 -> 0.817, false answers out_of_base 0.047 -> 0.052, near_miss 0.069 ->
#: 0.080, nonexistent 0.052, against sets alike and an L2 of 1e-3. The held-out halves
#: only report.
L2 = 3e-4


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, ties averaged."""
    ranks = _average_ranks(scores)
    pos = labels == 1
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if not n_pos or not n_neg:
        return float("nan")
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


def fit_logistic(
    x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None, l2: float = L2
) -> np.ndarray:
    """Logistic regression (weights..., bias) by Newton's method, L2 on the weights."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    sw = np.ones(len(y)) if sample_weight is None else sample_weight
    sw = sw / sw.sum()
    reg = l2 * np.r_[np.ones(x.shape[1]), 0.0]
    w = np.zeros(xb.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (sw * (p - y)) + reg * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def score(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(np.hstack([x, np.ones((len(x), 1))]) @ w)))


@dataclass(frozen=True)
class Row:
    """One question's gate features, with what the calibration needs to know of it."""

    set: str
    kind: str
    heldout: bool
    features: dict[str, float | None]

    @property
    def label(self) -> float:
        return 1.0 if self.kind == "answerable" else 0.0

    @property
    def fitted(self) -> bool:
        return self.kind == "answerable" or self.kind in FIT_REFUSALS


def retrieve_all(answer_set: AnswerSet, kb: MemoBase) -> dict[str, list[Hit]]:
    """Every question's hits, retrieved as the engine retrieves them."""
    engine = GuardedAnswerer(kb)
    return {q.id: engine.retrieve(q.question) for q in answer_set.questions}


def feature_rows(
    answer_set: AnswerSet,
    kb: MemoBase,
    hits: dict[str, list[Hit]],
    similarity: SentenceSimilarity | None,
    reader: PassageReader | None = None,
    reader_scores: dict[str, float] | None = None,
) -> list[Row]:
    frequencies = _DocumentFrequencies(kb.store)

    def read(document_id: str, start: int, end: int) -> str | None:
        return kb.document_slice(document_id, start, end)

    rows = []
    for q in answer_set.questions:
        # As the engine asks the gate: in the spelling of the passages found.
        asked = respelled(q.question, [h.text for h in hits[q.id]])
        f = gate_features(asked, hits[q.id], frequencies, similarity, read, reader)
        features = {name: (None if f[name] is None else float(f[name])) for name in FEATURES}
        key = f"{answer_set.name}/{q.id}"
        if reader is not None and reader_scores and key in reader_scores:
            # The reader's score from the fold it was not trained on (train_reader.py).
            features["reader"] = reader_scores[key]
        rows.append(Row(answer_set.name, q.kind, q.heldout, features))
    return rows


def matrix(rows: Sequence[Row], names: Sequence[str]) -> np.ndarray:
    return np.array([[r.features[n] or 0.0 for n in names] for r in rows], dtype=float)


def _balanced(rows: Sequence[Row]) -> np.ndarray:
    """Sample weights giving each set a total weight in proportion to the square root of
    its size, shared alike between its two labels."""
    weights = np.ones(len(rows))
    keys = [(r.set, r.label) for r in rows]
    sizes = {name: sum(1 for r in rows if r.set == name) for name in {r.set for r in rows}}
    for key in set(keys):
        idx = [i for i, k in enumerate(keys) if k == key]
        weights[idx] = np.sqrt(sizes[key[0]]) / len(idx)
    return weights


def threshold_for(scores: np.ndarray, rows: Sequence[Row]) -> float:
    """The lowest threshold answering at most MAX_FALSE_ANSWERS of each set's refusals."""
    threshold = 0.0
    for name in {r.set for r in rows}:
        negatives = np.sort(
            [s for s, r in zip(scores, rows, strict=True) if r.set == name and r.label == 0]
        )
        if len(negatives):
            allowed = int(MAX_FALSE_ANSWERS * len(negatives))  # how many may pass
            threshold = max(threshold, float(negatives[len(negatives) - 1 - allowed]) + 1e-9)
    return threshold


def report(scores: np.ndarray, rows: Sequence[Row], threshold: float) -> dict[str, Any]:
    """ROC AUC, precision, recall and refusals by kind for ``rows`` (one set's held-out part)."""
    fitted = [i for i, r in enumerate(rows) if r.fitted]
    labels = np.array([rows[i].label for i in fitted])
    s = scores[fitted]
    answered = s >= threshold
    true = float((answered & (labels == 1)).sum())
    out: dict[str, Any] = {
        "questions": len(rows),
        "roc_auc": auc(s, labels),
        "precision": true / max(1.0, float(answered.sum())),
        "recall": true / max(1.0, float((labels == 1).sum())),
    }
    for kind in sorted({r.kind for r in rows} - {"answerable"}):
        mask = np.array([r.kind == kind for r in rows])
        out[f"{kind}_refused"] = float((scores[mask] < threshold).mean())
    return out


def make_embedder(name: str) -> Any:
    return {
        "default": default_local_embedder,
        "hash": lambda: HashEmbedder(256),
        KEYWORD_ONLY: lambda: None,
    }[name]()


def collect(
    name: str,
    sets: Sequence[str],
    bases: Path | None,
    reader_scores: dict[str, float] | None = None,
) -> tuple[str, list[Row]]:
    """The embedder's model name and every question's feature row, over ``sets``
    (``reader_scores``: cross-fitted reader scores by "set/id", used where given)."""
    embedder = make_embedder(name)
    rows: list[Row] = []
    model = KEYWORD_ONLY
    for set_name in sets:
        answer_set = load_set(set_name)
        with answer_set.open_base(embedder, keep=bases) as kb:
            # The base keeps the sentence vectors, so a run on kept bases embeds only what
            # no earlier run (nor `kb ask`) did.
            similarity = (
                SentenceSimilarity(embedder, store=kb.sentence_vectors)
                if embedder is not None
                else None
            )
            if kb.store.fingerprint is not None:
                model = kb.store.fingerprint.model
            hits = retrieve_all(answer_set, kb)
            # The passage reader is weighed with the local embedder only (the same
            # extra brings its runtime); the other calibrations do without it.
            reader = PassageReader.shipped() if name == "default" else None
            rows += feature_rows(answer_set, kb, hits, similarity, reader, reader_scores)
        print(f"{name} {set_name}: {len(answer_set.questions)} questions", flush=True)
    return model, rows


def calibrate(
    model: str, rows: list[Row], names: Sequence[str], fit: Sequence[str] | None = None
) -> dict[str, Any]:
    """Fit on the train halves of the ``fit`` sets (every set when ``None``), choose the
    threshold there, report every set on its held-out half (and its train half)."""
    names = [n for n in names if model != KEYWORD_ONLY or "similarity" not in n]
    # A feature no row has (the reader, for an embedder calibrated without it) gets no weight.
    names = [n for n in names if any(r.features.get(n) is not None for r in rows)]
    train = [r for r in rows if not r.heldout and r.fitted and (fit is None or r.set in fit)]
    w = fit_logistic(matrix(train, names), np.array([r.label for r in train]), _balanced(train))
    threshold = threshold_for(score(matrix(train, names), w), train)
    metrics: dict[str, Any] = {}
    for set_name in sorted({r.set for r in rows}):
        part = [r for r in rows if r.set == set_name and r.heldout]
        metrics[set_name] = report(score(matrix(part, names), w), part, threshold)
        fit_part = [r for r in rows if r.set == set_name and not r.heldout]
        metrics[set_name]["train"] = report(score(matrix(fit_part, names), w), fit_part, threshold)
        metrics[set_name]["fitted"] = fit is None or set_name in fit
    return {
        "weights": {n: float(w[i]) for i, n in enumerate(names)},
        "bias": float(w[-1]),
        "threshold": threshold,
        "metrics": metrics,
    }


def _row(embedder: str, model: str, result: dict[str, Any]) -> list[list[Any]]:
    out = []
    for set_name, m in result["metrics"].items():
        refused = ", ".join(
            f"{k[: -len('_refused')]} {v:.3f}" for k, v in m.items() if k.endswith("_refused")
        )
        shown = set_name if m["fitted"] else f"{set_name} (not fitted)"
        out.append(
            [embedder, model, shown, m["questions"], m["roc_auc"], m["precision"],
             m["recall"], refused, result["threshold"]]
        )  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="default,hash,keyword-only")
    parser.add_argument(
        "--sets", default="squad,pydoc,topics,library", help="the sets read and reported"
    )
    parser.add_argument(
        "--fit", default="squad,pydoc", help="the sets (among --sets) the model is fitted on"
    )
    parser.add_argument("--bases", type=Path, help="keep the ingested bases here for reuse")
    parser.add_argument("--write", action="store_true", help="update the shipped calibration")
    parser.add_argument("--name", default="gate", help="results file name")
    parser.add_argument(
        "--reader-scores",
        type=Path,
        nargs="*",
        default=[],
        help="cross-fitted reader scores of the train halves (train_reader.py --fold --scores)",
    )
    args = parser.parse_args()
    reader_scores: dict[str, float] = {}
    for path in args.reader_scores:
        reader_scores.update(json.loads(path.read_text()))
    results: dict[str, dict[str, Any]] = {}
    table_rows = []
    for name in args.embedders.split(","):
        model, rows = collect(name, args.sets.split(","), args.bases, reader_scores)
        fit = args.fit.split(",")
        result = calibrate(model, rows, FEATURES, fit)
        previous = calibrate(model, rows, TWO_FEATURES, fit)
        unread = calibrate(model, rows, [f for f in FEATURES if f != "reader"], fit)
        results[model] = {**result, "two_feature": previous, "without_reader": unread}
        table_rows += (
            _row(name, "answerability", result)
            + _row(name, "without the reader", unread)
            + _row(name, "two-feature", previous)
        )
        print(name, json.dumps(result["metrics"]), flush=True)
    table = markdown_table(
        ["embedder", "model", "set (held-out half)", "questions", "ROC AUC", "precision",
         "recall", "refused (by kind)", "threshold"],
        table_rows,
    )  # fmt: skip
    write_results(
        args.name, {"max_false_answers": MAX_FALSE_ANSWERS, "calibrations": results}, table
    )
    print(table)
    if args.write:
        write_calibrations(results, args.fit.split(","), crossfitted=bool(reader_scores))


def write_calibrations(
    results: dict[str, dict[str, Any]], fit: Sequence[str], crossfitted: bool = False
) -> None:
    existing = json.loads(CALIBRATION_FILE.read_text()) if CALIBRATION_FILE.exists() else {}
    calibrations = existing.get("calibrations", {})
    for name, r in results.items():
        context = calibrations.get(name, {}).get("context")  # kept: its own floor
        calibrations[name] = {k: r[k] for k in ("weights", "bias", "threshold", "metrics")}
        if context is not None:
            calibrations[name]["context"] = context
    about = (
        f"Written by bench/calibrate_gate.py: fitted on the train halves of the dev sets "
        f"{', '.join(fit)}, threshold answering at most 5% of each of their train refusals, "
        "metrics on the held-out halves of every set read ('train': the other half). "
        + (
            "The reader's feature of the train halves from readers trained on the other "
            "fold (bench/train_reader.py --fold), so the fit does not trust it in-sample. "
            if crossfitted
            else ""
        )
        + "'context': the relevance floor for offering a hit as context (the earlier "
        "two-feature model)."
    )
    CALIBRATION_FILE.write_text(
        json.dumps({"about": about, "calibrations": calibrations}, indent=2) + "\n"
    )
    print(f"wrote {CALIBRATION_FILE}")


if __name__ == "__main__":
    main()
