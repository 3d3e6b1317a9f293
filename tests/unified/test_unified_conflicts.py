"""Conflict flags: a remembered deadline against a document's, and no false alarms."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.kb import MemoBase
from memo_core.memory import Fact, MemoHood
from memo_core.types import Hit
from memo_core.unified import UnifiedItem, detect_conflicts, extract_values, recall_all
from memo_core.unified.render import document_label, memory_label

from .conftest import USER, add_grant, day, tell_hollis

QUESTION = "When is the Hollis report due?"


def fact_item(fact: Fact, n: int = 1) -> UnifiedItem:
    return UnifiedItem(
        f"memory:{fact.id}",
        "memory",
        "fact",
        fact.statement,
        n,
        n,
        0.0,
        memory_label(fact),
        fact=fact,
    )


def chunk_item(
    text: str, n: int = 1, *, title: str = "Doc", locator: dict | None = None
) -> UnifiedItem:
    hit = Hit(f"c{n}", f"d{n}", text, 1.0, source=f"doc{n}.md", title=title, locator=locator or {})
    return UnifiedItem(f"kb:c{n}", "kb", "chunk", text, n, n, 0.0, document_label(hit), hit=hit)


def remember(memory: MemoHood, text: str, namespace: tuple[str, ...] = USER) -> Fact:
    return memory.remember(text, namespace=namespace, at=day(1))


# -- values -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("due 2026-03-23", (2026, 3, 23)),
        ("due on 23 March 2026", (2026, 3, 23)),
        ("due March 23rd, 2026", (2026, 3, 23)),
        ("due on the 23rd of March", (None, 3, 23)),
        ("due March 23", (None, 3, 23)),
        ("сдать до 23 марта 2026", (2026, 3, 23)),
    ],
)
def test_dates_are_read_in_their_common_spellings(text: str, key: tuple) -> None:
    [value] = extract_values(text)
    assert value.kind == "date" and value.key == key and value.attribute == "deadline"


def test_numbers_need_a_unit_and_names_need_a_role() -> None:
    values = extract_values("Trip budget: 2,500 EUR; deposit €2.5m; term 24 months; 15% off.")
    assert [(v.key, v.attribute) for v in values] == [
        (("EUR", 2500.0), "budget"),
        (("EUR", 2_500_000.0), "deposit"),
        (("month", 24.0), "term"),
        (("%", 15.0), None),
    ]
    assert extract_values("Section 4.1 of the 2026 plan, room 204, we may 5 times.") == []
    [name] = extract_values("Update: Tom Baker is our new contact for Northwind.")
    assert (name.kind, name.key, name.attribute) == ("name", ("tom", "baker"), "contact")
    assert extract_values("Maria and Tom met in Berlin.") == []


# -- the flagship conflict ----------------------------------------------------------------


def test_remembered_deadline_against_document_deadline_is_flagged(
    memory: MemoHood, kb: MemoBase
) -> None:
    tell_hollis(memory)  # March 20 -> March 23 -> March 27 (current)
    add_grant(kb)  # the schedule says 30 March 2026
    result = recall_all(QUESTION, memory=memory, kb=kb, namespace=USER, at=day(7))
    [conflict] = result.conflicts
    fact = next(f for f in result.memory_facts if "March 27" in f.statement)
    chunk = result.hits[0]
    assert (conflict.kind, conflict.attribute) == ("date", "deadline")
    assert "Hollis" in conflict.subject and "report" in conflict.subject
    assert dict(conflict.sides) == {
        f"memory:{fact.id}": "March 27",
        f"kb:{chunk.chunk_id}": "30 March 2026 (2026-03-30)",
    }
    text = result.render()
    numbers = {item.ref: n for n, item in enumerate(result.items, start=1)}
    line = next(line for line in text.splitlines() if line.startswith("- Hollis"))
    assert f'[{numbers[f"memory:{fact.id}"]}] memory says "March 27"' in line
    assert f'[{numbers[f"kb:{chunk.chunk_id}"]}] document says "30 March 2026' in line
    # superseded versions (March 20, March 23) are history, never a side
    assert '"March 20"' not in line and '"March 23"' not in line
    assert result.conflicts_for(f"memory:{fact.id}") == (conflict,)


def test_agreeing_deadline_is_not_flagged(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory, final="March 30")
    add_grant(kb)
    result = recall_all(QUESTION, memory=memory, kb=kb, namespace=USER, at=day(7))
    assert any("March 30" in f.statement for f in result.memory_facts) and result.hits
    assert result.conflicts == () and "Conflicts" not in result.render()


def test_unrelated_subject_is_not_flagged(memory: MemoHood) -> None:
    other = remember(memory, "The Baker audit is due on March 27.")
    grant = chunk_item("Hollis grant: the final report is due on 30 March 2026.")
    assert detect_conflicts([fact_item(other), grant]) == []


def test_a_different_attribute_is_not_flagged(memory: MemoHood) -> None:
    kickoff = remember(memory, "The Hollis report kickoff starts on March 5.")
    grant = chunk_item("Hollis grant: the final report is due on 30 March 2026.")
    assert detect_conflicts([fact_item(kickoff), grant]) == []


def test_one_agreeing_value_among_several_means_no_conflict(memory: MemoHood) -> None:
    fact = remember(memory, "The Hollis report deadline is March 27.")
    both = chunk_item(
        "Hollis report: interim report due 15 January 2026, final report due 27 March 2026."
    )
    assert detect_conflicts([fact_item(fact), both]) == []


def test_number_and_name_conflicts(memory: MemoHood) -> None:
    budget = remember(memory, "My budget for the Lisbon trip is 2000 euros.")
    lead = remember(memory, "The Hollis project lead is Maria Lopez.")
    doc = chunk_item("Lisbon trip budget: 2,500 EUR per person. Hollis project lead: Tom Baker.")
    conflicts = {
        c.kind: c for c in detect_conflicts([fact_item(budget, 1), fact_item(lead, 2), doc])
    }
    assert set(conflicts) == {"number", "name"}
    assert conflicts["number"].attribute == "budget"
    assert [v for _, v in conflicts["number"].sides] == ["2000 euros", "2,500 EUR"]
    assert [v for _, v in conflicts["name"].sides] == ["Maria Lopez", "Tom Baker"]
    same = chunk_item("Lisbon trip budget: €2,000 in total. Hollis project lead: Maria.")
    assert detect_conflicts([fact_item(budget, 1), fact_item(lead, 2), same]) == []


def test_two_memory_facts_conflict_but_versions_of_one_do_not(memory: MemoHood) -> None:
    user_level = remember(memory, "The Hollis report is due on March 27.")
    session = remember(memory, "The Hollis report is due on March 30.", ("alice", "s1"))
    assert user_level.chain_id != session.chain_id
    [conflict] = detect_conflicts([fact_item(user_level, 1), fact_item(session, 2)])
    assert [v for _, v in conflict.sides] == ["March 27", "March 30"]
    tell_hollis(memory, namespace=("bob",))
    versions = memory.history(
        next(f for f in memory.list_facts(("bob",)) if "Hollis" in f.statement).id,
        namespace=("bob",),
    )
    assert len({v.chain_id for v in versions}) == 1 and len(versions) == 3
    assert detect_conflicts([fact_item(v, i) for i, v in enumerate(versions, start=1)]) == []


def test_documents_are_not_checked_against_each_other() -> None:
    a = chunk_item("Hollis grant: the final report is due on 30 March 2026.", 1)
    b = chunk_item("Hollis grant: the final report is due on 2 April 2026.", 2)
    assert detect_conflicts([a, b]) == []


def test_three_sides_merge_into_one_conflict(memory: MemoHood) -> None:
    fact = remember(memory, "The Hollis report deadline is March 27.")
    a = chunk_item("Hollis grant: the final report is due on 30 March 2026.", 1)
    b = chunk_item("Hollis grant: the final report is due on 2 April 2026.", 2)
    [conflict] = detect_conflicts([fact_item(fact), a, b])
    assert conflict.refs == (f"memory:{fact.id}", "kb:c1", "kb:c2")


def test_heading_and_title_give_a_chunk_its_subject(memory: MemoHood, tmp_path: Path) -> None:
    fact = remember(memory, "The Hollis report deadline is March 27.")
    bare = chunk_item("The report is due on 30 March 2026.")
    assert detect_conflicts([fact_item(fact), bare]) == []
    headed = chunk_item(
        "The report is due on 30 March 2026.", title="Grant schedule", locator={"heading": "Hollis"}
    )
    assert len(detect_conflicts([fact_item(fact), headed])) == 1


def test_iso_and_spelled_dates_agree(memory: MemoHood) -> None:
    fact = remember(memory, "The Hollis report deadline is March 27.")
    iso = chunk_item("Hollis grant: the final report is due 2026-03-27.")
    assert detect_conflicts([fact_item(fact), iso]) == []
    other_year = remember(memory, "The Hollis report deadline is 27 March 2025.")
    [conflict] = detect_conflicts([fact_item(other_year), iso])
    assert [v for _, v in conflict.sides] == ["27 March 2025 (2025-03-27)", "2026-03-27"]
