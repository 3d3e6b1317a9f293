"""The memory backend protocol, alike on both engines (``backend_url``: SQLite and PostgreSQL).

Each test runs on each backend and checks fixed answers (rowids, orders, counts,
vectors), so a backend whose method is inert, leaks across namespaces, or ranks
differently fails here. The ranking tests use a corpus on which PostgreSQL's
``ts_rank`` (no IDF) and BM25 disagree, and check the order is BM25's on both.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import DimensionMismatchError
from memo_core.memory import MemoHood, RecallGate
from memo_core.memory.backend import MemoryBackend, tables
from memo_core.memory.namespace import encode_namespace
from memo_core.memory.records import FactRow
from memo_core.memory.store import FACT_COLUMNS, MEMORY_BACKENDS, FactStore
from memo_core.search.bm25 import COLUMN_WEIGHTS
from memo_core.search.pg_text import tsquery_pair
from memo_core.storage import open_database

from .conftest import day

U1, U2 = encode_namespace(("u1",)), encode_namespace(("u2",))

# Sentences written for this test. "tea" is in four of ten facts, "oolong" in one;
# the tea-heavy fact repeats its common word, the oolong fact holds the rare one once.
CORPUS = {
    "tea3": "I drink green tea, black tea and mint tea every day.",
    "oolong": "My sister brought oolong from Taipei last spring.",
    "lemon": "Tea with lemon helps my throat.",
    "shop": "The tea shop on our street closes at six.",
    "museum": "We had tea at the museum cafe.",
    "dog": "I walk the dog at seven every morning.",
    "car": "My car is a blue hatchback.",
    "gym": "The gym opens early on Mondays.",
    "cello": "I am learning to play the cello.",
    "flat": "Our flat has a small balcony.",
}
#: Another user's facts: in the index's statistics (as FTS5 counts them), never in results.
OTHERS = {"u2tea": "Tea and more tea and oolong, says the other user.", "u2cat": "A cat."}


def _remember(memory: MemoHood, facts: dict[str, str], ns: str) -> None:
    for i, (key, text) in enumerate(facts.items()):
        memory.remember(text, namespace=ns, key=key, at=day(i))


@pytest.fixture
def corpus(backend_url: str) -> Iterator[MemoHood]:
    with MemoHood(backend_url, embedder=None, gate=RecallGate()) as memory:
        _remember(memory, CORPUS, "u1")
        _remember(memory, OTHERS, "u2")
        yield memory


def _keys(memory: MemoHood, hits: list[tuple[int, float]]) -> list[str]:
    by_rowid = {FactRow(r).rowid: FactRow(r).key for r in memory._store.facts_by_rowids([])}
    by_rowid |= {
        FactRow(r).rowid: FactRow(r).key
        for r in memory._store.facts_by_rowids([rowid for rowid, _ in hits])
    }
    return [by_rowid[rowid] for rowid, _ in hits]


def _search(memory: MemoHood, query: str, namespaces: list[str]) -> list[tuple[int, float]]:
    return memory._store.backend.search_keyword("facts", query, namespaces, 100)


def test_the_registry_gives_each_engine_its_own_backend(backend_url: str) -> None:
    with open_database(backend_url, load_vec=False) as db:
        backend: MemoryBackend = MEMORY_BACKENDS.for_database(db)(db)
        assert backend.db is db
        assert type(backend) is MEMORY_BACKENDS.for_database(db)
        assert backend.schema.schema == "memohood"
    assert MEMORY_BACKENDS.names() == ("sqlite", "postgres")


def test_keywords_rank_by_bm25_rare_words_first(corpus: MemoHood) -> None:
    """BM25's IDF puts the one fact with the rare word first; ts_rank would not."""
    hits = _search(corpus, "tea oolong", [U1])
    assert _keys(corpus, hits)[0] == "oolong"
    assert set(_keys(corpus, hits)) == {"oolong", "tea3", "lemon", "shop", "museum"}
    scores = [score for _, score in hits]
    assert scores == sorted(scores) and all(score < 0 for score in scores)


def test_term_frequency_saturates_and_short_rows_win(corpus: MemoHood) -> None:
    # Among the tea facts: three occurrences beat one, and of the single-tea facts the
    # shortest ranks first (b = 0.75 against the average length).
    assert _keys(corpus, _search(corpus, "tea", [U1])) == ["tea3", "lemon", "museum", "shop"]


