"""A first ingest's shingle counts kept in memory (``kb/shingle_tally.py``).

The tally may answer for the table only while the table holds exactly what this
connection wrote: another process writing the file, a rolled-back transaction
around a batch, or a delete must each send the counts back to the table. Each
test below also runs with the tally trusted blindly, to show it would catch one
that is not dropped.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase, shingle_tally
from memo_core.kb import repeats as repeats_module
from memo_core.kb.shingle_tally import ShingleTally

pytest.importorskip("numpy", reason="the tally keeps its counts in numpy arrays")

NOTICE = (
    "Copies of this leaflet are handed out at the lighthouse museum and may be "
    "reprinted by any school that asks the curator in writing"
)
TOPICS = [
    "The lamp room holds a lens ground in Paris in eighteen sixty.",
    "Keepers logged the weather every four hours through the night.",
    "Gulls nest on the eastern rocks from April until the end of July.",
    "The fog horn was silenced once the radio beacon was installed.",
]


def _add(kb: MemoBase, texts: list[str], ids: list[str]) -> None:
    """Texts with their vectors: the bulk write, with no ingest claim between batches."""
    kb.add_texts(texts, ids=ids, vectors=kb.embedder.embed_documents(texts))


def _repeated(kb: MemoBase) -> dict[str, bool]:
    return {str(i): float(r) > 0 for i, r in kb.db.query("SELECT id, repeated FROM chunks")}


@pytest.fixture(params=["dropped", "trusted blindly"])
def resume(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``dropped``: the code as it is; ``trusted blindly``: a tally never dropped."""
    if request.param == "trusted blindly":
        monkeypatch.setattr(ShingleTally, "resume", lambda self, db: None)
        monkeypatch.setattr(ShingleTally, "forget", lambda self: None)
    return str(request.param)


def test_another_process_writing_the_file_ends_the_tally(tmp_path: Path, resume: str) -> None:
    path = tmp_path / "kb.db"
    with MemoBase(path, embedder=HashEmbedder(16)) as kb:
        _add(kb, [f"{TOPICS[0]} {NOTICE}"], ["first"])
        # Another process stores a second copy while this base stays open.
        script = (
            "import sys; from memo_core.embedders import HashEmbedder;"
            " from memo_core.kb import MemoBase;"
            f" kb = MemoBase({str(path)!r}, embedder=HashEmbedder(16));"
            f" texts = [{TOPICS[1] + ' ' + NOTICE!r}];"
            " kb.add_texts(texts, ids=['second'], vectors=kb.embedder.embed_documents(texts));"
            " kb.close()"
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        _add(kb, [f"{TOPICS[2]} {NOTICE}"], ["third"])  # the third copy
        shares = _repeated(kb)
    # Trusted blindly, the tally misses the other process's copy and counts two.
    assert (shares == {"first": True, "second": True, "third": True}) == (resume == "dropped")


def test_a_rolled_back_transaction_around_a_batch_ends_the_tally(
    tmp_path: Path, resume: str
) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(16)) as kb:
        _add(kb, [f"{TOPICS[0]} {NOTICE}"], ["first"])

        def undone() -> None:
            with kb.db.transaction():
                _add(kb, [f"{TOPICS[1]} {NOTICE}"], ["undone"])
                raise RuntimeError("the caller's transaction fails after the batch")

        with pytest.raises(RuntimeError):
            undone()
        _add(kb, [f"{TOPICS[2]} {NOTICE}"], ["second"])
        shares = _repeated(kb)
        _add(kb, [f"{TOPICS[3]} {NOTICE}"], ["third"])
        after_third = _repeated(kb)
    assert "undone" not in shares
    # Trusted blindly, the rolled-back copy still counts: the second looks like a third.
    assert (shares == {"first": False, "second": False}) == (resume == "dropped")
    if resume == "dropped":
        assert after_third == {"first": True, "second": True, "third": True}


def test_a_delete_between_batches_ends_the_tally(tmp_path: Path, resume: str) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(16)) as kb:
        _add(kb, [f"{t} {NOTICE}" for t in TOPICS[:2]], ["first", "gone"])
        kb.delete(["gone"])
        _add(kb, [f"{TOPICS[2]} {NOTICE}"], ["second"])
        shares = _repeated(kb)
    # Trusted blindly, the deleted copy still counts.
    assert (shares == {"first": False, "second": False}) == (resume == "dropped")


def test_a_first_ingest_reads_no_count_back_and_gets_the_tables_shares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"{t} {NOTICE}" for t in TOPICS] + TOPICS
    ids = [f"copy{i}" for i in range(4)] + [f"plain{i}" for i in range(4)]
    asked: list[int] = []
    real_counts = repeats_module._document_counts

    def counts(db: object, number: int | None, found: object, *, least: int) -> object:
        asked.append(least)
        return real_counts(db, number, found, least=least)  # type: ignore[arg-type]

    monkeypatch.setattr(repeats_module, "_document_counts", counts)
    with MemoBase(tmp_path / "tallied.db", embedder=HashEmbedder(16)) as kb:
        for text, id_ in zip(texts, ids, strict=True):  # one batch each
            _add(kb, [text], [id_])
        tallied = kb.db.query("SELECT id, repeated, own_terms, copied_terms FROM chunks")
    batch_counts = len(asked)
    monkeypatch.setattr(shingle_tally, "_numpy", lambda: None)  # no tally: the table
    with MemoBase(tmp_path / "counted.db", embedder=HashEmbedder(16)) as kb:
        for text, id_ in zip(texts, ids, strict=True):
            _add(kb, [text], [id_])
        counted = kb.db.query("SELECT id, repeated, own_terms, copied_terms FROM chunks")
    assert sorted(tallied) == sorted(counted)
    assert any(float(r[1]) > 0 for r in tallied)
    # Only the chunks made boilerplate by the third copy are recounted from the table.
    assert batch_counts < len(asked) - batch_counts


def test_an_engine_that_cannot_tell_others_commits_keeps_no_tally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(16)) as kb:
        _add(kb, [f"{TOPICS[0]} {NOTICE}"], ["first"])
        tally = kb.store._shingle_tally
        with kb.db.transaction():
            tally.resume(kb.db)
            assert tally._owners  # kept for the next batch on SQLite
            monkeypatch.setattr(kb.db, "commits_by_others", lambda: None)  # as on PostgreSQL
            tally.resume(kb.db)
            assert not tally._owners
        for i, topic in enumerate(TOPICS[1:3]):  # the table's counts, batch after batch
            _add(kb, [f"{topic} {NOTICE}"], [f"copy{i}"])
        assert _repeated(kb) == {"first": True, "copy0": True, "copy1": True}


def test_a_failed_batch_drops_the_tally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(16)) as kb:
        _add(kb, [f"{TOPICS[0]} {NOTICE}"], ["first"])
        assert kb.store._shingle_tally._owners

        def fail(self: object, vector_table: str | None, dimensions: int) -> None:
            raise RuntimeError("the disk is full")

        monkeypatch.setattr(type(kb.store.backend), "finish_bulk_insert", fail)
        with pytest.raises(RuntimeError):
            _add(kb, [f"{TOPICS[1]} {NOTICE}"], ["lost"])
        assert not kb.store._shingle_tally._owners
