"""Capture: rules first (EN + RU, no LLM), borderline turns, assistant turns, raw turns kept."""

from __future__ import annotations

import pytest

from memo_core.errors import InvalidInputError
from memo_core.llm import FakeLLM
from memo_core.memory import MemoHood
from memo_core.memory.extract import analyze_turn, drop_superseded_values

from .conftest import MONDAY, day


def test_penicillin_in_passing_is_recalled_a_month_later_without_any_llm(
    memory: MemoHood,
) -> None:
    assert memory.llm is None
    memory.capture(
        "Morning! Quick one before my coffee.", namespace="u1", at=MONDAY, session_id="monday"
    )
    result = memory.capture(
        "By the way, I'm allergic to penicillin.",
        namespace="u1",
        at=day(0, 10),
        session_id="monday",
    )
    assert result.decision == "keep"
    assert not result.llm_called
    [fact] = result.added
    assert fact.category == "health" and fact.pinned
    assert "penicillin" in fact.statement and not fact.statement.startswith("By the way")

    recall = memory.recall(
        "Suggest an antibiotic for a sore throat",
        namespace="u1",
        at=day(31),
    )
    assert recall.gate.action == "recall"
    assert any("penicillin" in f.statement for f in recall.facts)
    assert "penicillin" in recall.block


@pytest.mark.parametrize(
    ("text", "category", "pinned"),
    [
        ("I'm allergic to peanuts.", "health", True),
        ("My name is Oskar, everyone calls me Ozzy.", "identity", True),
        ("My birthday is November 3.", "identity", True),
        ("We decided to go with PostgreSQL for the billing service.", "decision", False),
        ("I prefer tea over coffee in the mornings.", "preference", False),
        ("The grant report is due on March 20.", "plan", False),
        ("Please no emojis in your replies.", "instruction", False),
        ("Remember this: the spare key is under the blue pot.", "fact", True),
        ("У меня аллергия на пенициллин.", "health", True),
        ("Меня зовут Аня.", "identity", True),
        ("Мы решили использовать Kotlin для бэкенда.", "decision", False),
        ("Отвечай мне покороче, пожалуйста.", "instruction", False),
        ("Мне нужно сдать отчёт до 15 мая.", "plan", False),
        ("Запомни: пароль от вайфая на холодильнике.", "fact", True),
    ],
)
def test_rules_extract_facts_in_english_and_russian(
    memory: MemoHood, text: str, category: str, pinned: bool
) -> None:
    result = memory.capture(text, namespace="u1", at=MONDAY)
    assert result.decision == "keep", result
    assert not result.llm_called
    [fact] = result.added
    assert fact.category == category
    assert fact.pinned is pinned


@pytest.mark.parametrize(
    "text",
    [
        "thanks!",
        "ok cool",
        "haha",
        "спасибо, понял",
        "ну ладно)",
        "What time is it in Tokyo?",
        "Как дела?",
    ],
)
def test_small_talk_and_questions_become_no_fact(memory: MemoHood, text: str) -> None:
    result = memory.capture(text, namespace="u1", at=MONDAY)
    assert result.decision == "drop"
    assert result.added == ()
    assert memory.list_facts("u1") == []


def test_raw_turns_are_kept_and_searchable_even_without_a_fact(memory: MemoHood) -> None:
    result = memory.capture(
        "we played way too many board games over the break", namespace="u1", at=MONDAY
    )
    assert result.added == ()
    assert result.turn_id
    recall = memory.recall(
        "any board games you remember?", namespace="u1", at=day(3), use_gate=False
    )
    assert [t.id for t in recall.turns] == [result.turn_id]
    assert "board games" in recall.block


def test_assistant_suggestions_never_become_the_users_facts(memory: MemoHood) -> None:
    memory.capture("Any idea what to cook?", namespace="u1", at=MONDAY)
    reply = memory.capture(
        "How about a slow-roasted steak? I always recommend it, you love it.",
        namespace="u1",
        role="assistant",
        at=day(0, 10),
    )
    assert reply.decision == "drop" and reply.added == ()
    memory.capture(
        "Ha, no. I switched to a vegan diet, so no meat anymore.", namespace="u1", at=day(0, 11)
    )
    facts = memory.list_facts("u1")
    assert [f.category for f in facts] == ["health"]
    assert all("steak" not in f.statement for f in facts)
    recall = memory.recall("What should I cook tonight?", namespace="u1", at=day(10))
    assert "vegan" in recall.block
    assert "steak" not in recall.block  # assistant turns are not recalled by default


def test_no_need_to_keep_that_is_honoured(memory: MemoHood) -> None:
    result = memory.capture(
        "The loyalty card is in my desk drawer, so no need to keep that.", namespace="u1", at=MONDAY
    )
    assert result.added == ()
    assert memory.list_facts("u1") == []


def test_russian_capture_keeps_the_user_apart_from_relatives(memory: MemoHood) -> None:
    memory.capture("Хочу, чтобы ты знал: у меня аллергия на пенициллин.", namespace="u1", at=MONDAY)
    result = memory.capture("А у мамы аллергия на пыльцу берёзы.", namespace="u1", at=day(0, 10))
    [mother] = result.added
    assert mother.subject == "mother" and mother.subject_kind == "person"
    recall = memory.recall("Какой антибиотик мне взять от ангины?", namespace="u1", at=day(40))
    assert "пенициллин" in recall.block
    assert "пыльц" not in recall.block
    asked = memory.recall("Что подарить маме весной?", namespace="u1", at=day(40))
    assert "пыльц" in asked.block