def test_scores_are_the_same_number_on_both_engines(tmp_path: Path, postgres_url: str) -> None:
    """The same corpus on SQLite and PostgreSQL: equal orders and equal BM25 values,
    also after deletes (the index statistics follow every write)."""
    bases = {}
    for name, url in (("sqlite", f"sqlite:///{tmp_path / 'twin.db'}"), ("postgres", postgres_url)):
        bases[name] = memory = MemoHood(url, embedder=None, gate=RecallGate())
        _remember(memory, CORPUS, "u1")
        _remember(memory, OTHERS, "u2")
    try:
        for query in ("tea oolong", "tea", "the", "tea shop street", "dogs walking"):
            ranked = {n: _search(m, query, [U1, U2]) for n, m in bases.items()}
            assert _keys(bases["sqlite"], ranked["sqlite"]) == _keys(
                bases["postgres"], ranked["postgres"]
            ), query
            for (_, a), (_, b) in zip(ranked["sqlite"], ranked["postgres"], strict=True):
                assert a == pytest.approx(b, rel=1e-9), query
        for memory in bases.values():
            for fact in memory.list_facts("u1"):
                if fact.key in ("lemon", "shop", "museum"):
                    memory.forget(fact.id, namespace="u1")
        # Now "tea" is as rare as "oolong" (two of nine rows each): tea3's three
        # occurrences win, on both engines, with the same scores.
        ranked = {n: _search(m, "tea oolong", [U1]) for n, m in bases.items()}
        assert _keys(bases["sqlite"], ranked["sqlite"]) == ["tea3", "oolong"]
        assert _keys(bases["postgres"], ranked["postgres"]) == ["tea3", "oolong"]
        for (_, a), (_, b) in zip(ranked["sqlite"], ranked["postgres"], strict=True):
            assert a == pytest.approx(b, rel=1e-9)
    finally:
        for memory in bases.values():
            memory.close()


def test_ts_rank_orders_this_corpus_otherwise(postgres_url: str) -> None:
    """The check above can fail: ts_rank (what PostgreSQL memory ranked with before)
    puts the tea-heavy fact first on this corpus."""
    with MemoHood(postgres_url, embedder=None, gate=RecallGate()) as memory:
        _remember(memory, CORPUS, "u1")
        raw, stemmed = tsquery_pair("tea oolong") or ("", "")
        rows = memory.db.query(
            "SELECT f.rowid FROM mem_facts_fts f WHERE f.raw @@ ?::tsquery "
            "OR f.stemmed @@ ?::tsquery ORDER BY -(? * ts_rank(f.raw, ?::tsquery, 1) "
            "+ ? * ts_rank(f.stemmed, ?::tsquery, 1)), f.rowid",
            [raw, stemmed, COLUMN_WEIGHTS["raw"], raw, COLUMN_WEIGHTS["stemmed"], stemmed],
        )
        old = _keys(memory, [(int(r[0]), 0.0) for r in rows])
        assert old[0] == "tea3"
        assert _keys(memory, _search(memory, "tea oolong", [U1]))[0] == "oolong"


def test_keyword_search_stays_in_its_namespaces_and_fails_closed(corpus: MemoHood) -> None:
    assert _keys(corpus, _search(corpus, "oolong", [U2])) == ["u2tea"]
    assert _keys(corpus, _search(corpus, "oolong", [U1, U2])) in (
        ["oolong", "u2tea"],
        ["u2tea", "oolong"],
    )
    assert _search(corpus, "oolong", []) == []
    assert _search(corpus, '" * - : ( ) NEAR', [U1]) == []
    assert corpus._store.backend.search_keyword("facts", "tea", [U1], 0) == []
    assert len(corpus._store.backend.search_keyword("facts", "tea", [U1], 2)) == 2


def test_unindex_drops_the_rows_from_the_keyword_leg(corpus: MemoHood) -> None:
    backend = corpus._store.backend
    rowid = _search(corpus, "oolong", [U1])[0][0]
    with corpus.db.transaction():
        backend.unindex("facts", [rowid], vectors=False)
    assert _search(corpus, "oolong", [U1]) == []
    with corpus.db.transaction():
        backend.index_texts("facts", [(rowid, CORPUS["oolong"])])
    assert [r for r, _ in _search(corpus, "oolong", [U1])] == [rowid]


