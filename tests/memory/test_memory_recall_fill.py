"""A small namespace's other current facts fill what the token budget leaves, under their own
heading (``MemoryConfig.recall_fill``): a question sharing no word and no topic with a fact
still brings it to the model, while the matched facts keep their place and their meaning."""

from __future__ import annotations

from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.ranking import FILL_HEADING
from memo_core.prompt import estimate_tokens

from .conftest import MONDAY, day

QUESTION = "What do I perform on stage?"  # shares no word and no intent with the fact


def _tell(memory: MemoHood) -> None:
    memory.capture("I play the bassoon in a community orchestra.", namespace="u1", at=MONDAY)
    memory.capture("My neighbour Ruaridh keeps bees.", namespace="u1", at=day(1))
    memory.capture("The tram pass renews on the 14th.", namespace="u1", at=day(2))


def test_a_fact_no_source_offers_fills_the_budget_under_its_heading(
    keyword_memory: MemoHood,
) -> None:
    _tell(keyword_memory)
    recall = keyword_memory.recall(QUESTION, namespace="u1", use_gate=False, at=day(5))
    assert not any("bassoon" in f.statement for f in recall.facts)  # nothing matched it
    assert any("bassoon" in f.statement for f in recall.unmatched)
    assert FILL_HEADING in recall.block
    assert recall.block.index(FILL_HEADING) < recall.block.index("bassoon")


def test_someone_elses_fact_never_fills_unless_named(keyword_memory: MemoHood) -> None:
    _tell(keyword_memory)
    recall = keyword_memory.recall(QUESTION, namespace="u1", use_gate=False, at=day(5))
    assert "Ruaridh" not in recall.block


def test_fill_comes_after_the_matched_facts_and_only_in_what_is_left(
    keyword_memory: MemoHood,
) -> None:
    _tell(keyword_memory)
    recall = keyword_memory.recall(
        "When does the tram pass renew?", namespace="u1", use_gate=False, at=day(5)
    )
    assert [f.statement for f in recall.facts][:1] == ["The tram pass renews on the 14th."]
    assert not any("tram" in f.statement for f in recall.unmatched)
    # a budget that holds the matched fact alone (and less than the heading more)
    alone = estimate_tokens(recall.block.split(FILL_HEADING)[0]) + 2
    tight = keyword_memory.recall(
        "When does the tram pass renew?",
        namespace="u1",
        use_gate=False,
        at=day(5),
        token_budget=alone,
    )
    assert tight.facts and not tight.unmatched  # the matched fact keeps the room


def test_fill_is_off_with_an_explicit_k_or_by_config(
    backend_url: str, lexical_gate: RecallGate
) -> None:
    off = MemoryConfig(recall_fill=False)
    with MemoHood(backend_url, embedder=None, gate=lexical_gate, config=off) as memory:
        _tell(memory)
        recall = memory.recall(QUESTION, namespace="u1", use_gate=False, at=day(5))
        assert recall.unmatched == () and "bassoon" not in recall.block
    with MemoHood(backend_url, embedder=None, gate=lexical_gate) as memory:
        capped = memory.recall(QUESTION, namespace="u1", use_gate=False, at=day(5), k=3)
        assert capped.unmatched == ()


def test_a_fill_fact_is_shown_not_used(keyword_memory: MemoHood) -> None:
    _tell(keyword_memory)
    [before] = [f for f in keyword_memory.list_facts("u1") if "bassoon" in f.statement]
    keyword_memory.recall(QUESTION, namespace="u1", use_gate=False, at=day(40))
    after = keyword_memory.get(before.id, namespace="u1")
    assert after.last_used == before.last_used  # its decay clock keeps running
    keyword_memory.recall("Which orchestra am I in?", namespace="u1", use_gate=False, at=day(41))
    assert keyword_memory.get(before.id, namespace="u1").last_used > before.last_used
