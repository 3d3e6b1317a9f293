"""The values the knowledge-base store and its backends pass each other.

Plain data and the checks every write and read applies, shared by the document
repository (``kb/store.py``), the re-indexer (``kb/reindex.py``) and the engine
backends (``kb/sqlite_backend.py``, ``kb/pg_backend.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memo_core.embedders.base import EmbedderFingerprint, checked_unit_blob, checked_unit_blobs
from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.kb.repeats import ShingledChunk

__all__ = [
    "ChunkInput",
    "DocumentInfo",
    "DocumentWrite",
    "IndexRows",
    "SearchState",
    "VectorRow",
    "chunk_id",
    "require_owner",
    "sha256",
    "source_document_id",
    "utc_now",
    "vector_blob",
]

#: A chunk's vector as stored: ``(chunk rowid, owner, collection, float32 blob)``.
VectorRow = tuple[int, str, str, bytes]


def require_owner(owner: str | None) -> str:
    """Fail closed: every knowledge-base read and write names its owner."""
    if not isinstance(owner, str) or not owner.strip():
        raise NamespaceRequiredError("an owner (namespace) is required for every call")
    return owner


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def sha256(text: str) -> str:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: not text SQLite could store
        raise InvalidInputError(f"text is not valid Unicode: {exc}") from exc
    return hashlib.sha256(data).hexdigest()


def vector_blob(vector: Sequence[float], dims: int) -> bytes:
    """The checked unit vector as float32 bytes: the stored form on every backend."""
    return checked_unit_blob(vector, dims)


def vector_blobs(vectors: Sequence[Sequence[float] | bytes], dims: int) -> list[bytes]:
    """:func:`vector_blob` of each vector (a blob is kept as it is), scaled together."""
    given = [i for i, v in enumerate(vectors) if not isinstance(v, bytes)]
    made = iter(checked_unit_blobs([vectors[i] for i in given], dims))
    mine = set(given)
    return [next(made) if i in mine else v for i, v in enumerate(vectors)]  # type: ignore[misc]


def source_document_id(collection: str, source: str) -> str:
    """A source's id is derived from its identity, so re-ingesting it replaces it."""
    return hashlib.sha256(f"{collection}\x00{source}".encode()).hexdigest()[:24]


def chunk_id(document_id: str, ord_: int, start: int, chunk_hash: str) -> str:
    """Stable id: the same document content always yields the same chunk ids."""
    digest = hashlib.sha256(
        f"{document_id}\x00{ord_}\x00{start}\x00{chunk_hash}".encode()
    ).hexdigest()
    return digest[:24]


@dataclass(frozen=True)
class ChunkInput:
    """A chunk to store: ``text`` is ``document_text[start:end]``."""

    text: str
    start: int
    end: int
    locator: Mapping[str, Any] = field(default_factory=dict)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True)
class DocumentWrite:
    """One document for :meth:`KnowledgeStore.replace_documents` (the arguments of
    :meth:`KnowledgeStore.replace_document`)."""

    owner: str
    collection: str
    document_id: str
    text: str
    chunks: Sequence[ChunkInput]
    vectors: Sequence[Sequence[float] | bytes] | None
    source: str = ""
    title: str = ""
    kind: str = "text"
    metadata: Mapping[str, Any] | None = None
    content_hash: str | None = None


@dataclass
class IndexRows:
    """Keyword, vector and shingle rows of a batch, written together once its chunks are in."""

    texts: list[tuple[int, str]] = field(default_factory=list)
    #: ``tokenize(text)`` of each entry of ``texts``, in the same order.
    words: list[list[str]] = field(default_factory=list)
    vectors: list[VectorRow] = field(default_factory=list)
    shingled: list[ShingledChunk] = field(default_factory=list)


@dataclass
class SearchState:
    """What the read path needs from ``kb_meta``, valid while ``key`` holds."""

    key: tuple[int, ...]
    vector_table: str | None
    fingerprint: EmbedderFingerprint | None
    #: The base's random id (``storage/identity.py``); None in a file opened before
    #: its migration could run (read-only media).
    base_id: str | None = None
    only_scope: dict[tuple[str, str | None], bool] = field(default_factory=dict)


@dataclass(frozen=True)
class DocumentInfo:
    id: str
    owner: str
    collection: str
    source: str
    title: str
    kind: str
    content_hash: str
    chunk_count: int
    created_at: str
    updated_at: str
    metadata: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