def test_turns_have_a_keyword_leg_of_their_own(backend_url: str) -> None:
    with MemoHood(backend_url, embedder=None, gate=RecallGate()) as memory:
        memory.capture("Remind me about the oolong order tomorrow.", namespace=("u1", "s1"))
        ns = [encode_namespace(("u1", "s1"))]
        turns = memory._store.backend.search_keyword("turns", "oolong", ns, 10)
        assert len(turns) == 1
        assert memory._store.backend.search_keyword("turns", "oolong", [U1], 10) == []
        texts = [t[6] for t in memory._store.turns_by_rowids([turns[0][0]])]
        assert texts == ["Remind me about the oolong order tomorrow."]


# -- vector leg ---------------------------------------------------------------------------


@pytest.fixture
def vector_store(backend_url: str) -> Iterator[FactStore]:
    with MemoHood(backend_url, embedder=HashEmbedder(8), gate=RecallGate()) as memory:
        yield memory._store


def _unit(i: int) -> list[float]:
    return [1.0 if j == i else 0.0 for j in range(8)]


def test_vectors_round_trip_as_float32_and_search_exactly_per_namespace(
    vector_store: FactStore,
) -> None:
    store = vector_store
    rows = _facts(store, [U1, U1, U1, U2])
    with store.db.transaction():
        vectors = {
            rows[0][0]: [0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.0, 1 / 3],
            rows[1][0]: _unit(0),
            rows[2][0]: [0.9, 0.1, 0, 0, 0, 0, 0, 0],
            rows[3][0]: _unit(0),  # the other user's: as near as can be, never returned
        }
        store.insert_vectors("facts", [(r, ns, vectors[r]) for r, ns in rows])
    read = store.read_vectors("facts", [r for r, _ in rows], 8)
    for rowid, vector in vectors.items():
        assert read[rowid] == list(struct.unpack("8f", struct.pack("8f", *vector)))
    hits = store.search_vectors("facts", _unit(0), [U1], 10)
    assert [r for r, _ in hits] == [rows[1][0], rows[2][0], rows[0][0]]
    assert hits[0][1] == pytest.approx(1.0, abs=1e-6)
    assert hits[1][1] == pytest.approx(0.9 / (0.82**0.5), abs=1e-6)
    assert store.search_vectors("facts", _unit(0), [U1], 1) == hits[:1]
    assert store.search_vectors("facts", _unit(0), [], 10) == []
    with pytest.raises(DimensionMismatchError):
        store.search_vectors("facts", [1.0, 0.0], [U1], 10)
    with store.db.transaction():
        store.backend.write_vectors("facts", [(rows[1][0], U1, _unit(7))])  # replaces
        store.backend.unindex("facts", [rows[2][0]], vectors=True)
    assert [r for r, _ in store.search_vectors("facts", _unit(0), [U1], 10)] == [
        rows[0][0],
        rows[1][0],
    ]


def _facts(store: FactStore, namespaces: list[str]) -> list[tuple[int, str]]:
    """``(rowid, ns)`` of one new fact per namespace listed (vectors written by the test)."""
    rows = []
    with store.db.transaction():
        for n, ns in enumerate(namespaces):
            values = {
                **dict.fromkeys(c.strip() for c in FACT_COLUMNS.split(",")),
                **_FACT_DEFAULTS,
                "id": f"fact_conformance_{n}",
                "ns": ns,
                "root": ns,
                "chain_id": f"chain_{n}",
                "key": f"key{n}",
                "statement": f"fact number {n}",
            }
            rows.append((store.insert_fact(values, None), ns))
    return rows


_WHEN = day(0).isoformat()
_FACT_DEFAULTS: dict[str, object] = {
    "version": 1,
    "stemmed": "",
    "category": "other",
    "pinned": 0,
    "subject": "self",
    "subject_kind": "self",
    "about": "",
    "party_terms": "",
    "valid_from": _WHEN,
    "origin": "rule",
    "strength": 1.0,
    "last_used": _WHEN,
    "reinforcements": 0,
    "archived": 0,
    "indexed": 1,
    "created_at": _WHEN,
}


# -- bulk copy ----------------------------------------------------------------------------


