"""The ingest pipeline: sources -> extracted documents -> chunks -> one stored document each.

Each document is written in one transaction (old or new, never half) and an
unchanged document costs no embedding call, so a bulk ingest that is interrupted
and run again resumes where it stopped, without duplicates. A source that fails
(corrupt PDF, path outside the roots, private URL...) is reported and skipped;
the others still go in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.errors import MemoError
from memo_core.kb.store import ChunkInput

if TYPE_CHECKING:
    from memo_core.ingest import ExtractedDocument, IngestPolicy
    from memo_core.kb.base import MemoBase

__all__ = ["IngestReport", "ingest_sources", "store_extracted"]

log = logging.getLogger(__name__)

#: progress(done_sources, total_sources_or_None, current_source)
Progress = Callable[[int, int | None, str], None]


@dataclass
class IngestReport:
    """What an ingest run did, for the CLI's summary and ``--json`` output."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    secrets: list[dict[str, Any]] = field(default_factory=list)
    chunks: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def store_extracted(
    kb: MemoBase, doc: ExtractedDocument, *, collection: str, owner: str | None = None
) -> tuple[str, str, int]:
    """Chunk and store one extracted document; returns (status, document id, chunks)."""
    from memo_core.ingest import chunk_document

    drafts = chunk_document(doc)
    chunks = [ChunkInput(c.text, c.start, c.end, dict(c.locator)) for c in drafts]
    metadata = {**doc.metadata, "kind": doc.kind, "trust": doc.trust}
    before = kb.store.document_hash(kb._owner(owner), _doc_id(kb, collection, doc.source))
    info = kb.add_document(
        doc.text,
        chunks=chunks,
        source=doc.source,
        title=doc.title,
        kind=doc.kind,
        metadata=metadata,
        collection=collection,
        owner=owner,
    )
    if before is None:
        status = "added"
    else:
        status = "unchanged" if before == info.content_hash else "updated"
    return status, info.id, len(chunks)


def _doc_id(kb: MemoBase, collection: str, source: str) -> str:
    from memo_core.kb.base import _stable_document_id

    return _stable_document_id(collection, source)


def ingest_sources(
    kb: MemoBase,
    sources: Sequence[str | Path],
    *,
    policy: IngestPolicy | None = None,
    collection: str = "default",
    owner: str | None = None,
    progress: Progress | None = None,
    **extract_options: Any,
) -> IngestReport:
    """Ingest files, folders, vaults, URLs and YouTube ids into ``kb``."""
    from memo_core.ingest import IngestPolicy, extract, iter_sources

    policy = policy or IngestPolicy()
    report = IngestReport()
    started = time.perf_counter()
    embedder = kb.embedder
    embed_time = [0.0]
    if embedder is not None:  # measure time inside the embedder (for the ingest benchmark)
        original = embedder.embed_documents

        def timed_embed(texts: Sequence[str]) -> list[list[float]]:
            t0 = time.perf_counter()
            try:
                return original(texts)
            finally:
                embed_time[0] += time.perf_counter() - t0

        embedder.embed_documents = timed_embed  # type: ignore[method-assign]
    try:
        expanded: list[str | Path] = []
        for item in sources:
            try:
                expanded.extend(iter_sources([item], policy))
            except MemoError as exc:
                report.failed.append(
                    {"source": str(item), "error": str(exc), "type": type(exc).__name__}
                )
        for done, source in enumerate(expanded, start=1):
            if progress is not None:
                progress(done - 1, len(expanded), str(source))
            try:
                extracted = extract(source, policy=policy, **extract_options)
                docs: Iterable[ExtractedDocument] = (
                    extracted if isinstance(extracted, list) else [extracted]
                )
                for doc in docs:
                    status, _, n = store_extracted(kb, doc, collection=collection, owner=owner)
                    getattr(report, status).append(doc.source)
                    report.chunks += n
                    for finding in doc.metadata.get("secrets", []):
                        report.secrets.append({"source": doc.source, **finding})
            except MemoError as exc:
                log.warning("skipped %s: %s", source, exc)
                report.failed.append(
                    {"source": str(source), "error": str(exc), "type": type(exc).__name__}
                )
        if progress is not None:
            progress(len(expanded), len(expanded), "")
    finally:
        if embedder is not None:
            del embedder.embed_documents  # restore the class method
    report.seconds = time.perf_counter() - started
    report.embed_seconds = embed_time[0]
    return report