def test_pronoun_in_a_later_turn_refers_to_the_person_named_before(memory: MemoHood) -> None:
    memory.capture(
        "Запомни: у дочки Вари день рождения 12 октября.", namespace="u1", at=MONDAY, session_id="s"
    )
    result = memory.capture(
        "Она сейчас увлекается динозаврами.",
        namespace="u1",
        at=day(0, 9) + (day(0, 10) - day(0, 9)) / 6,
        session_id="s",
    )
    [fact] = result.added
    assert fact.subject.startswith("daughter")
    assert fact.about


def test_corrections_drop_the_old_value_from_the_new_statement() -> None:
    assert (
        drop_superseded_values("I no longer live in Berlin, I moved to Lisbon last week.")
        == "I moved to Lisbon last week."
    )
    assert (
        drop_superseded_values("the deadline moved from Friday to Monday, March 23.")
        == "the deadline moved to Monday, March 23."
    )
    assert drop_superseded_values("я больше не живу в Казани, переехал в Новосибирск.") == (
        "переехал в Новосибирск."
    )
    assert "React" not in drop_superseded_values("the dashboard will use Svelte instead of React")


def test_analyze_turn_is_pure_and_scores_signals() -> None:
    analysis = analyze_turn("Actually, the standup moved to 9:45.", ref=MONDAY.date())
    assert analysis.decision == "keep"
    assert "correction" in analysis.signals
    assert analysis.facts[0].correction


def test_borderline_without_llm_is_kept_as_an_episodic_turn(memory: MemoHood) -> None:
    result = memory.capture("We played board games all weekend.", namespace="u1", at=MONDAY)
    assert result.decision == "borderline"
    assert not result.llm_called
    assert result.added == ()
    assert "episodic" in result.reason


def test_borderline_with_llm_costs_exactly_one_call(backend_url, lexical_gate) -> None:
    llm = FakeLLM(
        [
            '```json\n{"keep": true, "facts": [{"statement": "I play board games most weekends.",'
            ' "category": "preference", "pinned": false, "about": "self"},]}\n```'
        ]
    )
    with MemoHood(backend_url, embedder=None, llm=llm, gate=lexical_gate) as memory:
        result = memory.capture("We played board games all weekend.", namespace="u1", at=MONDAY)
        assert len(llm.calls) == 1
        assert llm.calls[0].json_mode
        assert result.llm_called and result.decision == "keep"
        [fact] = result.added
        assert fact.origin == "llm" and fact.category == "preference"
        # Clear signals never reach the LLM.
        memory.capture("I'm allergic to penicillin.", namespace="u1", at=day(1))
        assert len(llm.calls) == 1


@pytest.mark.parametrize("reply", ["not json at all", '{"keep": "maybe", "facts": 7}', None])
def test_llm_failure_keeps_the_turn_and_loses_nothing(backend_url, lexical_gate, reply) -> None:
    llm = FakeLLM([] if reply is None else [reply])  # None: the provider raises
    with MemoHood(backend_url, embedder=None, llm=llm, gate=lexical_gate) as memory:
        result = memory.capture("We played board games all weekend.", namespace="u1", at=MONDAY)
        assert result.llm_called
        assert result.added == ()
        assert result.turn_id
        recall = memory.recall("board games", namespace="u1", at=day(1), use_gate=False)
        assert [t.id for t in recall.turns] == [result.turn_id]


def test_capture_rejects_bad_input(memory: MemoHood) -> None:
    with pytest.raises(InvalidInputError):
        memory.capture("hi", namespace="u1", role="robot")
    with pytest.raises(InvalidInputError):
        memory.capture(b"bytes", namespace="u1")  # type: ignore[arg-type]
    assert memory.capture("   ", namespace="u1").decision == "drop"


@pytest.mark.parametrize(
    "text",
    [
        "The man behind me in the queue is allergic to cats.",
        "Someone at my climbing club takes insulin twice a day.",
        "У девушки в соседнем купе аллергия на орехи.",
        "Один блогер обожает устриц.",
    ],
)
def test_a_strangers_fact_is_never_the_users(memory: MemoHood, text: str) -> None:
    memory.capture(text, namespace="u1", at=MONDAY)
    assert all(f.subject_kind != "self" for f in memory.list_facts("u1"))
    recall = memory.recall("Anything I can't eat or take?", namespace="u1", use_gate=False)
    assert not [f for f in recall.facts if f.subject_kind == "self"]


@pytest.mark.parametrize(
    "text",
    [
        "You said I should buy an e-bike for the commute.",
        "Your idea was that I switch to a standing desk.",
        "Ты советовал мне записаться на йогу по средам.",
        "Maybe I'll learn the cello this winter, maybe not.",
        "Может, и запишусь на бокс осенью, а может и нет.",
    ],
)
def test_reported_suggestions_and_maybe_nots_are_no_facts(memory: MemoHood, text: str) -> None:
    result = memory.capture(text, namespace="u1", at=MONDAY)
    assert result.added == ()
    assert memory.list_facts("u1") == []
