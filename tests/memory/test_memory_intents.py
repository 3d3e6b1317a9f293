"""Recall reaches paraphrases: intent routing brings the facts of a question's topic
(keyword path, no embedder: nothing here shares a word with the fact it needs)."""

from __future__ import annotations

import pytest

from memo_core.memory import MemoHood
from memo_core.memory.intents import intents_of

from .conftest import MONDAY, day

FACTS = [
    "I'm on warfarin medication.",
    "My car is a grey Skoda Octavia.",
    "My brother Luka is allergic to cats.",
    "У меня аллергия на пенициллин.",
    "Our dog Bruno is nine years old.",
    "My colleague Dana is vegan.",
    "I live in a flat on Rua Augusta.",
]


@pytest.fixture
def told(keyword_memory: MemoHood) -> MemoHood:
    for i, text in enumerate(FACTS):
        keyword_memory.capture(text, namespace="u1", at=MONDAY.replace(hour=9 + i))
    assert len(keyword_memory.list_facts("u1")) == len(FACTS)
    return keyword_memory


@pytest.mark.parametrize(
    ("question", "needed"),
    [
        ("Should I refill my pills before the trip?", "warfarin"),
        ("Is the vehicle due for an inspection soon?", "Skoda"),
        ("Any birthday present idea for my sibling?", "Luka"),
        ("Что выпить от простуды?", "пенициллин"),
        ("How often should the pet see a vet?", "Bruno"),
        ("Is my landlord allowed to raise the rent?", "Rua Augusta"),
    ],
)
def test_a_question_brings_the_facts_of_its_topic(
    told: MemoHood, question: str, needed: str
) -> None:
    recall = told.recall(question, namespace="u1", use_gate=False, at=day(1))
    assert any(needed in f.statement for f in recall.facts), [f.statement for f in recall.facts]


def test_someone_elses_fact_is_not_routed_as_the_users(told: MemoHood) -> None:
    recall = told.recall("What should I cook tonight?", namespace="u1", use_gate=False, at=day(1))
    assert not any("Dana" in f.statement for f in recall.facts)
    family = told.recall("Dinner ideas for my family?", namespace="u1", use_gate=False, at=day(1))
    assert any("Luka" in f.statement for f in family.facts)  # the family as a whole is asked


def test_intents_of_questions() -> None:
    assert [i.name for i in intents_of("which painkiller is safe with my meds?")] == ["health"]
    assert "vehicles" in [i.name for i in intents_of("Где лучше парковать машину?")]
    assert intents_of("ok") == ()


def test_naming_a_relative_routes_only_that_relatives_facts(keyword_memory: MemoHood) -> None:
    keyword_memory.capture("My neighbour's toddler is called Wren.", namespace="u1", at=MONDAY)
    keyword_memory.capture("My son is called Otto.", namespace="u1", at=day(1))
    for question in ("What's my boy's name?", "How old is my son now?"):
        recall = keyword_memory.recall(question, namespace="u1", use_gate=False)
        said = " ".join(f.statement for f in recall.facts)
        assert "Otto" in said and "Wren" not in said, question


def test_a_work_question_naming_nobody_brings_the_colleagues(keyword_memory: MemoHood) -> None:
    keyword_memory.capture("My manager is Marisol.", namespace="u1", at=MONDAY)
    keyword_memory.capture("My cousin Aldo is a pilot.", namespace="u1", at=day(1))
    recall = keyword_memory.recall("Who do I report to?", namespace="u1", use_gate=False)
    said = " ".join(f.statement for f in recall.facts)
    assert "Marisol" in said and "Aldo" not in said


@pytest.mark.parametrize(
    "question",
    ["Who am I going out with?", "Who was I dating last winter?", "С кем я встречалась в мае?"],
)
def test_asking_whom_the_user_dates_names_the_partner(question: str) -> None:
    from memo_core.memory.ranking import analyse_query

    assert "partner" in analyse_query(question).relations
    for other in ("What date is my dentist appointment?", "Когда у меня встреча с юристом?"):
        assert "partner" not in analyse_query(other).relations
