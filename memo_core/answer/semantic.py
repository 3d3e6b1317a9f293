"""Sentence-level embedding similarity between a question and candidate sentences.

A chunk's vector averages everything the chunk says; whether one *sentence*
answers a question is better read from that sentence's own vector. The base's
embedder embeds the question (as a query) and each candidate sentence (as a
document); the vectors of sentences already seen are kept in a bounded cache, so a
passage retrieved again costs nothing, and the question's own vector
(:meth:`SentenceSimilarity.query_vector`) is the one the search ranks chunks by,
embedded once per question. The answerability gate reads the best
similarity as a feature and the extractive picker ranks sentences with it.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import TypeVar

from memo_core.embedders.base import Embedder

__all__ = ["SentenceSimilarity"]

_V = TypeVar("_V")


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class SentenceSimilarity:
    """Cosine similarity of a question to sentences, with ``embedder``; vectors are cached."""

    def __init__(self, embedder: Embedder, *, cache_size: int = 20_000) -> None:
        self.embedder = embedder
        self.cache_size = cache_size
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

    def query_vector(self, question: str) -> list[float]:
        """``question`` embedded as a query, as the embedder returns it: pass it to
        ``MemoBase.search(query_vector=...)`` so that the search and the sentence
        similarities share one embedding of the question."""
        return self._query(question)[0]

    def similarities(self, question: str, sentences: Sequence[str]) -> list[float]:
        """The cosine similarity of ``question`` to each of ``sentences``, in order."""
        if not sentences:
            return []
        todo = [s for s in dict.fromkeys(sentences) if s not in self._documents]
        if todo:
            for text, vector in zip(todo, self.embedder.embed_documents(todo), strict=True):
                self._remember(self._documents, text, _unit(vector))
        q = self._query(question)[1]
        out = []
        for sentence in sentences:
            cached = self._documents.get(sentence)
            # None: evicted by this very call (a cache smaller than the batch).
            vector = cached or _unit(self.embedder.embed_documents([sentence])[0])
            out.append(sum(a * b for a, b in zip(q, vector, strict=True)))
        return out
