"""What every rendered dev set promises: a fixed split by document, four formats, gold locators."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("name", ["topics", "library", "cli", "readmes", "records"])
def test_the_set_loads_with_a_fixed_split_by_document(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    from answer_sets import load_set

    everything = load_set(name)
    heldout = load_set(name, split="heldout")
    train = load_set(name, split="train")
    assert len(heldout.questions) + len(train.questions) == len(everything.questions)
    assert not {q.doc for q in heldout.questions} & {q.doc for q in train.questions}
    for part in (heldout, train):
        kinds = Counter(q.kind for q in part.questions)
        assert kinds["answerable"] and kinds["near_miss"] and kinds["nonexistent"]
    assert load_set(name, split="heldout").questions == heldout.questions  # deterministic
    assert {f.suffix for f in everything.files} == {".txt", ".md", ".html", ".pdf"}
    answerable = [q for q in everything.questions if q.kind == "answerable"]
    assert all(q.gold_pages and q.gold_headings for q in answerable)
    assert everything.refusal_kinds == ("near_miss", "nonexistent")
    with pytest.raises(ValueError, match="unknown answer set"):
        load_set("nope")


@pytest.mark.parametrize("name", ["cli", "readmes"])
def test_the_set_is_named_by_sets_and_each_half_is_large_enough(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import answer_eval
    from answer_sets import RENDERED_SETS, SETS, load_set

    assert name in SETS and name in RENDERED_SETS  # --sets NAME, reported per format
    assert answer_eval.RENDERED_SETS == RENDERED_SETS
    for split in ("heldout", "train"):
        kinds = Counter(q.kind for q in load_set(name, split=split).questions)
        assert kinds["answerable"] >= 80 and min(kinds.values()) >= 25, (split, kinds)
