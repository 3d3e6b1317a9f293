"""The keyword leg's cost cap: an expensive FTS5 query keeps its rarest words.

What must hold: a query within the postings budget is untouched (so small bases
rank exactly as before); over budget, the commonest words go first, the rarest
``MIN_WORDS`` always stay, and words found nowhere cost nothing; if the rare
words find too few chunks, the full query runs; the document-frequency cache
follows the base's size; the quoting stays safe whatever is selected.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import memo_core.kb.sqlite_backend as store_module
from memo_core.kb import MemoBase
from memo_core.search import keyword
from memo_core.search.hybrid import SearchSettings
from memo_core.search.keyword import DocumentFrequencies, select_words, word_cost
from memo_core.search.pg_text import Phrase
from memo_core.search.text import fts_match_expression


def test_a_query_within_budget_keeps_every_word() -> None:
    assert select_words([5, 1, 3], budget=9) == [0, 1, 2]


def test_over_budget_the_commonest_words_go_first() -> None:
    # costs: word 0 common, 1 rare, 2 middling, 3 very common, 4 rare
    assert select_words([900, 10, 300, 5000, 20], budget=400, min_words=2) == [1, 2, 4]
    # the rarest min_words stay even when they alone exceed the budget
    assert select_words([900, 700, 5000], budget=10, min_words=2) == [0, 1]
    # a word no chunk holds costs nothing and is never dropped
    assert select_words([0, 900, 5000], budget=100, min_words=1) == [0, 1]


@given(
    costs=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=12),
    budget=st.integers(min_value=0, max_value=20_000),
    min_words=st.integers(min_value=1, max_value=4),
)
def test_selection_properties(costs: list[int], budget: int, min_words: int) -> None:
    kept = select_words(costs, budget=budget, min_words=min_words)
    assert kept == sorted(set(kept)) and all(0 <= i < len(costs) for i in kept)
    assert all(i in kept for i, c in enumerate(costs) if c == 0)
    if sum(costs) <= budget:
        assert kept == list(range(len(costs)))
        return
    paid = [costs[i] for i in kept if costs[i]]
    assert len(paid) >= min(min_words, sum(1 for c in costs if c))
    assert sum(paid) <= budget or len(paid) <= min_words
    dropped = [costs[i] for i in range(len(costs)) if i not in kept]
    assert not dropped or min(dropped) >= max(paid, default=0)  # rarest first


def test_word_cost_counts_raw_and_stemmed_tokens_once() -> None:
    df = {"running": 7, "run": 40, "a": 100, "4471": 2}
    assert word_cost(["running"], ["run"], df) == 47
    assert word_cost(["run"], ["run"], df) == 40
    assert word_cost(["a", "4471"], ["a", "4471"], df) == 102


def test_the_selector_reaches_fts_with_safe_quoting() -> None:
    full = fts_match_expression('invoice "NEAR" A-4471 penicillin')
    assert full is not None and '"near"' in full
    picked = fts_match_expression(
        'invoice "NEAR" A-4471 penicillin', keep=lambda words, stems: [2, 3]
    )
    assert picked == 'raw : ("a 4471" OR "penicillin") OR stemmed : ("a 4471" OR "penicillin")'
    # a selector that keeps nothing leaves the query whole rather than empty
    assert fts_match_expression("invoice penicillin", keep=lambda w, s: []) == (
        fts_match_expression("invoice penicillin")
    )


def test_document_frequencies_are_cached_until_the_base_moves() -> None:
    calls: list[list[str]] = []
    size = [1000]

    def lookup(tokens: list[str]) -> dict[str, int]:
        calls.append(list(tokens))
        return {t: len(t) for t in tokens if t != "zzz"}

    df = DocumentFrequencies(lookup, lambda: size[0])  # type: ignore[arg-type]
    assert df.get(["ab", "abc", "zzz"]) == {"ab": 2, "abc": 3, "zzz": 0}
    assert df.get(["abc", "ab"]) == {"abc": 3, "ab": 2}
    assert calls == [["ab", "abc", "zzz"]]
    size[0] = 1050  # within a tenth: still cached
    df.get(["ab"])
    assert len(calls) == 1
    size[0] = 1200  # grew by more than a tenth: read again
    df.get(["ab"])
    assert calls[-1] == ["ab"] and len(calls) == 2


def _base(path: Path, budget: int | None = None) -> MemoBase:
    settings = SearchSettings(keyword_postings_budget=budget)
    return MemoBase(path, embedder=None, settings=settings)


def test_an_expensive_query_keeps_its_rare_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _base(tmp_path / "kb.db")
    texts = [f"the annual report of the company, part {i}" for i in range(100)]
    texts += [f"zeolite notes, page {i}" for i in range(45)]  # enough rare hits: no widening
    texts.append("the zeolite sieve report")
    kb.add_texts(texts, ids=[f"d{i}" for i in range(len(texts))])
    seen: list[set[str]] = []  # the words each keyword query asked
    real = kb.store.backend._keyword_rows

    def spy(phrases: list[Phrase], *args: object) -> list[tuple[int, float]]:
        seen.append({t for p in phrases for t in p.lexemes})
        return real(phrases, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(kb.store.backend, "_keyword_rows", spy)
    full = kb.search("annual company report zeolite sieve", k=5, mode="keyword")
    assert len(seen) == 1 and "annual" in seen[0]  # no budget (the default): every word
    monkeypatch.setattr(store_module, "select_words", functools.partial(select_words, min_words=2))
    kb.searcher.settings = SearchSettings(keyword_postings_budget=10**6)
    seen.clear()
    kb.search("annual company report zeolite sieve", k=5, mode="keyword")
    assert len(seen) == 1 and "annual" in seen[0]  # within the budget: untouched
    kb.searcher.settings = SearchSettings(keyword_postings_budget=5)
    seen.clear()
    hits = kb.search("annual company report zeolite sieve", k=1, mode="keyword")
    assert [h.chunk_id for h in hits] == ["d145"] == [h.chunk_id for h in full[:1]]
    assert "zeolite" in seen[0] and "sieve" in seen[0] and "annual" not in seen[0]
    assert len(seen) == 1  # the rare words found enough: no second query
    kb.close()


def test_too_few_rare_hits_widen_to_the_full_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = _base(tmp_path / "kb.db")
    texts = [f"annual report number {i}" for i in range(30)] + ["zeolite sieve"]
    kb.add_texts(texts, ids=[f"d{i}" for i in range(len(texts))])
    unlimited = kb.search("annual report zeolite", k=10, mode="keyword")
    monkeypatch.setattr(store_module, "select_words", functools.partial(select_words, min_words=1))
    kb.searcher.settings = SearchSettings(keyword_postings_budget=1)
    with kb.store.reading():
        phrases = kb.store.backend._keyword_phrases("annual report zeolite", budget=1)
        assert [(p.column, p.lexemes) for p in phrases] == [
            ("raw", ("zeolite",)),
            ("stemmed", ("zeolit",)),
        ]
    widened = kb.search("annual report zeolite", k=10, mode="keyword")
    assert [h.chunk_id for h in widened] == [h.chunk_id for h in unlimited]
    assert len(widened) == 10
    kb.close()


def test_the_budget_constants_are_sane() -> None:
    assert keyword.POSTINGS_BUDGET > 0 and keyword.MIN_WORDS >= 1
