"""SUPERSEDE: versions kept in order, history with dates, as_of, reinforcement."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memo_core.errors import InvalidInputError, NotFoundError
from memo_core.llm import FakeLLM
from memo_core.memory import MemoHood
from memo_core.memory.config import MemoryConfig
from memo_core.memory.versions import Existing, NewFact, match_fact

from .conftest import MONDAY, day


def _chain_of_three(memory: MemoHood) -> list[str]:
    a = memory.capture(
        "My weekly 1:1 with Priyanka is on Tuesdays at 10:00.", namespace="u1", at=MONDAY
    )
    b = memory.capture(
        "Priyanka shifted our 1:1 to Wednesdays at 15:00.", namespace="u1", at=day(14)
    )
    c = memory.capture("Changed again: the 1:1 is now Thursday 09:30.", namespace="u1", at=day(30))
    return [a.added[0].id, b.added[0].id, c.added[0].id]


def test_a_chain_of_three_changes_keeps_every_version_in_order(memory: MemoHood) -> None:
    ids = _chain_of_three(memory)
    versions = memory.history(ids[1], namespace="u1")
    assert [v.id for v in versions] == ids
    assert [v.version for v in versions] == [1, 2, 3]
    assert versions[0].valid_to == versions[1].valid_from == day(14)
    assert versions[1].valid_to == versions[2].valid_from == day(30)
    assert versions[0].superseded_by == ids[1] and versions[1].superseded_by == ids[2]
    assert versions[2].valid_to is None and versions[2].superseded_by is None
    assert len({v.chain_id for v in versions}) == 1
    [current] = memory.list_facts("u1")
    assert current.id == ids[2]
    assert len(memory.list_facts("u1", include_superseded=True)) == 3


def test_recall_shows_the_current_version_and_the_history(memory: MemoHood) -> None:
    _chain_of_three(memory)
    recall = memory.recall("When's my next 1:1 with Priyanka?", namespace="u1", at=day(40))
    assert [f.statement for f in recall.facts] == ["The 1:1 is now Thursday 09:30."]
    assert [h.version for h in recall.history] == [1, 2]
    assert "Tuesdays" not in " ".join(f.statement for f in recall.facts)
    assert "Earlier versions" in recall.block and "Tuesdays" in recall.block


def test_as_of_answers_with_what_was_current_then(memory: MemoHood) -> None:
    _chain_of_three(memory)
    then = memory.recall(
        "When is the 1:1 with Priyanka?", namespace="u1", as_of=day(20), at=day(40)
    )
    assert [f.statement for f in then.facts] == ["Priyanka shifted our 1:1 to Wednesdays at 15:00."]
    assert [h.version for h in then.history] == [1]
    before = memory.recall(
        "When is the 1:1 with Priyanka?",
        namespace="u1",
        as_of=MONDAY - timedelta(days=1),
        at=day(40),
    )
    assert before.facts == ()


def test_same_slot_supersedes_without_correction_words(memory: MemoHood) -> None:
    memory.capture("I live in Berlin, near Boxhagener Platz.", namespace="u1", at=MONDAY)
    result = memory.capture(
        "I no longer live in Berlin, I moved to Lisbon.", namespace="u1", at=day(50)
    )
    [old] = result.superseded
    assert "Berlin" in old.statement and old.valid_to == day(50)
    [new] = result.added
    assert new.key == "self.residence" and "Boxhagener" not in new.statement
    assert new.pinned  # identity stays pinned across versions


def test_remember_with_a_key_supersedes(memory: MemoHood) -> None:
    first = memory.remember("Preferred editor: Vim", namespace="u1", key="editor", at=MONDAY)
    second = memory.remember("Preferred editor: Helix", namespace="u1", key="editor", at=day(2))
    assert second.chain_id == first.chain_id and second.version == 2
    assert memory.get(first.id, namespace="u1").valid_to == day(2)
    same = memory.remember("Preferred editor: Helix", namespace="u1", key="editor", at=day(3))
    assert same.id == second.id and same.reinforcements == 1
    with pytest.raises(InvalidInputError):
        memory.remember("x", namespace="u1", category="nonsense")


def test_near_duplicates_reinforce_instead_of_adding(memory: MemoHood) -> None:
    first = memory.capture("I'm allergic to penicillin.", namespace="u1", at=MONDAY)
    again = memory.capture("By the way, I am allergic to penicillin!", namespace="u1", at=day(5))
    assert again.added == () and [f.id for f in again.reinforced] == [first.added[0].id]
    assert again.reinforced[0].reinforcements == 1
    assert len(memory.list_facts("u1")) == 1


def test_a_correction_never_lands_on_an_unrelated_fact(memory: MemoHood) -> None:
    memory.capture("The grant report is due on March 20.", namespace="u1", at=MONDAY)
    result = memory.capture(
        "Actually, the dentist appointment is on Friday.", namespace="u1", at=day(1)
    )
    assert result.superseded == ()
    assert len(memory.list_facts("u1")) == 2


def test_russian_chain_with_transfers(memory: MemoHood) -> None:
    memory.capture("Мне нужно сдать диплом до 15 мая.", namespace="u1", at=MONDAY)
    memory.capture("Научрук сказал, что срок сдвинули на 22 мая.", namespace="u1", at=day(30))
    last = memory.capture(
        "Опять перенесли! Окончательный срок теперь 29 мая.", namespace="u1", at=day(50)
    )
    versions = memory.history(last.added[0].id, namespace="u1")
    assert [
        ("15 мая" in v.statement, "22 мая" in v.statement, "29 мая" in v.statement)
        for v in versions
    ] == [(True, False, False), (False, True, False), (False, False, True)]


def test_llm_decides_in_the_borderline_similarity_band(backend_url, lexical_gate) -> None:
    llm = FakeLLM(['{"relation": "supersedes"}'])
    cfg = MemoryConfig(contradiction_band=(0.05, 0.7))
    with MemoHood(backend_url, embedder=None, llm=llm, gate=lexical_gate, config=cfg) as memory:
        memory.capture("I usually run on forest trails.", namespace="u1", at=MONDAY)
        result = memory.capture("These days I usually run on the track.", namespace="u1", at=day(3))
        assert len(llm.calls) == 1
        assert len(result.superseded) == 1


def test_match_fact_rules_are_pure() -> None:
    cfg = MemoryConfig()
    old = Existing("f1", "self.residence", "self", "identity", frozenset({"live", "berlin"}), False)
    moved = NewFact(
        "self.residence", "self", "identity", frozenset({"live", "lisbon"}), False, False
    )
    assert match_fact(moved, [old], cfg).action == "supersede"
    same = NewFact(
        "self.residence", "self", "identity", frozenset({"live", "berlin"}), False, False
    )
    assert match_fact(same, [old], cfg).action == "reinforce"
    other = NewFact(None, "sister", "identity", frozenset({"live", "berlin"}), False, True)
    assert match_fact(other, [old], cfg).action == "new"  # never across subjects


def test_unknown_ids_raise_not_found(memory: MemoHood) -> None:
    with pytest.raises(NotFoundError):
        memory.get("fact_missing", namespace="u1")
    with pytest.raises(NotFoundError):
        memory.history("fact_missing", namespace="u1")


def test_shared_clock_digits_do_not_make_a_correction_target(memory: MemoHood) -> None:
    memory.capture("Our standup is at 9:00 every day.", namespace="u1", at=MONDAY)
    result = memory.capture(
        "Actually the dentist is at 10:00 on Friday.", namespace="u1", at=day(1)
    )
    assert result.superseded == ()


def test_a_reworded_russian_schedule_change_supersedes(memory: MemoHood) -> None:
    memory.capture(
        "Тренировки у меня по понедельникам и средам в 19:00.", namespace="u1", at=MONDAY
    )
    result = memory.capture(
        "Тренер поменял расписание: теперь вторник и четверг в 20:00.", namespace="u1", at=day(30)
    )
    [old] = result.superseded
    assert "понедельникам" in old.statement


def test_a_shared_number_is_not_a_shared_word() -> None:
    from memo_core.memory.versions import _shares_a_word

    # "1 June" / "1 February": the same day number says nothing about the topic
    assert not _shares_a_word(
        frozenset({"1", "june", "final"}), frozenset({"1", "knee", "surgeri"})
    )
    assert _shares_a_word(frozenset({"1", "grant", "june"}), frozenset({"grant", "may", "15"}))
