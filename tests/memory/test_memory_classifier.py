"""Capture's learned keep/drop classifier: shipped weights, more facts kept than by rules,
and never a suggestion, a hypothetical or a noncommittal reply stored as the user's."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.classifier import CUE_NAMES, load_capture_classifier

from .conftest import MONDAY

#: Durable statements the rules have no pattern for (sentences of this suite's own).
MISSED_BY_RULES = [
    "Penicillin gives me hives so I steer clear of it.",
    "Нашу младшую дочку зовут Злата.",
    "I ride a red Vespa to the studio.",
]
NEVER_THE_USERS = [
    "You suggested I try cold showers every morning.",
    "If I won the lottery I would buy a farm in Umbria.",
    "I'll mull it over and get back to you.",
    "Допустим, я перееду в Сочи, сколько будет стоить аренда?",
]


def _shipped() -> dict[str, object]:
    path = resources.files("memo_core.memory").joinpath("data/capture_classifier.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_shipped_weights_match_the_cues_and_record_their_evaluation() -> None:
    data = _shipped()
    assert data["cues"] == list(CUE_NAMES)
    results = data["results"]
    assert isinstance(results, dict)
    for name in ("embedding", "cues"):
        assert set(results[name]) >= {"train", "test", "test_en", "test_ru"}
    # the committed weights were trained to keep more facts than the rules alone
    assert results["cues"]["test"]["recall"] > results["rules_only"]["test"]["recall"]


@pytest.mark.parametrize("with_model", [False, True])
def test_the_classifier_keeps_what_rules_miss(
    backend_url: str, model_gate: RecallGate, with_model: bool
) -> None:
    gate = model_gate if with_model else RecallGate()
    kept: dict[bool, int] = {}
    for use in (False, True):
        config = MemoryConfig(use_classifier=use)
        with MemoHood(backend_url, embedder=None, gate=gate, config=config) as memory:
            ns = f"u-{use}-{with_model}"
            for text in MISSED_BY_RULES:
                memory.capture(text, namespace=ns, at=MONDAY)
            kept[use] = len(memory.list_facts(ns))
    assert kept[False] < len(MISSED_BY_RULES)  # the rules alone miss some
    assert kept[True] == len(MISSED_BY_RULES)


def test_suggestions_hypotheticals_and_noncommittal_replies_are_not_stored(
    memory: MemoHood,
) -> None:
    for text in NEVER_THE_USERS:
        memory.capture(text, namespace="u1", at=MONDAY)
    assert memory.list_facts("u1") == []


def test_the_classifier_scores_a_batch_in_one_call() -> None:
    calls: list[int] = []

    def encoder(sentences: list[str]) -> list[list[float]]:
        calls.append(len(sentences))
        return [[1.0, 0.0, 0.0]] * len(sentences)  # another dimension: cues decide

    classifier = load_capture_classifier(encoder)
    probabilities = classifier.probabilities(MISSED_BY_RULES + NEVER_THE_USERS)
    assert calls == [7] and all(0.0 < p < 1.0 for p in probabilities)
    assert probabilities == load_capture_classifier().probabilities(
        MISSED_BY_RULES + NEVER_THE_USERS
    )
