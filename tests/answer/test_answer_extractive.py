"""Extractive mode: verbatim best-matching sentences, rarer terms weigh more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.verify import verify_quote

PASSAGES = [
    (
        "c1",
        "The university was founded in 1842. David Bevington is a noted Shakespeare "
        "scholar on the faculty. The campus has many lakes.",
    ),
    ("c2", "Shakespeare wrote many plays. The university library holds rare books."),
]


def test_picks_the_sentence_with_the_rare_terms() -> None:
    q = "Which Shakespeare scholar is on the university's faculty?"
    picked = extractive_answer(q, PASSAGES, max_sentences=1)
    assert len(picked) == 1
    cid, a, b = picked[0]
    assert cid == "c1"
    assert dict(PASSAGES)[cid][a:b] == (
        "David Bevington is a noted Shakespeare scholar on the faculty."
    )


def test_each_pick_is_a_verbatim_quote_of_its_passage() -> None:
    picks = extractive_answer("When was the university founded and what about books?", PASSAGES)
    assert 1 <= len(picks) <= 2
    for cid, a, b in picks:
        text = dict(PASSAGES)[cid]
        check = verify_quote(text[a:b], text)
        assert check.verified and check.method == "exact" and (check.start, check.end) == (a, b)


def test_higher_ranked_passages_win_ties() -> None:
    same = "The warranty lasts two years."
    picks = extractive_answer("How long does the warranty last?", [("a", same), ("b", same)])
    assert picks == [("a", 0, len(same))]  # the duplicate sentence is picked once


def test_nothing_relevant_means_no_sentences() -> None:
    assert extractive_answer("penguin migration routes?", PASSAGES) == []
    assert extractive_answer("the of and?", PASSAGES) == []  # only stopwords
    assert extractive_answer("anything", []) == []
    assert extractive_answer("university", PASSAGES, max_sentences=0) == []


def test_russian_question() -> None:
    passages = [("r1", "Договор подписан в Москве. Срок действия договора составляет 24 месяца.")]
    picks = extractive_answer("Каков срок действия договора?", passages, max_sentences=1)
    assert [passages[0][1][a:b] for _, a, b in picks] == [
        "Срок действия договора составляет 24 месяца."
    ]


@settings(max_examples=100, deadline=None)
@given(
    question=st.text(max_size=60),
    texts=st.lists(st.text(max_size=200), max_size=4),
    k=st.integers(0, 4),
)
def test_spans_are_always_inside_their_passage(question: str, texts: list[str], k: int) -> None:
    passages = [(f"c{i}", t) for i, t in enumerate(texts)]
    picks = extractive_answer(question, passages, max_sentences=k)
    assert len(picks) <= k
    for cid, a, b in picks:
        text = dict(passages)[cid]
        assert 0 <= a < b <= len(text)
