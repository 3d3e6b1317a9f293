"""How bench/train_reader.py labels the sentences the gate reads and splits the train halves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memo_core.answer.reader import reader_text

pytest.importorskip("numpy", reason="the benchmarks need numpy (pip install 'memo[bench]')")

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def tr(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import train_reader

    return train_reader


def test_a_sentence_is_positive_only_when_it_holds_an_answerable_questions_gold(tr: Any) -> None:
    rows = [
        {
            "question": "When did the heron leave?",
            "kind": "answerable",
            "answer": "in  March",
            "sentences": ["The heron left IN MARCH.", "Herons wade in shallow water."],
        },
        {
            "question": "When did the heron return?",
            "kind": "near_miss",
            "answer": None,
            "sentences": ["The heron left in March."],
        },
    ]
    labelled = list(tr._labelled(rows, False))
    # Case and spacing aside, the gold must stand in the sentence; a near-miss has none.
    assert [(i, label) for i, _, _, label in labelled] == [(0, 1), (0, 0), (1, 0)]
    assert labelled[0][1:3] == ("When did the heron leave?", "The heron left IN MARCH.")


def test_with_contexts_the_sentence_is_read_after_its_context_and_labelled_alone(
    tr: Any,
) -> None:
    rows = [
        {
            "question": "When did the heron leave?",
            "kind": "answerable",
            "answer": "in March",
            "sentences": ["It flew south.", "The heron left in March."],
            "contexts": ["Heron log › Left in March", "Heron log"],
        },
    ]
    bare = list(tr._labelled(rows, False))
    read = list(tr._labelled(rows, True))
    assert [t for _, _, t, _ in bare] == ["It flew south.", "The heron left in March."]
    assert [t for _, _, t, _ in read] == [
        reader_text("It flew south.", "Heron log › Left in March"),
        reader_text("The heron left in March.", "Heron log"),
    ]
    # The gold in a heading does not make the sentence under it an answer.
    assert [label for *_, label in read] == [label for *_, label in bare] == [0, 1]


def test_a_group_lands_in_one_fold(tr: Any) -> None:
    groups = {("s", "a"): "paragraph-7", ("s", "b"): "paragraph-7"}
    folds = {tr.fold_of({"set": "s", "id": qid}, groups) for qid in ("a", "b")}
    assert len(folds) == 1  # two questions of one paragraph are never split
    spread = {tr.fold_of({"set": "s", "id": f"q{n}"}, {}) for n in range(40)}
    assert spread == {0, 1}
