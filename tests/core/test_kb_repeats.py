"""Text repeated across documents (boilerplate) is found at ingest and ranks below
the document it points to (``kb/repeats.py``, ``search/repeats.py``), on both backends."""

from __future__ import annotations

import itertools
import sqlite3
import sys
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.kb.repeats import REPEAT_DOCUMENTS, SHINGLE_WORDS, WINDOW, shingles
from memo_core.kb.schema import kb_schema
from memo_core.search import SearchSettings
from memo_core.search.repeats import (
    RepeatedText,
    StoredTerms,
    demote_repeated,
    query_shares,
    repeat_term,
)

NOTICE = (
    "Questions about how long Northwind keeps records are answered by the Northwind "
    "records retention policy, which the records office maintains and updates every year."
)
TOPICS = [
    "The cafeteria opens at eight and serves lentil soup on Tuesdays.",
    "Parking permits are renewed in March at the front desk.",
    "The printer on the third floor jams whenever the paper is damp.",
    "New laptops are ordered through the procurement portal.",
    "Fire drills happen twice a year and are announced a day before.",
    "Visitors sign in at reception and wear a badge at all times.",
]
POLICY = (
    "Northwind keeps invoices for seven years and keeps employee records for five "
    "years after they leave; emails are deleted after two years."
)
QUESTION = "How long does Northwind keep records?"


def _fill(base: MemoBase) -> None:
    base.add_texts([POLICY], ids=["policy"])
    base.add_texts([f"{t}\n\n{NOTICE}" for t in TOPICS], ids=[f"memo{i}" for i in range(6)])


def _shares(base: MemoBase) -> dict[str, float]:
    rows = base.db.query("SELECT id, repeated FROM chunks ORDER BY id")
    return {str(r[0]): round(float(r[1]), 3) for r in rows}


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "vector"])
def test_a_notice_in_six_files_ranks_below_the_document_it_points_to(
    backend_url: str, mode: str
) -> None:
    # Without the demotion, every copy of the notice outranks the policy...
    plain = SearchSettings(repeated_penalty=0.0)
    with MemoBase(backend_url, embedder=HashEmbedder(64), settings=plain) as base:
        _fill(base)
        before = [h.chunk_id for h in base.search(QUESTION, k=7, mode=mode)]
    assert before[-1] == "policy", before
    # ...with it (the default settings), the policy comes first and the copies stay.
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        after = [h.chunk_id for h in base.search(QUESTION, k=7, mode=mode)]
        assert after[0] == "policy", after
        assert sorted(after[1:]) == [f"memo{i}" for i in range(6)]
        assert base.status()["repeated_chunks"] == 6


