"""The knowledge base on PostgreSQL: what only that backend has, and its parity with SQLite.

The shared behaviour runs on both backends in test_kb.py and test_guarded.py; here:
HNSW under selective filters, hostile keyword queries, BM25/stemming/diacritics
parity with FTS5, owner isolation, the index statistics, re-index, snapshots, the
CLI with a URL, and several processes writing one schema at once.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import textwrap
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memo_core.answer.gate import SufficiencyGate
from memo_core.cli import main
from memo_core.embedders import HashEmbedder
from memo_core.errors import NamespaceRequiredError
from memo_core.kb import ChunkInput, MemoBase
from memo_core.kb.pg_backend import EF_SEARCH_MIN, PostgresKnowledgeBackend
from memo_core.kb.pg_fts import index_text
from memo_core.search.hybrid import SearchSettings
from memo_core.storage.local_server import LocalPostgres
from memo_core.storage.postgres import PostgresDatabase

CORPUS = {
    "en1": "The contract term is 24 months from the signing date of the agreement.",
    "en2": "Running shipments were delayed; the runner ran to the Berlin warehouse.",
    "en3": "Order A-4471 shipped on Monday. Order A-4471 was insured by the carrier.",
    "en4": "A café in Zürich serves naïve coffee lovers a crème brûlée every morning.",
    "en5": "The university's faculty includes a Shakespeare scholar and a historian.",
    "ru1": "Срок договора составляет два года с даты подписания договора.",
    "ru2": "Договоры поставки заключаются на один год; поставщик отвечает за качество.",
    "ru3": "Ёлка и йогурт: ёжик купил йогурт в магазине у дома.",
    "mix": "Łódź and Kraków host the Polish film school; Łódź is older.",
}
QUERIES = [
    "contract term months",
    "A-4471",
    "a-4471 insured",
    "cafe zurich",
    "café Zürich crème",
    "naive coffee",
    "running runner",
    "shipment delays",
    "договоры",
    "договору поставки",
    "ёлка",
    "елка",
    "lodz film",
    "Łódź",
    "university's Shakespeare",
    "the",
]
HOSTILE = [
    '"',
    "'",
    "*",
    "NEAR",
    "-",
    ":",
    "\\",
    "a & b | !c",
    "<-> <2>",
    "():*",
    "x:*AB",
    "'; DROP TABLE chunks; --",
    "\x00",
    "contract\x00term",
    "z" * 3000,
    "é" * 700,
    "!" * 10_000,
    "word " * 5000,
]


OTHER_OWNER = "The other owner's contract term is 12 months; Order A-4471 is theirs too."


def _fill(base: MemoBase) -> MemoBase:
    """The corpus for the default owner, and one document of another owner sharing the
    base: it counts in the keyword statistics (as in FTS5) but is never returned."""
    base.add_texts(list(CORPUS.values()), ids=list(CORPUS))
    base.for_owner("other").add_texts([OTHER_OWNER], ids=["theirs"])
    return base


@pytest.fixture(scope="module")
def pair(
    postgres_server: LocalPostgres, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[MemoBase, MemoBase]]:
    """The same corpus in a SQLite file and in a PostgreSQL schema, for tests that only
    read (built once per module: a schema costs about half a second to set up)."""
    url = postgres_server.url(f"t_{uuid.uuid4().hex[:16]}")
    with (
        MemoBase(tmp_path_factory.mktemp("kb") / "kb.db", embedder=HashEmbedder(64)) as lite,
        MemoBase(url, embedder=HashEmbedder(64)) as pg,
    ):
        yield _fill(lite), _fill(pg)
        assert isinstance(pg.db, PostgresDatabase)
        pg.db.drop_schema()


@pytest.fixture
def pg(pair: tuple[MemoBase, MemoBase]) -> MemoBase:
    """The PostgreSQL half of :func:`pair` (read only)."""
    return pair[1]


@pytest.fixture
def fresh_pg(postgres_url: str) -> Iterator[MemoBase]:
    """A filled PostgreSQL base of its own, for tests that write."""
    with MemoBase(postgres_url, embedder=HashEmbedder(64)) as base:
        yield _fill(base)


def _stats(base: MemoBase) -> tuple[tuple[int, int], tuple[int, int]]:
    """(kept statistics, recounted statistics) of the keyword index."""
    kept = base.db.query_one("SELECT nrows, ntokens FROM chunks_fts_stats")
    real = base.db.query_one("SELECT count(*), COALESCE(sum(ntok), 0) FROM chunks_fts")
    return (int(kept[0]), int(kept[1])), (int(real[0]), int(real[1]))


def test_store_is_the_postgres_one(pg: MemoBase) -> None:
    assert isinstance(pg.store.backend, PostgresKnowledgeBackend)
    assert pg.status()["backend"] == "postgres"


# -- keyword search: parity with FTS5 -------------------------------------------


@pytest.mark.parametrize("query", QUERIES)
def test_keyword_ranking_and_bm25_scores_match_sqlite(
    pair: tuple[MemoBase, MemoBase], query: str
) -> None:
    lite, pg = pair
    a = [(h.document_id, h.score) for h in lite.search(query, mode="keyword", k=10)]
    b = [(h.document_id, h.score) for h in pg.search(query, mode="keyword", k=10)]
    assert [d for d, _ in a] == [d for d, _ in b]
    assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-9)
    hybrid = [h.document_id for h in lite.search(query, k=3)]
    assert [h.document_id for h in pg.search(query, k=3)] == hybrid


def test_diacritics_fold_like_unicode61_and_stems_match(pg: MemoBase) -> None:
    def top(query: str) -> str:
        return pg.search(query, mode="keyword", k=1)[0].document_id

    assert top("cafe zurich") == top("CAFÉ Zürich") == "en4"
    assert pg.search("lodz", mode="keyword") == []  # unicode61 keeps ł: not "łodz"
    assert top("łodz") == "mix"
    assert top("договору") == "ru1"  # Russian stem: договор
    assert top("ran runner running") == "en2"  # English stems: run, runner
    assert top("елка") == "ru3"  # the raw column keeps ё, but the Russian stem is "елк"
    assert top("A-4471") == "en3"  # punctuation-split word: a phrase


def test_document_frequencies_match_the_fts5_vocabulary(pair: tuple[MemoBase, MemoBase]) -> None:
    lite, pg = pair
    terms = [
        "the",
        "order",
        "4471",
        "договор",
        "елк",
        "ёлка",
        "елка",
        "café",
        "cafe",
        "run",
        "nothing",
        "s",
    ]
    lite.db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 'chunks_fts', 'row')"
    )
    expected = {}
    for term in terms:
        row = lite.db.query_one("SELECT doc FROM temp.v WHERE term = ?", [term])
        expected[term] = int(row[0]) if row else 0
    assert isinstance(pg.store.backend, PostgresKnowledgeBackend)
    assert pg.store.document_frequencies(terms) == expected
    assert expected["the"] > 0 and expected["café"] == 0  # stored folded, looked up as given


def test_gate_decides_alike_on_both_backends(pair: tuple[MemoBase, MemoBase]) -> None:
    gate = SufficiencyGate()
    for question in ("How long is the contract term?", "Which kitten vaccine applies?"):
        a = gate.decide(question, pair[0].search(question), pair[0].store)
        b = gate.decide(question, pair[1].search(question), pair[1].store)
        assert a.passed == b.passed and a.score == pytest.approx(b.score)
        assert a.signals["coverage"] == pytest.approx(b.signals["coverage"])


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_keyword_queries_are_inert(pg: MemoBase, query: str) -> None:
    for mode in ("keyword", "hybrid"):
        hits = pg.search(query, mode=mode, k=5)
        assert all(h.document_id in CORPUS for h in hits)
    assert pg.status()["documents"] == len(CORPUS) + 1


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=200))
def test_any_text_is_a_safe_keyword_query(pg: MemoBase, query: str) -> None:
    hits = pg.search(query, mode="keyword", k=3)
    assert all(h.document_id in CORPUS for h in hits)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tokens=st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=60))
def test_frequencies_read_by_ts_rank_cd_are_occurrence_counts(
    pg: MemoBase, tokens: list[str]
) -> None:
    """BM25 on PostgreSQL reads a phrase's frequency with ts_rank_cd (unit weights, no
    normalisation); this pins that it is exactly the number of occurrences."""
    vector = index_text(" ".join(tokens)).raw
    unigrams = Counter(tokens)
    bigrams = Counter(itertools.pairwise(tokens))
    for lexeme in "abcd":
        got = pg.db.query_one(
            "SELECT ts_rank_cd('{1,1,1,1}', CAST(? AS tsvector), CAST(? AS tsquery), 0)",
            [vector, f"'{lexeme}'"],
        )[0]
        assert got == unigrams[lexeme]
    for (first, second), count in bigrams.items():
        if first == second:
            continue  # overlapping repeats ("a a a") are not counted one by one
        got = pg.db.query_one(
            "SELECT ts_rank_cd('{1,1,1,1}', CAST(? AS tsvector), CAST(? AS tsquery), 0)",
            [vector, f"'{first}' <-> '{second}'"],
        )[0]
        assert got == count


def test_index_statistics_follow_every_write(
    fresh_pg: MemoBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, real = _stats(fresh_pg)
    assert kept == real and kept[0] == len(CORPUS) + 1
    fresh_pg.add_document("alpha beta\n\ngamma delta", document_id="en1")  # replace: 2 chunks
    fresh_pg.delete(["en2"])
    fresh_pg.delete_chunks(["ru3"])
    original = fresh_pg.db.execute

    def failing(sql: str, params: Any = ()) -> Any:
        if sql.startswith("UPDATE chunks_fts_stats"):
            raise RuntimeError("crash before commit")
        return original(sql, params)

    monkeypatch.setattr(fresh_pg.db, "execute", failing)
    with pytest.raises(RuntimeError):
        fresh_pg.add_texts(["never stored"], ids=["lost"])
    monkeypatch.undo()
    kept, real = _stats(fresh_pg)
    assert kept == real
    assert kept[0] == fresh_pg.store.counts()["chunks"] == fresh_pg.store.counts()["fts_rows"]


# -- vectors --------------------------------------------------------------------


def _many_chunks(n: int, prefix: str) -> tuple[str, list[ChunkInput]]:
    texts = [f"{prefix} note {i} about topic {i % 37} and item {i * 7 % 101}" for i in range(n)]
    chunks, at = [], 0
    for t in texts:
        chunks.append(ChunkInput(t, at, at + len(t)))
        at += len(t) + 1
    return "\n".join(texts), chunks


def test_filtered_hnsw_search_still_returns_k_rows(postgres_url: str) -> None:
    emb = HashEmbedder(32)
    with MemoBase(postgres_url, embedder=emb, owner="big") as base:
        text, chunks = _many_chunks(400, "big")
        base.add_document(text, chunks=chunks, document_id="bulk")
        small = base.for_owner("small")
        small.add_texts([f"small note {i} about topic {i % 37}" for i in range(30)])
        small.add_texts([f"appendix {i} on topic {i}" for i in range(12)], collection="appendix")
        table = base.store.vector_table
        query = emb.embed_query("topic 5 and item 12")
        exact = _exact_nearest(base, table, query, "small")
        with base.db.snapshot():
            # Make the HNSW order the planner's choice, as it is on a large table.
            base.db.query("SELECT set_config('enable_sort', 'off', true)")
            base.db.query("SELECT set_config('hnsw.ef_search', ?, true)", [str(EF_SEARCH_MIN)])
            plain = base.db.query(
                f"SELECT chunk_rowid FROM {table} WHERE owner = ?"
                " ORDER BY embedding <=> CAST(? AS vector) LIMIT 20",
                ["small", query],
            )
            assert len(plain) < 20  # HNSW filters after its walk: a short list
            got = base.store.vector_candidates("small", query, 20)
            scoped = base.store.vector_candidates("small", query, 20, collections=["appendix"])
            filtered = base.store.vector_candidates(
                "small", query, 20, filter={"source": {"$exists": True}}
            )
        assert [r for r, _ in got] == exact[:20]
        assert len(scoped) == 12 and len(filtered) == 20
        hits = small.search("topic 5 and item 12", mode="vector", k=25)
        assert len(hits) == 25 and all(h.document_id != "bulk" for h in hits)


def _exact_nearest(base: MemoBase, table: str | None, query: list[float], owner: str) -> list[int]:
    rows = base.db.query(
        f"WITH s AS MATERIALIZED (SELECT chunk_rowid, embedding <=> CAST(? AS vector) AS d"
        f" FROM {table} WHERE owner = ?) SELECT chunk_rowid FROM s ORDER BY d, chunk_rowid",
        [query, owner],
    )
    return [int(r[0]) for r in rows]


def test_vectors_and_similarities_round_trip_as_float32(pair: tuple[MemoBase, MemoBase]) -> None:
    lite, pg = pair
    ids = list(CORPUS)
    a = lite.store.vectors_by_rowid(list(lite.store.chunk_rowids("default", ids).values()))
    b = pg.store.vectors_by_rowid(list(pg.store.chunk_rowids("default", ids).values()))
    assert sorted(map(tuple, a.values())) == sorted(map(tuple, b.values()))
    query = HashEmbedder(64).embed_query("contract term")
    for base in (lite, pg):
        sims = base.store.similarities(
            list(base.store.chunk_rowids("default", ids).values()), query
        )
        assert len(sims) == len(ids) and max(sims.values()) <= 1.0 + 1e-6


def test_ram_vector_index_works_on_postgres(postgres_url: str) -> None:
    memory = SearchSettings(vector_index="memory")
    with MemoBase(postgres_url, embedder=HashEmbedder(64), settings=memory) as base:
        _fill(base)
        got = [h.document_id for h in base.search("contract term", mode="vector", k=4)]
        base.searcher.settings = SearchSettings()
        assert got == [h.document_id for h in base.search("contract term", mode="vector", k=4)]


# -- owners, snapshots, re-index ---------------------------------------------------


def test_owners_never_see_each_other(postgres_url: str) -> None:
    with MemoBase(postgres_url, embedder=HashEmbedder(64), owner="alice") as alice:
        _fill(alice)
        bob = alice.for_owner("bob")
        bob.add_texts(["bob's contract term notes"], ids=["b1"], metadatas=[{"page": 1}])
        for mode in ("keyword", "vector", "hybrid"):
            for spec in (None, {"page": 1}, {"source": {"$exists": True}}):
                hits = bob.search("contract term months order", mode=mode, k=50, filter=spec)
                assert {h.document_id for h in hits} == {"b1"}
        assert all(h.document_id != "b1" for h in alice.search("bob contract", k=50))
        assert bob.get_chunks(["en1"]) == [] and bob.delete(["en1"]) == 0
        statements: list[str] = []
        alice.db.tracer = lambda sql, params: statements.append(sql)
        for call in (
            lambda: alice.store.keyword_candidates("", "contract", 5),
            lambda: alice.store.vector_candidates(" ", [0.1] * 64, 5),
            lambda: alice.search("contract", owner=""),
        ):
            with pytest.raises(NamespaceRequiredError):
                call()
        assert statements == []  # failed closed before any SQL


def test_an_open_snapshot_keeps_seeing_the_old_document(postgres_url: str) -> None:
    with (
        MemoBase(postgres_url, embedder=HashEmbedder(64)) as writer,
        MemoBase(postgres_url, embedder=HashEmbedder(64)) as reader,
    ):
        writer.add_texts(["the old wording of clause seven"], ids=["c7"])
        with reader.store.reading():
            before = reader.search("clause wording", mode="keyword")
            writer.add_texts(["the new phrasing of clause seven"], ids=["c7"])  # not blocked
            during = reader.search("clause", mode="keyword")
        after = reader.search("clause", mode="keyword")
    assert before[0].text == during[0].text == "the old wording of clause seven"
    assert after[0].text == "the new phrasing of clause seven"


def test_reindex_builds_beside_the_old_vectors_then_swaps(postgres_url: str) -> None:
    with (
        MemoBase(postgres_url, embedder=HashEmbedder(64)) as base,
        MemoBase(postgres_url, embedder=HashEmbedder(64)) as other,
    ):
        _fill(base)
        old = base.store.vector_table
        seen: list[str | None] = []

        def progress(done: int, total: int) -> None:
            seen.append(other.store.search_state().vector_table)  # another connection
            assert other.search("contract term", mode="vector", k=1)[0].document_id == "en1"

        assert base.reindex(HashEmbedder(32), progress=progress) == len(CORPUS) + 1
        new = base.store.vector_table
        assert seen and set(seen) == {old} and new != old
        assert old is not None and not base.db.table_exists(old)
        indexes = base.db.query("SELECT indexdef FROM pg_indexes WHERE tablename = ?", [new])
        assert any("hnsw" in r[0] and "vector_cosine_ops" in r[0] for r in indexes)
        kept, real = _stats(base)
        assert kept == real
    with MemoBase(postgres_url, embedder=HashEmbedder(32)) as reopened:
        assert reopened.search(CORPUS["en1"], mode="vector", k=1)[0].document_id == "en1"


# -- the CLI and concurrent processes ---------------------------------------------


def test_cli_takes_a_postgres_url(postgres_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    samples = Path(__file__).resolve().parents[2] / "samples"
    common = ["--db", postgres_url, "--json"]
    argv = ["kb", "ingest", str(samples), "--root", str(samples), "--embedder", "hash"]
    assert main([*argv, *common]) == 0
    assert json.loads(capsys.readouterr().out)["added"]
    assert main(["kb", "search", "contract", *common]) == 0  # embedder read from the base
    assert json.loads(capsys.readouterr().out)
    assert main(["kb", "status", *common]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["backend"] == "postgres" and status["embedder"].startswith("hash:")


_WORKER = textwrap.dedent(
    """
    import sys
    from memo_core.embedders import HashEmbedder
    from memo_core.kb import MemoBase

    url, worker = sys.argv[1], int(sys.argv[2])
    with MemoBase(url, embedder=HashEmbedder(64)) as base:
        for i in range(12):
            base.add_document(
                f"worker {worker} document {i}.\\n\\nA second paragraph {i} of {worker}.",
                document_id=f"w{worker}-{i}",
            )
            base.add_texts([f"shared version by worker {worker} round {i}"], ids=["shared"])
    """
)


def test_four_processes_ingest_into_one_schema_without_loss(postgres_url: str) -> None:
    with MemoBase(postgres_url, embedder=HashEmbedder(64)):
        pass  # schema and vector table exist before the race
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, postgres_url, str(w)]) for w in range(4)
    ]
    assert [p.wait(timeout=300) for p in workers] == [0, 0, 0, 0]
    with MemoBase(postgres_url, embedder=HashEmbedder(64)) as base:
        counts = base.store.counts()
        ids = {d.id for d in base.list_documents(limit=100)}
        assert ids == {f"w{w}-{i}" for w in range(4) for i in range(12)} | {"shared"}
        assert counts["documents"] == 49
        assert counts["chunks"] == counts["fts_rows"] == counts["vector_rows"]
        kept, real = _stats(base)
        assert kept == real
        assert len(base.search("shared version", mode="keyword", k=10)) == 1
        for w in range(4):
            assert base.search(f"worker {w} document 7", k=1)[0].document_id == f"w{w}-7"


@pytest.mark.parametrize("budget", [None, 1])
def test_keyword_postings_budget_trims_alike_on_both_backends(
    pair: tuple[MemoBase, MemoBase], budget: int | None
) -> None:
    """Every word is searched by default on both; the opt-in budget trims the same words."""
    lite, pg = pair
    query = "contract order shipped Berlin coffee university faculty warehouse agreement months"
    lite_rows = lite.store.keyword_candidates(lite.owner, query, 10, max_postings=budget)
    pg_rows = pg.store.keyword_candidates(pg.owner, query, 10, max_postings=budget)
    assert [r for r, _ in lite_rows] == [r for r, _ in pg_rows]
    assert [s for _, s in lite_rows] == pytest.approx([s for _, s in pg_rows], rel=1e-6)
