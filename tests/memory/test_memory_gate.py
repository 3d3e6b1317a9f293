"""The recall gate: Model2Vec plus shipped examples; the lexical rule without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import memo_core
from memo_core.memory import RecallGate, load_gate_examples
from memo_core.memory.config import DEFAULT_GATE_MODEL, resolve_gate_model

PROBES = Path(__file__).resolve().parents[3] / "shared" / "eval" / "memory" / "scenarios.jsonl"
SMALL_TALK = ["thanks!", "ok cool", "lol", "спасибо!", "ага, ок", "good night", "👍"]
MEMORY = [
    "Suggest an antibiotic for a sore throat",
    "What should I cook tonight?",
    "big day tomorrow, wish me luck!!",
    "Когда мне сдавать отчёт?",
    "Помоги выбрать подарок маме",
    "how are you planning my trip?",
]


def test_shipped_examples_cover_both_classes_and_languages() -> None:
    examples = load_gate_examples()
    combos = {(e.label, e.lang) for e in examples}
    assert combos == {
        ("small_talk", "en"),
        ("small_talk", "ru"),
        ("memory", "en"),
        ("memory", "ru"),
    }
    assert len(examples) >= 200


def test_lexical_gate_without_a_model() -> None:
    gate = RecallGate()
    assert not gate.uses_model
    for text in SMALL_TALK:
        assert gate.decide(text).action == "skip", text
    for text in MEMORY:
        assert gate.decide(text).action == "recall", text


def test_model_gate_skips_only_when_small_talk_clearly_wins(model_gate: RecallGate) -> None:
    assert model_gate.uses_model
    for text in SMALL_TALK:
        assert model_gate.decide(text).action == "skip", text
    for text in MEMORY:
        decision = model_gate.decide(text)
        assert decision.action == "recall", (text, decision)
    decision = model_gate.decide("you're the best")
    assert decision.method == "model2vec"
    assert decision.small_talk > decision.memory  # the model prefers small talk here...
    strict = RecallGate(model=model_gate._model, margin=0.5)
    assert strict.decide("you're the best").action == "recall"  # ...but not by 0.5


def test_model_gate_on_the_public_probes(model_gate: RecallGate) -> None:
    if not PROBES.exists():
        pytest.skip("../shared/eval/memory/scenarios.jsonl is absent")
    rows = [json.loads(line) for line in PROBES.read_text(encoding="utf-8").splitlines()]
    probes = [(p["text"], p["expect_recall"]) for r in rows for p in r["probes"]]
    missed = [t for t, expect in probes if expect and model_gate.decide(t).action == "skip"]
    assert missed == []  # a missed recall is worse than an extra one
    correct = sum((model_gate.decide(t).action == "recall") == expect for t, expect in probes)
    assert correct / len(probes) >= 0.9


def test_gate_model_resolution(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("MEMO_GATE_MODEL", str(tmp_path))
    assert resolve_gate_model() == str(tmp_path)
    assert resolve_gate_model("explicit") == "explicit"
    monkeypatch.delenv("MEMO_GATE_MODEL")
    assert resolve_gate_model() == DEFAULT_GATE_MODEL
    shipped = Path(DEFAULT_GATE_MODEL)  # inside the installed package, nothing beside it
    assert shipped.is_relative_to(Path(memo_core.__file__).parent)
    assert (shipped / "model.safetensors").is_file() and (shipped / "NOTICE").is_file()
    broken = RecallGate.default(tmp_path / "missing-model")
    assert not broken.uses_model  # falls back to the lexical rule, never fails recall


PLEASANTRIES = [
    "Sleep well, talk tomorrow!",
    "Thank you so much, that helped a lot",
    "Hope you have a lovely weekend",
    "Спокойной ночи, до завтра!",
    "Огромное спасибо за помощь",
    "Хороших выходных!",
    "🌙✨",
    # clipped and colloquial closings and greetings
    "спокиночи",
    "здрасьте",
    "ну всё, пасиб",
    "на этом всё, спасибки",
    "gn",
    "hiya again",
]
MEMORY_QUESTIONS = [
    "Good night! Oh wait, when is my train tomorrow?",
    "Thanks! And how much is my parking permit?",
    "how are my parents doing with the move?",
    "Спасибо! А во сколько у меня стоматолог?",
    "Как дела у моего брата с работой?",
    "Здрасьте! Во сколько у меня массаж?",
    "hiya, which gym am I signed up to?",
    "на этом всё? а, нет: какой у меня номер полиса?",
]


@pytest.mark.parametrize("use_model", [False, True])
def test_pleasantries_are_skipped_and_memory_questions_kept(
    use_model: bool, model_gate: RecallGate
) -> None:
    gate = model_gate if use_model else RecallGate()
    assert [gate.decide(t).action for t in PLEASANTRIES] == ["skip"] * len(PLEASANTRIES)
    assert [gate.decide(t).action for t in MEMORY_QUESTIONS] == ["recall"] * len(MEMORY_QUESTIONS)