def test_shares_follow_every_write(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        base.add_texts([POLICY], ids=["policy"])
        for i in range(REPEAT_DOCUMENTS - 1):
            base.add_texts([f"{TOPICS[i]}\n\n{NOTICE}"], ids=[f"memo{i}"])
        assert set(_shares(base).values()) == {0.0}  # quoted twice is not boilerplate
        base.add_texts([f"{TOPICS[5]}\n\n{NOTICE}"], ids=["memo5"])  # the third copy
        shares = _shares(base)
        assert shares["policy"] == 0.0
        assert all(shares[f"memo{i}"] >= 0.5 for i in (0, 1, 5)), shares
        # Replacing one copy with its own text leaves two: no longer boilerplate.
        base.add_texts([TOPICS[5]], ids=["memo5"])
        assert set(_shares(base).values()) == {0.0}
        base.add_texts([f"{TOPICS[3]}\n\n{NOTICE}"], ids=["memo3"])
        assert _shares(base)["memo0"] >= 0.5
        base.delete(["memo3"])
        assert set(_shares(base).values()) == {0.0}
        base.add_texts([f"{TOPICS[4]}\n\n{NOTICE}"], ids=["memo4"])
        base.delete_chunks(["memo4"])
        assert set(_shares(base).values()) == {0.0}


def test_copies_in_another_owners_base_do_not_count(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=HashEmbedder(64), owner="alice") as alice:
        alice.add_texts([f"{TOPICS[0]}\n\n{NOTICE}"], ids=["a"])
        bob = alice.for_owner("bob")
        bob.add_texts([f"{t}\n\n{NOTICE}" for t in TOPICS[1:]], ids=list("bcdef"))
        shares = _shares(alice)
        assert shares["a"] == 0.0 and all(shares[i] >= 0.5 for i in "bcdef"), shares


def test_a_notice_shares_its_shingles_wherever_the_chunker_cuts() -> None:
    alone = shingles(NOTICE)
    assert alone
    for topic in TOPICS:
        inside = shingles(f"{topic} {NOTICE} {POLICY}")
        assert alone <= inside
    # One changed word keeps most of it (a near duplicate), a different text none.
    edited = shingles(NOTICE.replace("every year", "every spring"))
    assert len(alone & edited) >= len(alone) // 2
    assert not alone & shingles(POLICY)


def test_the_migration_computes_shares_for_chunks_already_stored(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(str(path), embedder=HashEmbedder(64)) as base:
        _fill(base)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE chunk_shingles")
    con.execute("ALTER TABLE chunks DROP COLUMN repeated")
    version = next(i for i, m in enumerate(kb_schema.steps, 1) if m.name == "add_chunk_repeats")
    con.execute("DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version])
    con.commit()
    con.close()
    with MemoBase(str(path), embedder=HashEmbedder(64)) as reopened:
        shares = _shares(reopened)
        assert shares["policy"] == 0.0 and all(shares[f"memo{i}"] >= 0.5 for i in range(6))
        assert reopened.search(QUESTION, k=1)[0].chunk_id == "policy"


def test_ingest_reports_repeated_chunks(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "policy.txt").write_text(POLICY, encoding="utf-8")
    for i, topic in enumerate(TOPICS):
        (folder / f"memo{i}.txt").write_text(f"{topic}\n\n{NOTICE}\n", encoding="utf-8")
    with MemoBase(str(tmp_path / "kb.db"), embedder=HashEmbedder(64)) as base:
        report = base.ingest([folder], roots=[tmp_path])
        # Counted after the run: the first two files became boilerplate with the third.
        assert report.repeated_chunks == base.status()["repeated_chunks"] >= 6
        assert report.to_dict()["repeated_chunks"] == report.repeated_chunks


def test_demotion_by_hand() -> None:
    ranked = [("copy", 0.0328), ("own", 0.0164), ("half", 0.02), ("neg", -0.2)]
    shares = {"copy": 1.0, "half": 0.5, "neg": 1.0}
    out = dict(demote_repeated(ranked, shares, 0.75))
    assert out["copy"] == pytest.approx(0.0328 * 0.25)
    assert out["half"] == pytest.approx(0.02 * 0.625)
    assert out["own"] == 0.0164
    assert out["neg"] == pytest.approx(-0.35)  # a negative score is lowered too
    assert [k for k, _ in demote_repeated(ranked, shares, 0.75)] == ["own", "half", "copy", "neg"]
    assert demote_repeated(ranked, shares, 0.0) == ranked
    with pytest.raises(ValueError, match="penalty"):
        demote_repeated(ranked, shares, 1.5)
    with pytest.raises(InvalidInputError):
        SearchSettings(repeated_penalty=-0.1)


def test_query_shares_by_hand() -> None:
    stored = {
        "half": RepeatedText(0.5, own=frozenset({"lentil", "soup"}), copied=frozenset({"keep"})),
        "whole": RepeatedText(1.0),
        "other": RepeatedText(0.25, own=frozenset({"parrot"}), copied=frozenset({"cage"})),
    }
    shares = query_shares("Do they keep the lentil soup?", stored)
    assert shares["half"] == pytest.approx(1 / 3)  # "keep" only in the notice, 2 words own
    assert shares["whole"] == 1.0  # every word repeated: whatever it matches
    assert shares["other"] == 0.25  # matches none of them: its stored share
    assert query_shares("keeping", stored)["half"] == 1.0  # compared by stem
    # As the store hands them over: the stored strings, asked term by term.
    as_stored = {
        "half": RepeatedText(0.5, StoredTerms("lentil soup"), StoredTerms("keep")),
        "other": RepeatedText(0.25, StoredTerms("parrot"), StoredTerms("cage")),
    }
    assert query_shares("Do they keep the lentil soup?", as_stored) == {
        "half": pytest.approx(1 / 3),
        "other": 0.25,
    }


def test_stored_terms_match_whole_terms_only() -> None:
    stored = StoredTerms("lentil soup keep")
    assert "soup" in stored and "lentil" in stored and "keep" in stored
    assert "sou" not in stored and "oup" not in stored and "til" not in stored
    assert "lentil soup" in stored  # never asked (terms hold no space), but no harm
    assert "" not in StoredTerms("") and "soup" not in StoredTerms("")
    assert 3 not in stored  # type: ignore[operator]
    # Counted at once, as a query counts its terms: whole terms only.
    assert stored.count([" soup ", " keep ", " sou ", " parrot "]) == 2
    assert StoredTerms("").count([" soup "]) == 0


def test_each_partly_repeated_chunk_keeps_its_own_and_copied_terms(backend_url: str) -> None:
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        _fill(base)
        rows = base.db.query("SELECT id, repeated, own_terms, copied_terms FROM chunks")
        terms = {str(r[0]): (float(r[1]), set(r[2].split()), set(r[3].split())) for r in rows}
        assert terms["policy"] == (0.0, set(), set())
        share, own, copied = terms["memo0"]
        assert 0 < share < 1
        assert {repeat_term("cafeteria"), repeat_term("lentil")} <= own
        assert {repeat_term("retention"), repeat_term("maintains")} <= copied
        assert not own & copied and not {"the", "about"} & (own | copied)
        base.delete(["memo1", "memo2", "memo3", "memo4"])  # two copies left: none repeated
        left = base.db.query("SELECT own_terms, copied_terms FROM chunks WHERE id = 'memo0'")
        assert tuple(left[0]) == ("", "")


def test_a_chunk_is_not_demoted_for_a_question_its_own_words_answer(backend_url: str) -> None:
    question = "When does the cafeteria serve lentil soup?"
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        _fill(base)
        demoted = {h.chunk_id: h.score for h in base.search(question, k=7, mode="keyword")}
        assert next(iter(demoted)) == "memo0"
    plain = SearchSettings(repeated_penalty=0.0)
    with MemoBase(backend_url, embedder=HashEmbedder(64), settings=plain) as base:
        scores = {h.chunk_id: h.score for h in base.search(question, k=7, mode="keyword")}
    assert demoted["memo0"] == pytest.approx(scores["memo0"])  # matched in its own words


def test_the_extractive_answer_quotes_the_policy_not_a_copy_of_the_notice(tmp_path: Path) -> None:
    from memo_core.answer.engine import GuardedAnswerer
    from memo_core.answer.gate import SufficiencyGate

    def first_cited(settings: SearchSettings, name: str) -> str:
        with MemoBase(tmp_path / name, embedder=HashEmbedder(64), settings=settings) as base:
            _fill(base)
            result = GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0)).ask(QUESTION)
            assert not result.refused
            return result.citations[0].document_id  # type: ignore[union-attr]

    assert first_cited(SearchSettings(repeated_penalty=0.0), "plain.db").startswith("memo")
    assert first_cited(SearchSettings(), "default.db") == "policy"


def test_the_postgres_migration_computes_shares_for_chunks_already_stored(
    postgres_url: str,
) -> None:
    from memo_core.kb.pg_schema import pg_kb_schema

    with MemoBase(postgres_url, embedder=HashEmbedder(64)) as base:
        _fill(base)
        version = next(
            i for i, m in enumerate(pg_kb_schema.steps, 1) if m.name == "add_chunk_repeats"
        )
        with base.db.transaction():
            base.db.execute("DROP TABLE chunk_shingles")
            base.db.execute("ALTER TABLE chunks DROP COLUMN repeated")
            base.db.execute(
                "DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version]
            )
    with MemoBase(postgres_url, embedder=HashEmbedder(64)) as reopened:
        shares = _shares(reopened)
        assert shares["policy"] == 0.0 and all(shares[f"memo{i}"] >= 0.5 for i in range(6))
        assert reopened.search(QUESTION, k=1)[0].chunk_id == "policy"


def test_the_pure_python_shingles_equal_the_numpy_ones() -> None:
    # The base install has no numpy: both ways must store the same hashes, or a base
    # written with one would not recognise its copies under the other.
    pytest.importorskip("numpy")
    import numpy as np

    from memo_core.kb import repeats
    from memo_core.search.text import tokenize

    long_text = " ".join([*TOPICS, NOTICE, POLICY])
    texts = [NOTICE, POLICY, *TOPICS, long_text, "Too short here.", "", "one two " * 6]
    hashed = [[repeats._word_hash(w) for w in tokenize(t)] for t in texts]
    assert repeats._numpy_runs(np, hashed) == [repeats._python_runs(h) for h in hashed]
    # Only texts with fewer runs than a window, though enough words for one together.
    few = [[repeats._word_hash(w) for w in tokenize(t)] for t in TOPICS]
    assert repeats._numpy_runs(np, few) == [repeats._python_runs(h) for h in few]
    for words, runs in zip(hashed, repeats._numpy_runs(np, hashed), strict=True):
        assert all(-(2**63) <= h < 2**63 for _, h in runs)
        starts = [i for i, _ in runs]
        # Winnowing: one kept shingle in every window, so kept shingles overlap.
        if len(words) >= SHINGLE_WORDS:
            assert starts[0] < WINDOW and len(words) - SHINGLE_WORDS - starts[-1] < WINDOW
            assert all(b - a <= WINDOW for a, b in itertools.pairwise(starts))


def test_a_batchs_shingle_rows_are_the_same_with_and_without_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The write path sorts and counts a batch's rows in arrays; the base install does
    # it in Python: both must give the same rows, each once, in key order, and the same
    # count of documents per shingle (a chunk holding one run twice, a document of two
    # chunks sharing one, and a text shorter than a shingle among them).
    pytest.importorskip("numpy")
    from memo_core.kb import repeats

    texts = {
        10: NOTICE,
        11: f"{TOPICS[0]} {NOTICE}",
        12: f"{NOTICE} {NOTICE}",
        13: f"{NOTICE} {TOPICS[1]}",
        14: "Too short here.",
        15: "one two " * 12,
    }
    docs = [1, 2, 3, 3, 4, 5]
    with_numpy = repeats._Shingled(texts).new_rows(7, docs)
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now fails
    without = repeats._Shingled(texts).new_rows(7, docs)
    assert with_numpy == without
    rows, per_shingle = with_numpy
    assert rows == sorted(set(rows))
    notice = shingles(NOTICE)
    # Document 3's two chunks both hold the notice (chunk 12 twice): one row each.
    assert notice <= {s for _, s, d in rows if d == 3}
    assert len(rows) == len({(s, d) for _, s, d in rows})
    assert all(per_shingle[s] == 3 for s in notice)  # documents 1, 2 and 3
    assert {d for _, _, d in rows} == set(docs) and {o for o, *_ in rows} == {7}


def test_a_batch_of_copies_makes_the_earlier_copies_boilerplate(backend_url: str) -> None:
    # One add_texts call stores its texts in one batch: three copies arriving together
    # lift a copy stored before them, and each other, above the threshold.
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        base.add_texts([f"{TOPICS[0]}\n\n{NOTICE}", POLICY], ids=["memo0", "policy"])
        assert set(_shares(base).values()) == {0.0}
        base.add_texts(
            [f"{t}\n\n{NOTICE}" for t in TOPICS[1:4]],
            ids=["memo1", "memo2", "memo3"],
            vectors=[[1.0] + [0.0] * 63] * 3,
        )
        shares = _shares(base)
        assert shares["policy"] == 0.0
        assert all(shares[f"memo{i}"] >= 0.5 for i in range(4)), shares
        rows = base.db.query("SELECT count(*) FROM chunk_shingles")
        assert int(rows[0][0]) > 0
        base.delete(["memo1", "memo2", "memo3"])
        assert set(_shares(base).values()) == {0.0}
        assert int(base.db.query("SELECT count(*) FROM chunk_shingles")[0][0]) == len(
            shingles(f"{TOPICS[0]}\n\n{NOTICE}") | shingles(POLICY)
        )


def test_a_base_with_the_old_shingles_is_shingled_again(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(str(path), embedder=HashEmbedder(64)) as base:
        _fill(base)
    con = sqlite3.connect(path)
    con.executescript(  # the table as the previous version wrote it, with stale hashes
        """
        DROP TABLE chunk_shingles;
        CREATE TABLE chunk_shingles (owner TEXT NOT NULL, shingle INTEGER NOT NULL,
            chunk_rowid INTEGER NOT NULL, doc_rowid INTEGER NOT NULL,
            PRIMARY KEY (chunk_rowid, shingle)) WITHOUT ROWID;
        CREATE INDEX chunk_shingles_owner ON chunk_shingles (owner, shingle, doc_rowid);
        INSERT INTO chunk_shingles SELECT owner, 12345, rowid, doc_rowid FROM chunks;
        UPDATE chunks SET repeated = 1.0 WHERE id = 'policy';
        """
    )
    version = next(i for i, m in enumerate(kb_schema.steps, 1) if m.name == "rehash_chunk_shingles")
    con.execute("DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version])
    con.commit()
    con.close()
    with MemoBase(str(path), embedder=HashEmbedder(64)) as reopened:
        shares = _shares(reopened)
        assert shares["policy"] == 0.0 and all(shares[f"memo{i}"] >= 0.5 for i in range(6))
        stored = {int(r[0]) for r in reopened.db.query("SELECT shingle FROM chunk_shingles")}
        assert 12345 not in stored and shingles(NOTICE) <= stored
        assert len(reopened.db.query("SELECT rowid FROM chunks")) == 7  # every chunk kept


def test_the_migration_stores_the_terms_of_chunks_already_shared(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(str(path), embedder=HashEmbedder(64)) as base:
        _fill(base)
        before = base.db.query("SELECT id, own_terms, copied_terms FROM chunks ORDER BY id")
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE chunks DROP COLUMN own_terms")
    con.execute("ALTER TABLE chunks DROP COLUMN copied_terms")
    version = next(
        i for i, m in enumerate(kb_schema.steps, 1) if m.name == "add_chunk_repeat_terms"
    )
    con.execute("DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version])
    con.commit()
    con.close()
    with MemoBase(str(path), embedder=HashEmbedder(64)) as reopened:
        after = reopened.db.query("SELECT id, own_terms, copied_terms FROM chunks ORDER BY id")
        assert [tuple(r) for r in after] == [tuple(r) for r in before]
        assert any(r[2] for r in after)
        question = "When does the cafeteria serve lentil soup?"
        assert reopened.search(question, k=1, mode="keyword")[0].chunk_id == "memo0"


def _shingle_rows(base: MemoBase) -> set[tuple[str, int, int]]:
    rows = base.db.query(
        "SELECT o.owner, s.shingle, s.doc_rowid FROM chunk_shingles s"
        " JOIN chunk_shingle_owners o ON o.id = s.owner_id"
    )
    return {(str(o), int(s), int(d)) for o, s, d in rows}


def test_shingles_stored_per_chunk_are_converted_to_rows_per_document(backend_url: str) -> None:
    # A base whose chunk_shingles holds a row per chunk and the owner's name (the
    # layout before shingles_by_document) opens with one row per document and
    # shingle, the owner a number, and the shares and later writes as before.
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as base:
        _fill(base)
        # A document of several chunks, each holding the notice: one row per shingle.
        handbook = "\n\n".join(f"{t}\n\n{NOTICE}" for t in TOPICS * 4)
        base.add_texts([handbook], ids=["handbook"], chunk=True)
        expected, shares = _shingle_rows(base), _shares(base)
        chunks = base.db.query("SELECT rowid, owner, doc_rowid, text FROM chunks")
        steps = base.store.backend.migrations.steps
        version = next(i for i, m in enumerate(steps, 1) if m.name == "shingles_by_document")
        with base.db.transaction():
            base.db.execute("DROP TABLE chunk_shingles")
            base.db.execute("DROP TABLE chunk_shingle_owners")
            base.db.execute(
                "CREATE TABLE chunk_shingles (owner TEXT NOT NULL, shingle BIGINT NOT NULL,"
                " doc_rowid BIGINT NOT NULL, chunk_rowid BIGINT NOT NULL,"
                " PRIMARY KEY (owner, shingle, doc_rowid, chunk_rowid))"
            )
            base.db.executemany(
                "INSERT INTO chunk_shingles VALUES (?, ?, ?, ?)",
                [(o, s, d, r) for r, o, d, t in chunks for s in shingles(str(t))],
            )
            base.db.execute(
                "DELETE FROM _memo_migrations WHERE schema = 'kb' AND version >= ?", [version]
            )
    assert len(expected) < sum(len(shingles(str(t))) for *_, t in chunks)
    with MemoBase(backend_url, embedder=HashEmbedder(64)) as reopened:
        assert _shingle_rows(reopened) == expected
        assert _shares(reopened) == shares
        assert all(shares[f"memo{i}"] >= 0.5 for i in range(6))
        reopened.delete(["handbook"])
        reopened.delete([f"memo{i}" for i in range(4)])  # two copies stay
        assert set(_shares(reopened).values()) == {0.0}
        reopened.add_texts([f"{TOPICS[1]}\n\n{NOTICE}"], ids=["memo1"])  # the third again
        assert all(v >= 0.5 for k, v in _shares(reopened).items() if k != "policy")
