"""Answer values: frozen, JSON round trips, refused flags, document offsets."""

from __future__ import annotations

import dataclasses
import json

import pytest

from memo_core.answer.types import (
    Answer,
    Citation,
    Claim,
    GateDecision,
    QuoteCheck,
    Refusal,
    RelatedPassage,
    result_from_dict,
)
from memo_core.errors import InvalidInputError


def _citation() -> Citation:
    return Citation(
        quote="the term is 24 months",
        chunk_id="c1",
        document_id="d1",
        source="contract.pdf",
        title="Contract",
        locator={"page": 3, "heading": ["Terms"]},
        start=10,
        end=31,
        chunk_start=1000,
        method="fuzzy",
        similarity=0.97,
    )


def test_answer_round_trips_through_json() -> None:
    cite = _citation()
    answer = Answer(
        "The term is 24 months.",
        [cite],
        0.83,
        claims=[Claim("The term is 24 months.", [cite])],
        unsupported=["the renewal fee"],
    )
    data = json.loads(json.dumps(answer.to_dict()))
    assert data["refused"] is False and data["reason"] is None
    assert data["citations"][0]["page"] == 3
    again = result_from_dict(data)
    assert isinstance(again, Answer) and again == answer
    assert not again.refused


def test_refusal_round_trips_and_is_refused() -> None:
    refusal = Refusal("not in the base", 0.12, searched=["term", "renewal"])
    data = json.loads(json.dumps(refusal.to_dict()))
    assert data == {
        "refused": True,
        "reason": "not in the base",
        "answer": None,
        "citations": [],
        "searched": ["term", "renewal"],
        "gate_score": 0.12,
        "related": [],
    }
    assert result_from_dict(data) == refusal and refusal.refused
    near = RelatedPassage("The renewal fee is 20 EUR.", "c1", "d1", "fees.md", "Fees", {"page": 2})
    with_related = Refusal("not in the base", 0.3, related=[near])
    data = json.loads(json.dumps(with_related.to_dict()))
    assert data["related"][0]["answer"] is False and data["related"][0]["locator"] == {"page": 2}
    assert result_from_dict(data) == with_related


def test_from_dict_rejects_the_other_kind() -> None:
    with pytest.raises(InvalidInputError, match="describes a Refusal"):
        Answer.from_dict(Refusal("no", 0.0).to_dict())
    with pytest.raises(InvalidInputError, match="describes an Answer"):
        Refusal.from_dict(Answer("a", [], 1.0).to_dict())


def test_citation_offsets_and_page() -> None:
    cite = _citation()
    assert (cite.document_start, cite.document_end) == (1010, 1031)
    assert cite.page == 3
    assert Citation.from_dict(cite.to_dict()) == cite


def test_values_are_frozen_and_sequences_become_tuples() -> None:
    answer = Answer("a", [_citation()], 1.0, claims=[], unsupported=["x"])
    assert isinstance(answer.citations, tuple) and isinstance(answer.unsupported, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        answer.text = "b"  # type: ignore[misc]
    hash(answer)  # hashable despite the locator dict inside
    with pytest.raises(InvalidInputError, match="unknown match method"):
        Citation("q", "c", "d", "s", 0, 1, method="guess")  # type: ignore[arg-type]


def test_gate_decision_and_quote_check_round_trip() -> None:
    gate = GateDecision(True, 0.7, 0.5, {"top_vector": 0.61})
    assert GateDecision.from_dict(json.loads(json.dumps(gate.to_dict()))) == gate
    check = QuoteCheck(True, "normalized", 3, 9, 1.0)
    assert QuoteCheck.from_dict(json.loads(json.dumps(check.to_dict()))) == check
