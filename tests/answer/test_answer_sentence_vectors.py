"""Sentence vectors kept in the base (``kb/sentence_vectors.py``), on both engines.

The answer loop embeds the sentences of its best windows; the base keeps those
vectors by (chunk id, offsets, embedder), so the same question asked again by a
new process embeds only the question, and answers the same. Rows come from
questions, never from ingest, and leave with their chunk or their embedder.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memo_core.answer import GuardedAnswerer
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.embedders import HashEmbedder
from memo_core.errors import InvalidInputError
from memo_core.kb import MemoBase
from memo_core.kb.sentence_vectors import SentenceVectorCache, embedder_key

# Sentences written for these tests.
GARDEN = (
    "The community garden opens at seven in the morning. Volunteers water the tomato beds "
    "before the heat arrives. The compost heap sits behind the tool shed, next to the rain "
    "barrels. Children may pick strawberries on Saturdays under supervision."
)
MUSEUM = (
    "The railway museum keeps a steam locomotive built in 1891. Guided tours start every "
    "hour from the ticket hall. The signal box upstairs shows how trains were routed by hand."
)
QUESTION = "Where does the compost heap sit in the community garden?"
DIMS = 64


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting the passages it embeds."""

    def __init__(self, dims: int = DIMS) -> None:
        super().__init__(dims)
        self.documents = 0

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.documents += len(texts)
        return super().embed_documents(texts)


def _rows(kb: MemoBase) -> list[tuple[str, int, int, str]]:
    return [
        (str(r[0]), int(r[1]), int(r[2]), str(r[3]))
        for r in kb.db.query('SELECT chunk_id, start, "end", embedder FROM sentence_vectors')
    ]


def _ask(url: str) -> tuple[CountingEmbedder, tuple[bool, float, list[str]]]:
    """One question from a fresh base object (as a new process would)."""
    embedder = CountingEmbedder()
    with MemoBase(url, embedder=embedder) as kb:
        result = GuardedAnswerer(kb).ask(QUESTION)
        quotes = [c.quote for c in getattr(result, "citations", ())]
        return embedder, (result.refused, float(result.gate_score or 0.0), quotes)


@pytest.fixture
def url(backend_url: str) -> str:
    with MemoBase(backend_url, embedder=HashEmbedder(DIMS)) as kb:
        kb.add_texts([GARDEN, MUSEUM], ids=["garden", "museum"])
    return backend_url


def test_ingest_writes_no_sentence_vectors(url: str) -> None:
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        assert _rows(kb) == []


def test_a_repeated_question_embeds_no_sentence_and_answers_the_same(url: str) -> None:
    first, answer = _ask(url)
    assert first.documents > 0  # the sentences of the best windows were embedded
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        rows = _rows(kb)
        assert rows and {r[3] for r in rows} == {embedder_key(HashEmbedder(DIMS).fingerprint)}
        chunks = {h.chunk_id: h.text for h in kb.get_chunks([r[0] for r in rows])}
        # each key names a sentence of that very chunk
        assert all(0 <= s < e <= len(chunks[c]) for c, s, e, _ in rows)
    second, again = _ask(url)
    assert second.documents == 0
    # the same outcome; the score to float32 precision (the stored form of a vector)
    assert (again[0], again[2]) == (answer[0], answer[2])
    assert again[1] == pytest.approx(answer[1], abs=1e-6)


def test_a_deleted_or_changed_chunk_takes_its_rows_along(url: str) -> None:
    _ask(url)
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        # The gate embeds the best sentences of both chunks (it reads up to 16).
        assert {r[0] for r in _rows(kb)} == {"garden", "museum"}
        kb.add_texts([GARDEN.replace("seven", "eight")], ids=["garden"])  # re-ingest, changed
        assert {r[0] for r in _rows(kb)} == {"museum"}
        kb.delete(["museum"])
        assert _rows(kb) == []


def test_a_reindex_drops_the_rows_of_the_old_embedder(url: str) -> None:
    _ask(url)
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        assert _rows(kb)
        kb.reindex(HashEmbedder(DIMS + 16))
        assert _rows(kb) == []


def test_rows_are_written_in_batches_and_on_close(url: str) -> None:
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        cache = SentenceVectorCache(kb.db, flush_every=3)
        fp = kb.embedder.fingerprint
        cache.put({("c1", 0, 4): [1.0, 0.0]}, fp)
        assert cache.pending() == 1 and _rows(kb) == []  # buffered: no commit per question
        assert cache.get([("c1", 0, 4)], fp) == {("c1", 0, 4): [1.0, 0.0]}
        cache.put({("c1", 5, 9): [0.0, 1.0], ("c2", 0, 3): [0.6, 0.8]}, fp)
        assert cache.pending() == 0 and len(_rows(kb)) == 3
        got = SentenceVectorCache(kb.db).get([("c2", 0, 3), ("c9", 0, 1)], fp)
        assert got == {("c2", 0, 3): pytest.approx([0.6, 0.8])}
        assert SentenceVectorCache(kb.db).get([("c2", 0, 3)], HashEmbedder(8).fingerprint) == {}
        kb.sentence_vectors.put({("c3", 1, 2): [1.0, 0.0]}, fp)
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        assert ("c3", 1, 2) in {r[:3] for r in _rows(kb)}  # flushed by close()


def test_text_of_no_stored_chunk_is_never_kept(url: str) -> None:
    with MemoBase(url, embedder=HashEmbedder(DIMS)) as kb:
        similarity = SentenceSimilarity(kb.embedder, store=kb.sentence_vectors)
        fact = "The allotment key hangs by the garden gate."
        picked = extractive_answer(
            "Where does the allotment key hang?", [("\x00memory:0", fact)], similarity=similarity
        )
        assert picked
        assert kb.sentence_vectors.pending() == 0
        with pytest.raises(InvalidInputError, match="keys"):
            similarity.similarities("q", ["one", "two"], [("c", 0, 3)])
