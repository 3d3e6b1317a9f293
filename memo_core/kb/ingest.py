"""The ingest pipeline: sources -> extracted documents -> chunks -> one stored document each.

Each document is written in one transaction (old or new, never half) and an
unchanged document costs no embedding call, so a bulk ingest that is interrupted
and run again resumes where it stopped, without duplicates. A source that fails
(corrupt PDF, path outside the roots, private URL...) is reported and skipped;
the others still go in. A failure of the base itself (a full disk, a base still
locked after the retries, a corrupt file, another embedder) stops the run at
once with :class:`~memo_core.errors.IngestAbortedError`: every later source would
be read and embedded only to fail the same way (and a paid embedder would be
paid for it).

Paid transcription is charged to the spend ledger *before* each audio piece is
sent (:class:`MeteredTranscriber`), like every other paid call: over the
ceiling the piece goes to the local transcriber when one is configured, else
the source fails with :class:`~memo_core.errors.BudgetExceededError`.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.display import printable
from memo_core.errors import (
    BudgetExceededError,
    EmbedderMismatchError,
    IngestAbortedError,
    MemoError,
    StorageError,
)
from memo_core.kb.embed_clock import embed_seconds
from memo_core.kb.records import source_document_id
from memo_core.kb.store import ChunkInput

if TYPE_CHECKING:
    from memo_core.ingest import ExtractedDocument, IngestPolicy
    from memo_core.ingest.audio import AudioPiece, Transcriber, Transcript
    from memo_core.kb.base import MemoBase
    from memo_core.ledger import SpendLedger

__all__ = ["IngestReport", "MeteredTranscriber", "ingest_sources", "store_extracted"]

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
    #: What was left out on purpose, and why: ``{path, reason}`` (hidden, binary, empty...).
    skipped: list[dict[str, str]] = field(default_factory=list)
    secrets: list[dict[str, Any]] = field(default_factory=list)
    #: Chunks flagged at ingest (``kb/flags.py``): ``{chunk_id, document_id, source, flags, text}``.
    flagged: list[dict[str, Any]] = field(default_factory=list)
    #: Chunks of the run's documents whose text is mostly repeated across documents
    #: (boilerplate, ``kb/repeats.py``): they rank below the text they repeat.
    repeated_chunks: int = 0
    chunks: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class MeteredTranscriber:
    """A transcriber whose paid pieces are charged to ``ledger`` before they are sent.

    ``inner`` and ``ledger`` may be zero-argument factories, called on first use, so
    nothing is built or opened when no audio is ingested. Only hosted endpoints
    (:class:`~memo_core.ingest.transcribers.HTTPWhisperTranscriber`) are charged:
    ``(provider, "transcription", seconds of audio)``. When the ceiling is reached,
    ``fallback`` (a free local transcriber factory) takes over for the rest of the
    run; without one, :class:`~memo_core.errors.BudgetExceededError` propagates.
    """

    def __init__(
        self,
        inner: Transcriber | Callable[[], Transcriber],
        ledger: SpendLedger | Callable[[], SpendLedger],
        *,
        fallback: Callable[[], Transcriber | None] | None = None,
    ) -> None:
        self._inner = inner
        self._ledger = ledger
        self._fallback = fallback

    @property
    def ledger(self) -> SpendLedger:
        """The ledger (opened on first paid piece when given as a factory)."""
        if callable(self._ledger):
            self._ledger = self._ledger()
        return self._ledger

    @property
    def current(self) -> Transcriber:
        """The transcriber in use (built on first access when given as a factory)."""
        if callable(self._inner) and not hasattr(self._inner, "transcribe_piece"):
            self._inner = self._inner()
        return self._inner  # type: ignore[return-value]

    @property
    def name(self) -> str:
        return self.current.name

    @property
    def max_piece_bytes(self) -> int | None:
        return self.current.max_piece_bytes

    def transcribe_piece(self, piece: AudioPiece) -> Transcript:
        from memo_core.ingest.transcribers import HTTPWhisperTranscriber

        inner = self.current
        if isinstance(inner, HTTPWhisperTranscriber):
            try:
                self.ledger.charge(
                    inner.name, "transcription", round(piece.duration, 3), note=inner.model
                )
            except BudgetExceededError as exc:
                local = self._fallback() if self._fallback is not None else None
                if local is None:
                    raise
                log.warning("%s; transcribing locally with %s from here", exc, local.name)
                self._inner = inner = local
        return inner.transcribe_piece(piece)


def store_extracted(
    kb: MemoBase,
    doc: ExtractedDocument,
    *,
    collection: str,
    owner: str | None = None,
    max_chunks: int | None = None,
) -> tuple[str, str, int]:
    """Chunk and store one extracted document; returns (status, document id, chunks)."""
    return _store_chunks(
        kb, doc, _chunk_inputs(doc, max_chunks), collection=collection, owner=owner
    )


def _chunk_inputs(doc: ExtractedDocument, max_chunks: int | None) -> list[ChunkInput]:
    from memo_core.ingest import chunk_document

    drafts = chunk_document(doc, max_chunks=max_chunks)
    return [ChunkInput(c.text, c.start, c.end, dict(c.locator)) for c in drafts]


def _store_chunks(
    kb: MemoBase,
    doc: ExtractedDocument,
    chunks: list[ChunkInput],
    *,
    collection: str,
    owner: str | None,
) -> tuple[str, str, int]:
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
    return source_document_id(collection, source)


def ingest_sources(
    kb: MemoBase,
    sources: Sequence[str | Path],
    *,
    policy: IngestPolicy | None = None,
    collection: str = "default",
    owner: str | None = None,
    progress: Progress | None = None,
    ledger: SpendLedger | None = None,
    **extract_options: Any,
) -> IngestReport:
    """Ingest files, folders, vaults, URLs and YouTube ids into ``kb``.

    With ``ledger``, a ``transcriber`` passed in ``extract_options`` is wrapped in
    :class:`MeteredTranscriber` so its paid pieces are charged.
    """
    from memo_core.ingest import IngestPolicy, extract, iter_sources
    from memo_core.ingest.prefetch import prefetched

    if ledger is not None and extract_options.get("transcriber") is not None:
        transcriber = extract_options["transcriber"]
        if not isinstance(transcriber, MeteredTranscriber):
            extract_options["transcriber"] = MeteredTranscriber(transcriber, ledger)
    policy = policy or IngestPolicy()
    report = IngestReport()
    started = time.perf_counter()
    # Time inside the embedder (for the ingest benchmark), read from a per-thread clock:
    # patching the shared embedder object broke threads sharing one MemoBase.
    embed_clock = embed_seconds()
    stored_ids: list[str] = []
    try:
        expanded: list[str | Path] = []

        def skipped(path: str, reason: str) -> None:
            report.skipped.append({"path": path, "reason": reason})

        for item in sources:
            try:
                expanded.extend(iter_sources([item], policy, on_skip=skipped))
            except MemoError as exc:
                report.failed.append(
                    {"source": str(item), "error": str(exc), "type": type(exc).__name__}
                )

        def read(source: str | Path) -> list[tuple[ExtractedDocument, list[ChunkInput]]]:
            extracted = extract(source, policy=policy, **extract_options)
            docs = extracted if isinstance(extracted, list) else [extracted]
            return [(doc, _chunk_inputs(doc, policy.max_chunks_per_document)) for doc in docs]

        # The next sources are read and chunked in a thread while this one embeds and stores.
        with contextlib.closing(prefetched(expanded, read)) as ahead:
            for done, (source, outcome) in enumerate(ahead, start=1):
                if progress is not None:
                    progress(done - 1, len(expanded), str(source))
                try:
                    if isinstance(outcome, BaseException):
                        raise outcome
                    for doc, chunks in outcome:
                        status, document_id, n = _store_chunks(
                            kb, doc, chunks, collection=collection, owner=owner
                        )
                        getattr(report, status).append(doc.source)
                        stored_ids.append(document_id)
                        report.chunks += n
                        if status != "unchanged":
                            report.flagged += kb.store.flagged_chunks(
                                kb._owner(owner), [document_id]
                            )
                        for finding in doc.metadata.get("secrets", []):
                            report.secrets.append({"source": doc.source, **finding})
                except (StorageError, EmbedderMismatchError) as exc:
                    stored = len(report.added) + len(report.updated) + len(report.unchanged)
                    raise IngestAbortedError(
                        f"ingest stopped at {source}: {exc} ({stored} stored before it; "
                        f"{len(expanded) - done} not stored)",
                        report,
                    ) from exc
                except MemoError as exc:
                    # Reported once, by the caller (the CLI prints the report's failures).
                    log.info("skipped %s: %s", printable(source), printable(exc))
                    report.failed.append(
                        {"source": str(source), "error": str(exc), "type": type(exc).__name__}
                    )
        if progress is not None:
            progress(len(expanded), len(expanded), "")
        # Counted at the end: a later copy can make an earlier document's text repeated.
        report.repeated_chunks = kb.store.repeated_count(kb._owner(owner), stored_ids)
    finally:
        report.embed_seconds = embed_seconds() - embed_clock
    report.seconds = time.perf_counter() - started
    return report
