"""The one exception tree of memo.

Every error memo raises on purpose derives from :class:`MemoError`; errors from
``sqlite3`` (or a fallback driver) are translated at the storage boundary
(:func:`memo_core.storage.connection.translate_sqlite_error`), so callers never
need to catch a driver's exception types.

A refusal to answer is *not* an error: it is a value (``Refusal``).

::

    MemoError
    ├── ConfigError                     bad or missing configuration
    │   └── MissingDependencyError      an optional extra is not installed
    ├── NamespaceRequiredError          a call without owner/namespace (fail closed)
    ├── InvalidInputError               a value the API cannot accept
    │   └── DimensionMismatchError      a vector of the wrong length
    ├── StorageError                    the database failed
    │   ├── DatabaseLockedError         still locked after bounded retries
    │   ├── CorruptDatabaseError        not a database, or integrity check failed
    │   ├── SchemaError                 schema newer than this code, or migration failed
    │   └── IngestAbortedError          an ingest run stopped at its first storage error
    ├── EmbedderMismatchError           the file was indexed with another embedder
    ├── NotFoundError                   an id that does not exist
    ├── IngestError                     a source could not be ingested
    │   ├── UnsupportedSourceError      unknown type, binary file, empty file
    │   ├── ExtractionError             corrupt PDF, invalid UTF-8, zip bomb...
    │   │   └── SourceTooLargeError     more text or chunks than the policy allows
    │   ├── PathNotAllowedError         outside the configured roots
    │   ├── UnsafeURLError              private / loopback / link-local target
    │   └── SecretFoundError            a secret was found and policy is "block"
    └── ProviderError                   a model provider failed
        ├── BudgetExceededError         the monthly spend ceiling is reached
        └── AnswerFormatError           an LLM reply that no parser could read
"""

from __future__ import annotations

__all__ = [
    "AnswerFormatError",
    "BudgetExceededError",
    "ConfigError",
    "CorruptDatabaseError",
    "DatabaseLockedError",
    "DimensionMismatchError",
    "EmbedderMismatchError",
    "ExtractionError",
    "IngestAbortedError",
    "IngestError",
    "InvalidInputError",
    "MemoError",
    "MissingDependencyError",
    "NamespaceRequiredError",
    "NotFoundError",
    "PathNotAllowedError",
    "ProviderError",
    "SchemaError",
    "SecretFoundError",
    "SourceTooLargeError",
    "StorageError",
    "UnsafeURLError",
    "UnsupportedSourceError",
]


class MemoError(Exception):
    """Root of every error memo raises on purpose."""


class ConfigError(MemoError):
    """The configuration is invalid or incomplete."""


class MissingDependencyError(ConfigError):
    """An optional dependency is needed; the message names the extra to install."""

    def __init__(self, package: str, extra: str, feature: str = "") -> None:
        what = f" for {feature}" if feature else ""
        super().__init__(f"{package} is required{what}: pip install 'memo[{extra}]'")
        self.package = package
        self.extra = extra


class NamespaceRequiredError(MemoError):
    """A call came without an owner/namespace; memo fails closed."""


class InvalidInputError(MemoError, ValueError):
    """A value the API cannot accept."""


class DimensionMismatchError(InvalidInputError):
    """A vector's length differs from the base's embedding dimensions."""


class StorageError(MemoError):
    """The database failed."""


class DatabaseLockedError(StorageError):
    """The database stayed locked after the storage layer's bounded retries."""


class CorruptDatabaseError(StorageError):
    """The file is not a database, or it failed its integrity check."""


class SchemaError(StorageError):
    """The schema is newer than this code, or a migration failed."""


class IngestAbortedError(StorageError):
    """An ingest run stopped at its first storage error (a full disk, a locked or corrupt
    base): the sources after it were neither read nor embedded. ``report`` holds what
    was stored before it; ``__cause__`` is the storage error itself."""

    def __init__(self, message: str, report: object = None) -> None:
        super().__init__(message)
        self.report = report


class EmbedderMismatchError(MemoError):
    """The base was indexed with another embedder; re-index to switch."""


class NotFoundError(MemoError, KeyError):
    """An id that does not exist."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class IngestError(MemoError):
    """A source could not be ingested; nothing was written."""


class UnsupportedSourceError(IngestError):
    """An unknown source type, a binary file or an empty one."""


class ExtractionError(IngestError):
    """The source is corrupt or cannot be read (bad PDF, invalid UTF-8, zip bomb...)."""


class SourceTooLargeError(ExtractionError):
    """The source's text or chunk count passes the ingest policy's bounds.

    Raised while extracting (a DOCX stops reading its XML, a PDF its pages, once
    past the bound), so nothing is chunked or embedded.
    """


class PathNotAllowedError(IngestError):
    """The path resolves outside the configured root folders."""


class UnsafeURLError(IngestError):
    """The URL targets a private, loopback or link-local address."""


class SecretFoundError(IngestError):
    """A secret was found in the source and the policy is to block."""


class ProviderError(MemoError):
    """A model provider (embedding, rerank, LLM, transcription) failed."""


class BudgetExceededError(ProviderError):
    """The provider's monthly spend ceiling is reached."""


class AnswerFormatError(ProviderError):
    """An LLM reply matched none of the accepted answer formats (worth one repair retry)."""
