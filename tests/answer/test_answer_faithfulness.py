"""A scripted lying model: no lie reaches the user, whatever quotes it attaches.

Each lie cites quotes that really are in the base; the claim around them is false.
The engine must show the verified quote's whole sentence instead, or refuse.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.faithfulness import unfaithful
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.salience import hard_terms, missing_terms
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.llm import FakeLLM

LEASE = (
    "The tenant may not sublet the furnished flat without written consent. "
    "The monthly rent is 900 euros, payable on the first day of each month. "
    "The deposit equals 2 months of rent and is returned at the end of the lease."
)
LICENCE = (
    "The Licensor grants the Licensee a licence to use the software on three machines. "
    "The licence may be renewed every year unless the Licensee fails to pay."
)
PRODUCT_A = "Pricing for Product Alpha: the yearly support fee for Product Alpha is 120 euros."


def _reply(text: str, *quotes: tuple[int, str]) -> str:
    return json.dumps(
        {"claims": [{"text": text, "citations": [{"passage": n, "quote": q} for n, q in quotes]}]}
    )


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(256))
    base.add_texts([LEASE, LICENCE, PRODUCT_A], ids=["lease", "licence", "alpha"])
    base.add_texts([f"Unrelated note {i} about tides, ferns and weather." for i in range(15)])
    yield base
    base.close()


def _ask(kb: MemoBase, question: str, reply: str) -> tuple[object, str]:
    engine = GuardedAnswerer(kb, FakeLLM([reply]), gate=SufficiencyGate(threshold=0.0), k=3)
    hits = kb.search(question, k=3)
    result = engine.ask(question)
    return result, " ".join(h.text for h in hits)


def _passage(kb: MemoBase, question: str, needle: str) -> int:
    hits = kb.search(question, k=3)
    return next(i for i, h in enumerate(hits, start=1) if needle in h.text)


LIES = [
    # (question, claim, needle of the passage cited, quotes, words the user must not see)
    ("May the tenant sublet the flat?", "The tenant may sublet the furnished flat.", "tenant",
     ["The tenant may not sublet the furnished flat without written consent"],
     "The tenant may sublet the furnished flat."),
    ("Who grants the licence to whom?",
     "The Licensee grants the Licensor a licence to use the software.", "Licensor",
     ["The Licensor grants the Licensee a licence to use the software on three machines"],
     "The Licensee grants the Licensor"),
    ("How much is the monthly rent?", "The monthly rent is 2 euros.", "rent",
     ["The monthly rent is 900 euros, payable on the first day of each month",
      "The deposit equals 2 months of rent and is returned at the end of the lease"],
     "rent is 2 euros"),
    ("Must the licence be renewed every year?", "The licence must be renewed every year.",
     "Licensor",
     ["The licence may be renewed every year unless the Licensee fails to pay"],
     "must be renewed"),
]  # fmt: skip


@pytest.mark.parametrize(("question", "claim", "needle", "quotes", "lie"), LIES)
def test_a_claim_that_changes_its_quotes_is_replaced_by_them(
    kb: MemoBase, question: str, claim: str, needle: str, quotes: list[str], lie: str
) -> None:
    n = _passage(kb, question, needle)
    result, _ = _ask(kb, question, _reply(claim, *[(n, q) for q in quotes]))
    assert not result.refused
    assert lie not in result.text  # type: ignore[union-attr]
    for citation in result.citations:  # type: ignore[union-attr]
        # The verified quote is shown instead; its citation holds the whole source sentence.
        assert citation.quote in result.text  # type: ignore[union-attr]
        assert citation.quote in citation.sentence and citation.sentence.endswith(".")
        assert citation.sentence in LEASE + LICENCE


def test_a_quote_cut_right_before_not_is_no_citation(kb: MemoBase) -> None:
    question = "May the tenant sublet the flat?"
    n = _passage(kb, question, "tenant")
    reply = _reply(
        "The tenant may sublet the furnished flat.", (n, "The tenant may sublet the furnished flat")
    )
    result, _ = _ask(kb, question, reply)
    # "may not" is not "may": the cut quote is not in the source; the claim has no citation.
    assert result.refused


def test_a_fee_from_one_product_is_not_the_answer_about_another(kb: MemoBase) -> None:
    question = "What is the yearly support fee for Product Beta?"
    n = _passage(kb, question, "Alpha")
    reply = _reply(
        "The yearly support fee for Product Beta is 120 euros.",
        (n, "the yearly support fee for Product Alpha is 120 euros"),
    )
    result, _ = _ask(kb, question, reply)
    assert result.refused and "beta" in result.reason.lower()  # type: ignore[union-attr]
    # Extractive mode refuses the same question too.
    extractive = GuardedAnswerer(kb, gate=SufficiencyGate(threshold=0.0)).ask(question)
    assert extractive.refused


def test_a_faithful_restatement_is_kept(kb: MemoBase) -> None:
    question = "How much is the monthly rent?"
    n = _passage(kb, question, "rent")
    reply = _reply(
        "The monthly rent is 900 euros.",
        (n, "The monthly rent is 900 euros, payable on the first day of each month"),
    )
    result, _ = _ask(kb, question, reply)
    assert not result.refused
    assert result.text.startswith("The monthly rent is 900 euros. [1]")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("claim", "quotes", "rule"),
    [
        ("The tenant may sublet.", ["The tenant may not sublet"], "negations"),
        ("The tenant must not sublet.", ["The tenant may not sublet"], "modal"),
        ("The tenant sublets the flat.", ["The tenant may sublet the flat"], "modal"),
        ("Арендатор может сдавать квартиру.", ["Арендатор не может сдавать квартиру"], "negations"),
        ("The fee is 2 euros.", ["The fee is 30 euros", "The deposit is 2 months"], "number"),
        ("The landlord pays the tenant.", ["The tenant pays the landlord"], "trade places"),
    ],
)  # fmt: skip
def test_unfaithful_names_the_rule(claim: str, quotes: list[str], rule: str) -> None:
    reason = unfaithful(claim, quotes)
    assert reason is not None and rule in reason


@pytest.mark.parametrize(
    ("claim", "quotes"),
    [
        ("The term is 24 months.", ["an initial term of 24 months from the Effective Date"]),
        ("In 1990 the company was founded.", ["The company was founded in 1990"]),
        ("Refunds take 14 days.", ["refunds are issued within 14 days"]),
    ],
)
def test_faithful_restatements_pass(claim: str, quotes: list[str]) -> None:
    assert unfaithful(claim, quotes) is None


def test_hard_terms_are_numbers_versions_and_names() -> None:
    assert hard_terms("What changed in Python 3.14 for the Zurich office?") == [
        "python",
        "3.14",
        "zurich",
    ]
    assert missing_terms("What changed in version 3.14?", ["Version 3.12 added a flag."]) == [
        "3.14"
    ]
    assert missing_terms("Where do the Normans live?", ["The Norman people live in France."]) == []


_NEG = st.sampled_from(["not", "never", "no", "не", "нет"])
_NUM = st.integers(0, 9999).map(str)
_WORD = st.sampled_from(["tenant", "fee", "office", "licence", "deposit", "court", "sublet"])


@settings(max_examples=150, deadline=None)
@given(
    words=st.lists(_WORD, min_size=3, max_size=8),
    negation=_NEG,
    at=st.integers(0, 8),
    number=_NUM,
    other=_NUM,
)
def test_a_claim_whose_negations_or_numbers_differ_is_never_faithful(
    words: list[str], negation: str, at: int, number: str, other: str
) -> None:
    at = min(at, len(words))
    quote = " ".join([*words[:at], negation, number, *words[at:]])
    dropped = " ".join([*words[:at], number, *words[at:]])
    assert unfaithful(dropped, [quote]) is not None
    if other != number:
        changed = " ".join([*words[:at], negation, other, *words[at:]])
        assert unfaithful(changed, [quote]) is not None


def test_a_refusal_offers_the_nearest_passages_as_related(kb: MemoBase) -> None:
    from memo_core.answer.types import Refusal, result_from_dict

    question = "What is the yearly support fee for Product Beta?"
    result = GuardedAnswerer(kb, gate=SufficiencyGate(threshold=0.0)).ask(question)
    assert isinstance(result, Refusal)
    assert result.related and "Product Alpha" in result.related[0].text
    assert all(r.to_dict()["answer"] is False for r in result.related)
    assert result_from_dict(result.to_dict()) == result


_RULES = {  # a rule, and the same words with its negation dropped
    "The courier does not deliver parcels heavier than 30 kilograms.":
        "The courier does deliver parcels heavier than 30 kilograms.",
    "Guests may not check in before 14 o'clock on Sundays.":
        "Guests may check in before 14 o'clock on Sundays.",
    "The warranty never covers more than 2 repairs per year.":
        "The warranty covers more than 2 repairs per year.",
    "The library does not lend more than 6 books at a time.":
        "The library does lend more than 6 books at a time.",
    "Поставщик не отвечает за задержку более 5 дней.":
        "Поставщик отвечает за задержку более 5 дней.",
}  # fmt: skip


class _Liar:
    """Answers with ``claim``, citing ``quote`` in whichever passage it was sent holds it."""

    supports_json_mode = True

    def __init__(self, claim: str, quote: str) -> None:
        self.claim, self.quote = claim, quote

    def complete(
        self, messages: object, *, json_mode: bool = False, max_tokens: object = None
    ) -> str:
        user = messages[-1].content  # type: ignore[index]
        found = re.findall(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', user, re.DOTALL)
        n = next((int(i) for i, text in found if self.quote in text), 1)
        return _reply(self.claim, (n, self.quote))


@pytest.fixture(scope="module")
def rules_kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path_factory.mktemp("rules") / "kb.db", embedder=HashEmbedder(256))
    base.add_texts(list(_RULES))
    base.add_texts([f"Garden note {i}: moss, rain and a blackbird." for i in range(10)])
    yield base
    base.close()


@settings(max_examples=40, deadline=None)
@given(
    rule=st.sampled_from(sorted(_RULES)),
    drop_negation=st.booleans(),
    number=st.one_of(st.none(), st.integers(0, 999)),
)
def test_property_a_claim_whose_negations_or_numbers_differ_is_never_shown(
    rules_kb: MemoBase, rule: str, drop_negation: bool, number: int | None
) -> None:
    """End to end, through the engine: the user sees the verified quote, never the lie."""
    claim = _RULES[rule] if drop_negation else rule
    if number is not None:
        claim = re.sub(r"\d+", str(number), claim, count=1)
    assume(claim != rule)
    engine = GuardedAnswerer(
        rules_kb, _Liar(claim, rule.rstrip(".")), gate=SufficiencyGate(threshold=0.0), k=4
    )
    result = engine.ask(rule.rstrip(".") + "?")
    assert not result.refused  # the quote verified: the check under test decided
    shown = result.text  # type: ignore[union-attr]
    assert claim.rstrip(".") not in shown, (claim, shown)
    assert rule.rstrip(".") in shown  # the verified quote is shown instead
