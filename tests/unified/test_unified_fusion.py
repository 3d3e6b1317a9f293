"""RRF across the two sources: hand-worked numbers, weights, and the end-to-end order."""

from __future__ import annotations

import pytest

from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.kb import MemoBase
from memo_core.memory import MemoHood
from memo_core.unified import UnifiedItem, fuse_sources, recall_all

from .conftest import USER, add_contract, add_grant, day, tell_hollis


def _items(source: str, n: int) -> list[UnifiedItem]:
    prefix = "memory" if source == "memory" else "kb"
    return [
        UnifiedItem(
            ref=f"{prefix}:{i}",
            source="memory" if source == "memory" else "kb",
            kind="fact" if source == "memory" else "chunk",
            text=f"{source} item {i}",
            rank=0,
            source_rank=i,
            score=0.0,
            label=f"[{source}]",
        )
        for i in range(1, n + 1)
    ]


def test_small_k_and_double_kb_weight_by_hand() -> None:
    # k=1: memory (w=1) scores 1/2, 1/3, 1/4; kb (w=2) scores 2/2, 2/3.
    fused = fuse_sources(_items("memory", 3), _items("kb", 2), {"memory": 1.0, "kb": 2.0}, rrf_k=1)
    assert [(i.ref, round(i.score, 4)) for i in fused] == [
        ("kb:1", 1.0),
        ("kb:2", 0.6667),
        ("memory:1", 0.5),
        ("memory:2", 0.3333),
        ("memory:3", 0.25),
    ]
    assert [i.rank for i in fused] == [1, 2, 3, 4, 5]
    assert [i.source_rank for i in fused] == [1, 2, 1, 2, 3]


def test_equal_weights_interleave_with_memory_first_on_ties() -> None:
    fused = fuse_sources(_items("memory", 3), _items("kb", 3), {"memory": 1.0, "kb": 1.0})
    assert [i.ref for i in fused] == [
        "memory:1", "kb:1", "memory:2", "kb:2", "memory:3", "kb:3",
    ]  # fmt: skip
    assert fused[0].score == pytest.approx(1 / 61) and fused[2].score == pytest.approx(1 / 62)


def test_a_slightly_heavier_kb_pushes_the_first_memory_item_to_eighth() -> None:
    # kb w=1.1, k=60: kb#7 = 1.1/67 = 0.016418 > memory#1 = 1/61 = 0.016393 > kb#8 = 1.1/68.
    fused = fuse_sources(_items("memory", 2), _items("kb", 9), {"memory": 1.0, "kb": 1.1})
    assert [i.ref for i in fused].index("memory:1") == 7
    assert fused[6].score == pytest.approx(1.1 / 67) and fused[7].score == pytest.approx(1 / 61)


def test_recall_all_scores_follow_the_formula(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory)
    add_grant(kb)
    add_contract(kb)
    result = recall_all(
        "When is the Hollis report due?",
        memory=memory,
        kb=kb,
        namespace=USER,
        weights={"memory": 1.0, "kb": 3.0},
        at=day(7),
    )
    assert {i.source for i in result.items} == {"memory", "kb"}
    for item in result.items:
        weight = 3.0 if item.source == "kb" else 1.0
        assert item.score == pytest.approx(weight / (60 + item.source_rank))
    scores = [i.score for i in result.items]
    assert scores == sorted(scores, reverse=True)
    assert result.items[0].source == "kb"  # 3/61 beats memory's best 1/61
    assert [i.rank for i in result.items] == list(range(1, len(result.items) + 1))


def test_k_caps_the_fused_list(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory)
    add_grant(kb)
    add_contract(kb)
    for i in range(6):
        kb.add_texts([f"Background note {i} on the Hollis archive and report formats."])
    result = recall_all("Hollis report", memory=memory, kb=kb, namespace=USER, k=3, at=day(7))
    assert len(result.items) == 3


def test_a_zero_weight_leaves_a_source_unasked(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory)
    add_grant(kb)
    result = recall_all(
        "When is the Hollis report due?",
        memory=memory,
        kb=kb,
        namespace=USER,
        weights={"memory": 0.0},
        at=day(7),
    )
    assert result.gate is None and {i.source for i in result.items} == {"kb"}


def test_bad_arguments_fail_clearly(memory: MemoHood, kb: MemoBase) -> None:
    with pytest.raises(InvalidInputError):
        recall_all("x", memory=None, kb=None, namespace=USER)
    with pytest.raises(InvalidInputError):
        recall_all("x", memory=memory, kb=kb, namespace=USER, weights={"web": 1.0})
    with pytest.raises(InvalidInputError):
        recall_all("x", memory=memory, kb=kb, namespace=USER, weights={"kb": -1.0})
    with pytest.raises(InvalidInputError):
        recall_all("x", memory=memory, kb=kb, namespace=USER, k=0)
    with pytest.raises(NamespaceRequiredError):
        recall_all("When is it due?", memory=memory, kb=kb, namespace=None)