def test_a_bulk_load_with_explicit_rowids_leaves_a_searchable_base(backend_url: str) -> None:
    with MemoHood(backend_url, embedder=HashEmbedder(8), gate=RecallGate()) as memory:
        store = memory._store
        names = tables("facts")
        with store.db.transaction():
            store.begin_bulk_load()
            for rowid in (40, 41):
                values = {
                    **_FACT_DEFAULTS,
                    "rowid": rowid,
                    "id": f"fact_bulk_{rowid}",
                    "ns": U1,
                    "root": U1,
                    "chain_id": f"chain_bulk_{rowid}",
                    "key": f"bulk{rowid}",
                    "statement": f"bulk oolong row {rowid}",
                }
                store.db.execute(
                    f"INSERT INTO {names.base} ({', '.join(values)}) "
                    f"VALUES ({', '.join('?' * len(values))})",
                    list(values.values()),
                )
            store.index_texts("facts", [(40, "bulk oolong row 40"), (41, "bulk oolong row 41")])
            store.insert_vectors("facts", [(40, U1, _unit(1)), (41, U1, _unit(2))])
            store.end_bulk_load()
        assert sorted(r for r, _ in _search(memory, "oolong", [U1])) == [40, 41]
        assert [r for r, _ in store.search_vectors("facts", _unit(2), [U1], 1)] == [41]
        fact = memory.remember("A new fact after the copy.", namespace="u1")
        assert memory._store.fact_by_id(fact.id)[0] > 41  # the rowid counter moved on


def test_an_older_postgres_base_gets_its_bm25_counts_on_upgrade(postgres_url: str) -> None:
    """A base made before the token counts existed: the upgrade counts its rows, so it
    ranks as a new one does."""
    with MemoHood(postgres_url, embedder=None, gate=RecallGate()) as memory:
        _remember(memory, CORPUS, "u1")
        expected = _search(memory, "tea oolong", [U1])
        db = memory.db
        with db.transaction():  # as the step before it left the base
            db.execute("ALTER TABLE mem_facts_fts DROP COLUMN ntok")
            db.execute("ALTER TABLE mem_turns_fts DROP COLUMN ntok")
            db.execute("DROP TABLE mem_facts_fts_stats")
            db.execute("DROP TABLE mem_turns_fts_stats")
            db.execute(
                "DELETE FROM _memo_migrations WHERE schema = 'memohood' AND name = ?",
                ["add_keyword_statistics"],
            )
    with MemoHood(postgres_url, embedder=None, gate=RecallGate()) as memory:
        stats = memory.db.query_one("SELECT nrows, ntokens FROM mem_facts_fts_stats")
        assert stats[0] == len(CORPUS) and stats[1] > 2 * len(CORPUS)
        assert _search(memory, "tea oolong", [U1]) == expected


def test_postgres_reads_the_scope_once_and_ranks_as_without(postgres_url: str) -> None:
    """``scope_first``: the namespaces' rows are selected once (not per word and per
    count, which followed every user's matches), and the numbers do not change."""
    from memo_core.memory.pg_schema import FTS_STATS
    from memo_core.search.pg_bm25 import bm25_statement
    from memo_core.search.pg_text import query_phrases

    with MemoHood(postgres_url, embedder=None, gate=RecallGate()) as memory:
        _remember(memory, CORPUS, "u1")
        _remember(memory, OTHERS, "u2")
        phrases = query_phrases("tea shop oolong")
        scope = "f.rowid IN (SELECT b.rowid FROM mem_facts b WHERE b.ns = ANY(?))"
        ranked = {}
        for first in (False, True):
            sql, params = bm25_statement(
                phrases,
                scope,
                [[U1]],
                index="mem_facts_fts",
                stats=FTS_STATS["mem_facts_fts"],
                partition="(SELECT b.ns FROM mem_facts b WHERE b.rowid = f.rowid)",
                scope_first=first,
            )
            assert (sql.count(scope) == 1) is first
            assert (params.count([U1]) == 1) is first
            ranked[first] = memory.db.query(sql, [*params, 100])
        assert [int(r[0]) for r in ranked[True]] == [int(r[0]) for r in ranked[False]]
        assert [float(r[1]) for r in ranked[True]] == pytest.approx(
            [float(r[1]) for r in ranked[False]], rel=1e-12
        )
        assert _keys(memory, [(int(r[0]), 0.0) for r in ranked[True]])[0] == "shop"  # two words
