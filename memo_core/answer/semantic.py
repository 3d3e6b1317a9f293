"""Sentence-level embedding similarity between a question and candidate sentences.

A chunk's vector averages everything the chunk says; whether one *sentence*
answers a question is better read from that sentence's own vector. The base's
embedder embeds the question (as a query) and each candidate sentence (as a
document); the vectors of sentences already seen are kept in a bounded cache, so a
passage retrieved again costs nothing, and the question's own vector
(:meth:`SentenceSimilarity.query_vector`) is the one the search ranks chunks by,
embedded once per question. The answerability gate reads the best
similarity as a feature and the extractive picker ranks sentences with it.

With a ``store`` (the base's :class:`~memo_core.kb.sentence_vectors.SentenceVectorCache`),
the vectors of sentences of stored chunks also outlive the process: a sentence
given with its ``(chunk id, start, end)`` key is looked up there before it is
embedded, and kept there after, so the same question asked again (by another
process, after a restart) embeds only the question.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeVar

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError
from memo_core.kb.sentence_vectors import SentenceKey, SentenceVectorCache

__all__ = ["SentenceSimilarity"]

_V = TypeVar("_V")


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class SentenceSimilarity:
    """Cosine similarity of a question to sentences, with ``embedder``; vectors are cached."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        cache_size: int = 20_000,
        store: SentenceVectorCache | None = None,
    ) -> None:
        self.embedder = embedder
        self.cache_size = cache_size
        self.store = store
        self._documents: OrderedDict[str, list[float]] = OrderedDict()
        # The question's vector as the embedder gives it (the search's), and its unit form.
        self._queries: OrderedDict[str, tuple[list[float], list[float]]] = OrderedDict()

    @property
    def model(self) -> str:
        return self.embedder.fingerprint.model

    def _remember(self, cache: OrderedDict[str, _V], key: str, v: _V) -> None:
        cache[key] = v
        if len(cache) > self.cache_size:
            cache.popitem(last=False)

    def _query(self, question: str) -> tuple[list[float], list[float]]:
        vectors = self._queries.get(question)
        if vectors is None:
            raw = self.embedder.embed_query(question)
            vectors = (raw, _unit(raw))
            self._remember(self._queries, question, vectors)
        else:
            self._queries.move_to_end(question)
        return vectors

    def _embed(self, texts: list[str], keys: dict[str, list[SentenceKey]]) -> None:
        """Bring ``texts`` into the in-process cache: from the store where it has them,
        else from the embedder (and then into the store, under their keys)."""
        fingerprint = self.embedder.fingerprint
        keyed = {t: keys[t] for t in texts if keys.get(t)}
        if self.store is not None and keyed:
            stored = self.store.get([k for ks in keyed.values() for k in ks], fingerprint)
            for text, ks in keyed.items():
                found = next((stored[k] for k in ks if k in stored), None)
                if found is not None:
                    self._remember(self._documents, text, found)
            texts = [t for t in texts if t not in self._documents]
        if not texts:
            return
        vectors = self.embedder.embed_documents(texts)
        fresh = {t: _unit(v) for t, v in zip(texts, vectors, strict=True)}
        for text, vector in fresh.items():
            self._remember(self._documents, text, vector)
        if self.store is not None:
            new = {k: fresh[t] for t, ks in keyed.items() if t in fresh for k in ks}
            self.store.put(new, fingerprint)

    def query_vector(self, question: str) -> list[float]:
        """``question`` embedded as a query, as the embedder returns it: pass it to
        ``MemoBase.search(query_vector=...)`` so that the search and the sentence
        similarities share one embedding of the question."""
        return self._query(question)[0]

    def similarities(
        self,
        question: str,
        sentences: Sequence[str],
        keys: Sequence[SentenceKey | None] | None = None,
    ) -> list[float]:
        """The cosine similarity of ``question`` to each of ``sentences``, in order.

        ``keys``, one per sentence: where it sits in a stored chunk (``None`` for
        text that is no chunk's, such as a memory fact), so its vector can be read
        from and kept in the base's ``store``.
        """
        if not sentences:
            return []
        if keys is not None and len(keys) != len(sentences):
            raise InvalidInputError(f"{len(keys)} keys for {len(sentences)} sentences")
        todo = [s for s in dict.fromkeys(sentences) if s not in self._documents]
        if todo:
            where: dict[str, list[SentenceKey]] = {}
            for text, key in zip(sentences, keys or (), strict=False):
                if key is not None:
                    where.setdefault(text, []).append(key)
            self._embed(todo, where)
        q = self._query(question)[1]
        out = []
        for sentence in sentences:
            cached = self._documents.get(sentence)
            # None: evicted by this very call (a cache smaller than the batch).
            vector = cached or _unit(self.embedder.embed_documents([sentence])[0])
            out.append(sum(a * b for a, b in zip(q, vector, strict=True)))
        return out
