"""What ingestion may touch: allowed folders, size limits, network limits, secrets.

The defaults are the safe ones: local files only under the folder that was current
when the policy was made, no private-network URL, secrets redacted. Every limit is
checked before the expensive work (a file's size before it is read, a PDF's page
count before its text is extracted, a response's size while it streams, a
document's text length and chunk count before it is chunked or embedded).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memo_core.errors import (
    ExtractionError,
    IngestError,
    InvalidInputError,
    PathNotAllowedError,
    SourceTooLargeError,
)

__all__ = [
    "IngestPolicy",
    "SecretsMode",
    "check_path",
    "check_text_length",
    "read_bytes_limited",
]

SecretsMode = Literal["block", "redact", "allow"]

MB = 1024 * 1024

#: Where each caller lifts the root restriction (named in every refusal).
ALLOW_ROOT_HINT = (
    "--root FOLDER (memo kb ingest), roots=[...] (MemoBase.ingest, IngestPolicy.allowed_roots) "
    "or memobase: roots: in config.yaml (agents, MCP)"
)


def _cwd_only() -> tuple[Path, ...]:
    return (Path.cwd(),)


@dataclass(frozen=True)
class IngestPolicy:
    """Limits and permissions for one ingest run.

    ``allowed_roots`` defaults to the current working directory *at the time the
    policy is created*; an explicit empty sequence allows no local file at all.
    Roots are resolved (symlinks, ``..``) once, here.

    ``allow_hosts`` exempts exact host names or IP literals from the private-address
    check of the SSRF guard; it exists so tests can serve pages from 127.0.0.1.
    Only a URL whose host is listed is exempt: a redirect to any other private
    address is still refused. ``allow_private_urls`` turns the guard off entirely
    (an intranet deployment's explicit choice).
    """

    allowed_roots: Sequence[Path] = field(default_factory=_cwd_only)
    max_file_bytes: int = 50 * MB
    #: Audio and video stream through the transcriber in pieces, so they may be larger.
    max_audio_bytes: int = 4096 * MB
    max_pdf_pages: int = 2000
    #: DOCX (a zip): total uncompressed size, entry count and per-entry ratio limits.
    max_unzipped_bytes: int = 200 * MB
    max_zip_entries: int = 10_000
    max_compression_ratio: float = 200.0
    #: Text and chunks one document may give, whatever its format: a small file
    #: can expand (a DOCX's XML, a PDF's content streams) into hours of embedding.
    #: 5 million characters is a book of about 2,500 pages.
    max_text_chars: int = 5_000_000
    max_chunks_per_document: int = 5_000
    http_timeout: float = 20.0
    http_max_bytes: int = 10 * MB
    http_max_redirects: int = 5
    secrets: SecretsMode = "redact"
    allow_private_urls: bool = False
    allow_hosts: frozenset[str] = frozenset()
    #: Caption languages to ask YouTube for, in order of preference.
    youtube_languages: tuple[str, ...] = ("en", "ru")
    #: Audio is sent to the transcriber in pieces of this many seconds.
    audio_piece_seconds: float = 600.0

    def __post_init__(self) -> None:
        roots = tuple(Path(os.path.expanduser(root)).resolve() for root in self.allowed_roots)
        object.__setattr__(self, "allowed_roots", roots)
        object.__setattr__(self, "allow_hosts", frozenset(h.lower() for h in self.allow_hosts))
        if self.secrets not in ("block", "redact", "allow"):
            raise InvalidInputError(f"secrets must be block, redact or allow, not {self.secrets!r}")
        for name in (
            "max_file_bytes",
            "max_audio_bytes",
            "max_pdf_pages",
            "http_max_bytes",
            "max_zip_entries",
            "max_text_chars",
            "max_chunks_per_document",
        ):
            if getattr(self, name) <= 0:
                raise InvalidInputError(f"{name} must be positive")
        if self.http_timeout <= 0 or self.audio_piece_seconds <= 0:
            raise InvalidInputError("timeouts and piece lengths must be positive")

    @classmethod
    def for_roots(cls, roots: Iterable[str | Path], **limits: Any) -> IngestPolicy:
        """A policy allowing exactly ``roots`` (convenience for the CLI and tests)."""
        return cls(allowed_roots=[Path(r) for r in roots], **limits)

    def is_allowed(self, resolved: Path) -> bool:
        return any(resolved == root or resolved.is_relative_to(root) for root in self.allowed_roots)


def check_path(path: str | Path, policy: IngestPolicy) -> Path:
    """Resolve ``path`` (symlinks and ``..``) and refuse it outside the allowed roots.

    Returns the resolved path. A missing file is an :class:`IngestError`.
    """
    given = Path(os.path.expanduser(path))
    try:
        resolved = given.resolve(strict=True)
    except FileNotFoundError:
        raise IngestError(f"no such file or folder: {given}") from None
    except (OSError, RuntimeError) as exc:  # symlink loops raise RuntimeError/OSError
        raise IngestError(f"cannot resolve {given}: {exc}") from None
    if not policy.is_allowed(resolved):
        roots = ", ".join(str(r) for r in policy.allowed_roots) or "none"
        raise PathNotAllowedError(
            f"{given} resolves to {resolved}, outside the allowed folders ({roots}); "
            f"allow its folder with {ALLOW_ROOT_HINT}"
        )
    return resolved


def read_bytes_limited(path: Path, limit: int) -> bytes:
    """Read a file, refusing it when it is larger than ``limit`` bytes.

    The size is checked before reading and again while reading, so a file that
    grows in between cannot slip past the limit.
    """
    try:
        size = path.stat().st_size
        if size > limit:
            raise ExtractionError(f"{path} is {size} bytes, over the ingest limit of {limit} bytes")
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ExtractionError(f"cannot read {path}: {exc}") from None
    if len(data) > limit:
        raise ExtractionError(f"{path} is over the ingest limit of {limit} bytes")
    return data


def check_text_length(source: str, chars: int, policy: IngestPolicy) -> None:
    """Refuse a source once its text passes ``policy.max_text_chars``.

    Extractors call it while they read (so they stop early); the dispatcher calls
    it once more on every finished document, whatever extracted it.
    """
    if chars > policy.max_text_chars:
        raise SourceTooLargeError(
            f"{source}: its text passes {policy.max_text_chars:,} characters "
            "(IngestPolicy.max_text_chars); refused before chunking and embedding"
        )
