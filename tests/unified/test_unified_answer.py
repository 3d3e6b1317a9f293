"""Memory facts as labelled evidence in the guarded engine; document quotes still verified."""

from __future__ import annotations

import json
import re

import pytest

from memo_core.answer import Answer, result_from_dict
from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.evidence import MemoryEvidence
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.llm import FakeLLM
from memo_core.memory import Fact, MemoHood

from .conftest import USER, add_contract, add_grant, day, tell_hollis

QUESTION = "When is the Hollis report due?"


@pytest.fixture
def base(kb: MemoBase) -> MemoBase:
    add_grant(kb)
    add_contract(kb)
    for i in range(20):  # background so that the gate's term statistics mean something
        kb.add_texts([f"Unrelated note number {i} about gardening, cooking and weather {i}."])
    return kb


@pytest.fixture
def deadline(memory: MemoHood) -> Fact:
    tell_hollis(memory)
    return next(f for f in memory.list_facts(USER) if "March 27" in f.statement)


def _reply(*claims: tuple[str, int, str]) -> str:
    return json.dumps(
        {"claims": [{"text": t, "citations": [{"passage": n, "quote": q}]} for t, n, q in claims]}
    )


def _memory_number(base: MemoBase) -> int:
    return len(base.search(QUESTION, k=5)) + 1  # memory passages follow the documents


def test_llm_sees_memory_in_its_own_labelled_section(base: MemoBase, deadline: Fact) -> None:
    llm = FakeLLM([_reply()])
    GuardedAnswerer(base, llm).ask(QUESTION, memory_facts=[deadline])
    system, user = llm.messages[0]
    n = _memory_number(base)
    assert 'source="memory"' in system.content
    section = user.content.index("Remembered facts (memory")
    assert user.content.index('<passage n="1">') < section < user.content.index("Question:")
    assert f'<passage n="{n}" source="memory" said="2026-03-08">' in user.content
    assert deadline.statement in user.content[section:]


def test_memory_and_document_citations_are_verified_and_reported_apart(
    base: MemoBase, deadline: Fact
) -> None:
    n = _memory_number(base)
    llm = FakeLLM(
        [
            _reply(
                ("The schedule says 30 March 2026.", 1, "the final report is due on 30 March 2026"),
                (
                    "You said it moved to March 27.",
                    n,
                    "the Hollis report deadline changed to March 27",
                ),
            )
        ]
    )
    answer = GuardedAnswerer(base, llm).ask(QUESTION, memory_facts=[deadline])
    assert isinstance(answer, Answer)
    [doc] = answer.citations
    [mem] = answer.memory_citations
    assert not doc.is_memory and doc.title == "Grant schedule"
    assert doc.quote in base.search(QUESTION)[0].text
    assert mem.is_memory and mem.source == f"memory:{deadline.id}"
    assert deadline.statement[mem.start : mem.end] == mem.quote
    assert mem.title == "memory, said 2026-03-08, current" and mem.locator["version"] == 3
    doc_claim, mem_claim = answer.claims
    assert not doc_claim.memory_only and mem_claim.memory_only
    assert answer.text.endswith("[m1]") and "[1]" in answer.text
    again = result_from_dict(json.loads(json.dumps(answer.to_dict())))
    assert again == answer and again.to_dict()["claims"][1]["memory_only"] is True


def test_fabricated_or_laundered_quotes_are_dropped(base: MemoBase, deadline: Fact) -> None:
    n = _memory_number(base)
    llm = FakeLLM(
        [
            _reply(
                ("Memory says March 29.", n, "the Hollis report deadline changed to March 29"),
                ("The document says 31 March.", 1, "the final report is due on 31 March 2026"),
                # a document sentence cited as if it were memory
                ("Due 30 March.", n, "the final report is due on 30 March 2026"),
                ("Kept.", 1, "the final report is due on 30 March 2026"),
            )
        ]
    )
    answer = GuardedAnswerer(base, llm).ask(QUESTION, memory_facts=[deadline])
    assert isinstance(answer, Answer)
    # only the properly cited claim survives; its ungrounded wording ("Kept.") is replaced by
    # its verified quote (claim text must be grounded in what it cites)
    assert [c.text for c in answer.claims] == ["the final report is due on 30 March 2026"]
    assert answer.memory_citations == ()


def test_extractive_mode_quotes_memory_and_documents(base: MemoBase, deadline: Fact) -> None:
    answer = GuardedAnswerer(base).ask(QUESTION, memory_facts=[deadline])
    assert isinstance(answer, Answer)
    assert answer.citations and answer.memory_citations
    assert answer.memory_citations[0].quote == deadline.statement
    assert re.search(r"\[m1\]", answer.text)


def test_memory_alone_answers_when_the_base_has_nothing(base: MemoBase, memory: MemoHood) -> None:
    memory.capture("By the way, I'm allergic to penicillin.", namespace=USER, at=day(1))
    allergy = memory.list_facts(USER)[0]
    question = "Which antibiotic am I allergic to, penicillin or another one?"
    refused = GuardedAnswerer(base).ask(question)
    assert refused.refused  # unchanged without memory
    llm = FakeLLM([_reply(("Penicillin.", 1, "I'm allergic to penicillin."))])
    answer = GuardedAnswerer(base, llm).ask(question, memory_facts=[allergy])
    assert isinstance(answer, Answer)
    assert answer.citations == () and len(answer.memory_citations) == 1
    assert all(c.memory_only for c in answer.claims)
    assert '<passage n="1" source="memory"' in llm.messages[0][1].content  # no documents shown


def test_refusal_when_neither_source_backs_a_claim(base: MemoBase, deadline: Fact) -> None:
    llm = FakeLLM([_reply()])
    result = GuardedAnswerer(base, llm).ask(QUESTION, memory_facts=[deadline])
    assert result.refused and "memory" in result.reason


def test_evidence_values_and_bad_input(base: MemoBase) -> None:
    answer = GuardedAnswerer(base).ask(
        QUESTION, memory_facts=["The Hollis report deadline is March 27."]
    )
    assert isinstance(answer, Answer) and answer.memory_citations[0].source == "memory:m1"
    evidence = MemoryEvidence("f1", "The Hollis report deadline is March 27.")
    assert evidence.label == "memory, current"
    with pytest.raises(InvalidInputError):
        GuardedAnswerer(base).ask(QUESTION, memory_facts=["  "])
    with pytest.raises(InvalidInputError):
        GuardedAnswerer(base).ask(QUESTION, memory_facts=[object()])
