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


#: Durable statements that name the user by no pronoun (sentences of this suite's own).
SAID_WITHOUT_I = [
    "Принимаю эналаприл по вечерам.",  # the verb's ending is the speaker
    "Бабушка живёт в Вологде.",  # a relative with no "my"
    "Нашему хомяку Пуху два года.",  # the dative of "our"
]
#: Junk that looks like a fact to the rules (sentences of this suite's own).
LOOKS_LIKE_A_FACT = [
    "Apparently a famous chef opened a bakery in Leeds.",
    "Говорят, один футболист купил яхту в Монако.",
    "Not decided yet, maybe Thursday.",
    "If we lived by the sea we'd swim every morning.",
    "is lactose intolerance common in adults",
    "Write a toast for someone turning 50.",
]


def test_statements_without_a_pronoun_are_kept(memory: MemoHood) -> None:
    for i, text in enumerate(SAID_WITHOUT_I):
        memory.capture(text, namespace=f"u{i}", at=MONDAY)
        assert memory.list_facts(f"u{i}"), text


def test_a_first_person_verb_is_what_keeps_a_dropped_pronoun(
    memory: MemoHood, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memo_core.memory import classifier, extract

    text = "Откладываю по десять тысяч на ремонт."
    memory.capture(text, namespace="u1", at=MONDAY)
    assert memory.list_facts("u1")
    for module in (classifier, extract):
        monkeypatch.setattr(module, "first_person_verb", lambda text: False)
    memory.capture(text, namespace="u2", at=MONDAY)
    assert memory.list_facts("u2") == []


def test_junk_that_looks_like_a_fact_is_not_stored(memory: MemoHood) -> None:
    for text in LOOKS_LIKE_A_FACT:
        result = memory.capture(text, namespace="u1", at=MONDAY)
        assert not result.added, text
    assert memory.list_facts("u1") == []


def test_a_person_named_before_is_the_subject_of_a_later_turn(memory: MemoHood) -> None:
    memory.capture("My daughter Imogen plays the cello.", namespace="u1", at=MONDAY)
    result = memory.capture("Imogen is allergic to wasps.", namespace="u1", at=MONDAY)
    assert [f.subject for f in result.added] == ["daughter:imogen"]  # not the user's allergy


def test_the_statement_before_a_question_is_kept_without_the_question(memory: MemoHood) -> None:
    memory.capture(
        "I just adopted a greyhound called Pilot, so what food should I buy?",
        namespace="u1",
        at=MONDAY,
    )
    [fact] = memory.list_facts("u1")
    assert "Pilot" in fact.statement and "what food" not in fact.statement
