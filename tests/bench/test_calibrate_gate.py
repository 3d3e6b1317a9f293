"""The gate's calibration maths (bench/calibrate_gate.py) on rows made up here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the benchmarks need numpy (pip install 'memo[bench]')")

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def cg(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import calibrate_gate

    return calibrate_gate


def _rows(cg: Any, name: str, positives: int, negatives: int, kind: str) -> list[Any]:
    return [cg.Row(name, "answerable", False, {"x": 1.0}) for _ in range(positives)] + [
        cg.Row(name, kind, False, {"x": 0.0}) for _ in range(negatives)
    ]


def test_each_set_weighs_by_the_square_root_of_its_size_split_alike_by_label(cg: Any) -> None:
    big = _rows(cg, "big", 300, 100, "out_of_base")  # 400 questions
    small = _rows(cg, "small", 10, 15, "near_miss")  # 25 questions
    rows = big + small
    w = cg._balanced(rows)
    total = {
        name: w[[i for i, r in enumerate(rows) if r.set == name]].sum() for name in ("big", "small")
    }
    assert total["big"] / total["small"] == pytest.approx((400 / 25) ** 0.5)  # 4x, not 1x nor 16x
    for name in ("big", "small"):
        by_label = [
            w[[i for i, r in enumerate(rows) if r.set == name and r.label == label]].sum()
            for label in (0.0, 1.0)
        ]
        assert by_label[0] == pytest.approx(by_label[1])


def test_the_fit_separates_and_the_threshold_answers_at_most_5_percent_of_each_set(cg: Any) -> None:
    rng = np.random.default_rng(0)
    rows = []
    for name, shift in (("a", 2.0), ("b", 1.0)):
        for label in (1, 0):
            for _ in range(200):
                kind = "answerable" if label else "out_of_base"
                value = rng.normal(shift * label, 1.0)
                rows.append(cg.Row(name, kind, False, {"x": float(value)}))
    x = cg.matrix(rows, ["x"])
    y = np.array([r.label for r in rows])
    w = cg.fit_logistic(x, y, cg._balanced(rows))
    assert w[0] > 0  # the feature that separates gets a positive weight
    scores = cg.score(x, w)
    assert cg.auc(scores, y) > 0.75
    threshold = cg.threshold_for(scores, rows)
    for name in ("a", "b"):
        negatives = [s for s, r in zip(scores, rows, strict=True) if r.set == name and not r.label]
        assert np.mean(np.array(negatives) >= threshold) <= cg.MAX_FALSE_ANSWERS
    # One threshold for all sets: the strictest of the sets' own.
    half = len(rows) // 2
    own = [
        cg.threshold_for(scores[:half], rows[:half]),
        cg.threshold_for(scores[half:], rows[half:]),
    ]
    assert threshold == max(own)


def test_a_set_not_fitted_on_is_only_reported(cg: Any) -> None:
    rng = np.random.default_rng(1)
    rows = []
    for name, shift in (("fitted", 2.0), ("reported", -2.0)):
        for heldout in (False, True):
            for label in (1, 0):
                for _ in range(60):
                    kind = "answerable" if label else "near_miss"
                    value = float(rng.normal(shift * label, 1.0))
                    rows.append(cg.Row(name, kind, heldout, {"x": value}))
    alone = cg.calibrate("m", [r for r in rows if r.set == "fitted"], ["x"], ["fitted"])
    both = cg.calibrate("m", rows, ["x"], ["fitted"])
    # The reported set, which its feature separates the other way, moves neither the
    # weights nor the threshold; it is reported on both halves.
    assert both["weights"] == alone["weights"] and both["threshold"] == alone["threshold"]
    assert both["metrics"]["reported"]["fitted"] is False
    assert both["metrics"]["reported"]["roc_auc"] < 0.5 < both["metrics"]["fitted"]["roc_auc"]
    assert "train" in both["metrics"]["reported"]
    assert cg.calibrate("m", rows, ["x"])["weights"] != alone["weights"]  # fit=None: every set


def test_a_feature_no_row_has_gets_no_weight(cg: Any) -> None:
    rng = np.random.default_rng(2)
    rows = [
        cg.Row("s", kind, heldout, {"x": float(rng.normal(label, 1.0)), "reader": None})
        for heldout in (False, True)
        for label, kind in ((1, "answerable"), (0, "near_miss"))
        for _ in range(40)
    ]
    fitted = cg.calibrate("m", rows, ["x", "reader"], ["s"])
    # An embedder calibrated without the reader must not weigh it: a weight would make
    # the gate run the reader for a feature the fit never saw.
    assert set(fitted["weights"]) == {"x"}


class _Question:
    def __init__(self, qid: str, kind: str) -> None:
        self.id, self.question, self.kind, self.heldout = qid, f"What is {qid}?", kind, False


def test_cross_fitted_reader_scores_replace_the_readers_own(
    cg: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Set:
        name = "s"
        questions = (_Question("q1", "answerable"), _Question("q2", "near_miss"))

    class Store:
        def chunk_total(self) -> int:
            return 1

        def document_frequencies(self, terms: list[str]) -> dict[str, int]:
            return dict.fromkeys(terms, 0)

    class Base:
        store = Store()

        def document_slice(self, *args: Any) -> None:
            return None

    def features(question: str, *args: Any) -> dict[str, Any]:
        return {**dict.fromkeys(cg.FEATURES, 0.5), "reader": 0.9}

    monkeypatch.setattr(cg, "gate_features", features)
    hits: dict[str, list[Any]] = {"q1": [], "q2": []}
    rows = cg.feature_rows(Set(), Base(), hits, None, object(), {"s/q2": 0.2})
    # q2 was scored by a reader trained without it; q1 keeps the live reader's score.
    assert [r.features["reader"] for r in rows] == [0.9, 0.2]
