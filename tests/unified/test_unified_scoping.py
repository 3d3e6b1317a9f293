"""Namespaces on the memory side, owners on the knowledge-base side, and the gate."""

from __future__ import annotations

from memo_core.kb import MemoBase
from memo_core.memory import MemoHood
from memo_core.unified import recall_all

from .conftest import USER, add_grant, day, tell_hollis

QUESTION = "When is the Hollis report due?"


def test_memory_reads_only_the_namespace_and_its_ancestors(memory: MemoHood) -> None:
    tell_hollis(memory)  # alice: March 27
    memory.capture(
        "The Hollis report deadline for my team is April 2.", namespace=("bob",), at=day(3)
    )
    memory.capture(
        "Hollis report draft goes to Carol on March 25.", namespace=("alice", "s9"), at=day(3)
    )
    bob = recall_all(QUESTION, memory=memory, kb=None, namespace=("bob",), at=day(7))
    assert bob.items and all(i.fact is None or i.fact.namespace == ("bob",) for i in bob.items)
    assert not any("March 27" in i.text for i in bob.items)
    alice_session = recall_all(
        QUESTION, memory=memory, kb=None, namespace=("alice", "s1"), at=day(7)
    )
    spaces = {i.fact.namespace for i in alice_session.items if i.fact is not None}
    assert spaces == {("alice",)}  # the ancestor, not bob, not the sibling session s9
    assert any("March 27" in i.text for i in alice_session.items)


def test_documents_are_scoped_to_their_owner(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory)
    add_grant(kb, owner="team-a")
    kb.add_document(
        "Hollis report checklist: the report needs a cover page and a budget table.",
        source="checklist.md",
        title="Checklist",
        owner="team-b",
    )
    # kb_floor off: this is about owners; the checklist says nothing of when (below the floor).
    a, b = (
        recall_all(
            QUESTION, memory=memory, kb=kb, namespace=USER, owner=team, at=day(7), kb_floor=False
        )
        for team in ("team-a", "team-b")
    )
    assert {h.title for h in a.hits} == {"Grant schedule"} and len(a.conflicts) == 1
    assert {h.title for h in b.hits} == {"Checklist"} and b.conflicts == ()
    default = recall_all(QUESTION, memory=None, kb=kb, namespace=None, at=day(7))
    assert default.hits == () and default.gate is None  # the base's own owner has nothing


def test_small_talk_skips_memory_and_keeps_only_keyword_matches(
    memory: MemoHood, kb: MemoBase
) -> None:
    tell_hollis(memory)
    add_grant(kb)
    kb.add_document(
        "Thanks to the Hollis foundation for funding.", source="thanks.md", title="Thanks"
    )
    skipped = recall_all("thanks!", memory=memory, kb=kb, namespace=USER, at=day(7))
    assert skipped.gate is not None and skipped.gate.action == "skip"
    assert skipped.memory_facts == ()
    assert [h.title for h in skipped.hits] == ["Thanks"]  # asked anyway; keyword match only
    assert all(h.keyword_rank is not None for h in skipped.hits)
    forced = recall_all(
        "thanks!", memory=memory, kb=kb, namespace=USER, at=day(7), use_gate=False, kb_floor=False
    )
    assert forced.gate is not None and forced.gate.action == "recall"
    assert len(forced.hits) == 2  # the vector leg's neighbour comes back when not gated


def test_documents_below_the_relevance_floor_are_left_out(memory: MemoHood, kb: MemoBase) -> None:
    add_grant(kb)  # about a grant report, nothing about bicycles
    kb.add_document(
        "The bicycle shed opens at seven and the tyre pump hangs by the door.",
        source="shed.md",
        title="Shed",
    )
    question = "Where does the tyre pump for the bicycle hang?"
    unfloored = recall_all(question, memory=None, kb=kb, namespace=None, kb_floor=False)
    assert {h.title for h in unfloored.hits} == {"Shed", "Grant schedule"}  # a neighbour
    floored = recall_all(question, memory=None, kb=kb, namespace=None)
    assert [h.title for h in floored.hits] == ["Shed"]
    nothing = recall_all(
        "What colour is the lighthouse keeper's cat?", memory=None, kb=kb, namespace=None
    )
    assert nothing.hits == () and nothing.items == ()


def test_kb_only_and_memory_only(memory: MemoHood, kb: MemoBase) -> None:
    tell_hollis(memory)
    add_grant(kb)
    docs = recall_all(QUESTION, memory=None, kb=kb, namespace=None)
    assert docs.items and {i.source for i in docs.items} == {"kb"} and docs.gate is None
    mem = recall_all(QUESTION, memory=memory, kb=None, namespace=USER, at=day(7))
    assert mem.items and {i.source for i in mem.items} == {"memory"}
    fact = mem.items[0]
    assert fact.version == 3 and fact.valid_to is None and len(fact.history) == 2
    assert fact.label == "[memory, said 2026-03-08, current, version 3]"
