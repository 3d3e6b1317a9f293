"""The knowledge-base backend: what differs by engine, behind one small protocol.

The document repository (``kb/store.py``) writes document and chunk rows in
portable SQL and, in the same transaction, hands their keyword and vector rows to
the backend; the search legs, the document frequencies of the sufficiency gate,
the rows the search aids (``search/ann_index.py``, ``keyword_index.py``,
``ram_index.py``) copy into RAM, and the bulk load of ``memo migrate`` all go
through it. Two implementations, each in a module of its own and neither built
on the other: :class:`~memo_core.kb.sqlite_backend.SqliteKnowledgeBackend` (FTS5
+ sqlite-vec) and :class:`~memo_core.kb.pg_backend.PostgresKnowledgeBackend`
(``tsvector`` BM25 + pgvector). ``KB_BACKENDS`` in ``kb/store.py`` (a table of
``storage/registry.py``) picks one by the database URL; nothing above asks which
one it got. ``tests/core/test_kb_backend_conformance.py``
runs one suite against both.

Every leg returns ``[(chunk rowid, raw score)]`` best first: BM25 with FTS5's sign
(lower is better) for keywords, cosine similarity for vectors. Every read names
its owner; an empty one fails closed before any SQL runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from memo_core.kb.records import SearchState, VectorRow
from memo_core.search.filters import Renderer
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = [
    "ChangeLog",
    "KeywordRow",
    "KnowledgeBackend",
    "KnowledgeBackendFactory",
]

#: A chunk as the keyword index holds it: ``(rowid, raw text, stemmed text, owner,
#: collection)``; owner and collection are None for an index row whose chunk is gone.
KeywordRow = tuple[int, str, str, str | None, str | None]


class ChangeLog(Protocol):
    """The chunks written since a point: what a search aid replays to catch up.

    Positions are the log's sequence numbers; entries older than a bound are pruned.
    """

    def range(self) -> tuple[int, int]:
        """The first and last positions held (0, 0 when empty)."""
        ...

    def changed(self, after: int, upto: int) -> list[int]:
        """Chunk rowids inserted or deleted by the entries in ``(after, upto]``."""
        ...


class KnowledgeBackend(Protocol):
    """One engine's half of a knowledge base (see the module docstring)."""

    db: SQLDatabase
    languages: tuple[str, ...]
    #: The schema's numbered migrations for this engine.
    migrations: Migrations
    #: How a metadata filter becomes SQL on this engine.
    render_filter: Renderer
    #: The chunk change log the search aids follow; None where the engine keeps none
    #: (an aid then cannot stay in step, and the legs run in SQL).
    changes: ChangeLog | None

    # -- the keyword and vector rows of chunks (inside the caller's transaction) --

    def create_vector_table(self, name: str, dimensions: int, *, bulk: bool = False) -> None:
        """An empty vector table ``name``; with ``bulk`` it is about to be filled in one
        go and :meth:`finish_vector_table` follows (an index cheaper to build than to
        grow row by row is built then)."""
        ...

    def finish_vector_table(self, name: str, dimensions: int) -> None: ...

    def index_chunks(
        self, rows: Sequence[tuple[int, str]], words: Sequence[Sequence[str]] | None = None
    ) -> None:
        """Add ``(chunk rowid, text)`` rows to the keyword index (raw and stemmed);
        ``words``: ``tokenize(text)`` of each row, when the caller has it already."""
        ...

    def insert_vectors(self, table: str, rows: Sequence[VectorRow]) -> None: ...

    def delete_index_rows(self, rowids: Sequence[int], vector_table: str | None) -> None:
        """Drop the keyword and vector rows of these chunks."""
        ...

    def finish_bulk_insert(self, vector_table: str | None, dimensions: int) -> None:
        """After rows were inserted with their own rowids: build ``vector_table``'s
        index and continue the rowids past the inserted ones."""
        ...

    def json_text(self, column: str) -> str:
        """SQL reading the JSON ``column`` as JSON text."""
        ...

    # -- the search legs -----------------------------------------------------------

    def keyword_candidates(
        self,
        owner: str,
        query: str,
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        max_postings: int | None = None,
    ) -> list[tuple[int, float]]: ...

    def vector_candidates(
        self,
        owner: str,
        vector: Sequence[float],
        limit: int,
        *,
        collections: Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> list[tuple[int, float]]: ...

    def similarities(self, rowids: Sequence[int], vector: Sequence[float]) -> dict[int, float]:
        """Cosine of ``vector`` to each listed chunk's stored vector."""
        ...

    def document_frequencies(self, terms: Sequence[str]) -> dict[str, int]:
        """Chunks whose keyword index holds each term, raw or stemmed, over every owner."""
        ...

    def phrase_bm25(self, column: str, tokens: Sequence[str]) -> list[tuple[int, float]]:
        """Every chunk holding the phrase ``tokens`` in ``column`` (``raw`` or
        ``stemmed``), with the BM25 of that phrase alone at unit column weights."""
        ...

    # -- what the search aids copy --------------------------------------------------

    def vectors_by_rowid(self, rowids: Sequence[int]) -> dict[int, list[float]]: ...

    def reusable_vectors(self, owner: str, document_id: str) -> dict[str, bytes]:
        """A document's stored vectors as float32 blobs, by chunk content hash."""
        ...

    def vector_rows(self, table: str, *, batch: int = 5_000) -> Iterator[list[VectorRow]]:
        """Every row of vector table ``table``, a batch at a time."""
        ...

    def keyword_rows(
        self, rowids: Sequence[int] | None = None, *, batch: int = 5_000
    ) -> Iterator[list[KeywordRow]]:
        """The keyword index's chunks (all, by rowid, or the listed ones), a batch at a time."""
        ...

    def keyword_row_count(self) -> int: ...


class KnowledgeBackendFactory(Protocol):
    """How a backend is made: a backend class is one."""

    def __call__(
        self,
        db: SQLDatabase,
        *,
        languages: Sequence[str],
        state: Callable[[], SearchState],
    ) -> KnowledgeBackend: ...
