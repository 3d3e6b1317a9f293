"""Turn any source into normalised text with locators, and that text into chunks.

``extract(source, policy=...)`` reads a file, a folder-shaped Obsidian vault, a web
page, a YouTube video or a recording and returns :class:`ExtractedDocument` values;
``chunk_document`` cuts one into :class:`ChunkDraft` spans of its text. Storage is
not done here: the knowledge base's ingest pipeline stores what this package returns.
Optional dependencies (pypdf, python-docx, trafilatura, httpx, youtube-transcript-api,
faster-whisper) are imported only when a source needs them.
"""

from memo_core.ingest.audio import (
    AudioPiece,
    ProgressCallback,
    Transcriber,
    Transcript,
    TranscriptSegment,
)
from memo_core.ingest.chunking import chunk_document
from memo_core.ingest.dispatch import SUPPORTED_SUFFIXES, apply_secret_policy, extract, iter_sources
from memo_core.ingest.normalize import DocumentBuilder, normalize_text
from memo_core.ingest.obsidian import ObsidianVault
from memo_core.ingest.policy import IngestPolicy, check_path
from memo_core.ingest.secretscan import (
    RedactedText,
    SecretFinding,
    redact_secrets,
    redact_text,
    scan_secrets,
)
from memo_core.ingest.transcribers import (
    HTTPWhisperTranscriber,
    LocalWhisperTranscriber,
    UsageCallback,
    select_transcriber,
    transcriber_from_env,
)
from memo_core.ingest.types import KINDS, ChunkDraft, ExtractedDocument, Section
from memo_core.ingest.urlguard import check_url, is_public_address
from memo_core.ingest.web import fetch_url
from memo_core.ingest.youtube import (
    CaptionFetcher,
    Captions,
    CaptionSnippet,
    SavedCaptionFetcher,
    YouTubeCaptionFetcher,
    youtube_video_id,
)

__all__ = [
    "KINDS",
    "SUPPORTED_SUFFIXES",
    "AudioPiece",
    "CaptionFetcher",
    "CaptionSnippet",
    "Captions",
    "ChunkDraft",
    "DocumentBuilder",
    "ExtractedDocument",
    "HTTPWhisperTranscriber",
    "IngestPolicy",
    "LocalWhisperTranscriber",
    "ObsidianVault",
    "ProgressCallback",
    "RedactedText",
    "SavedCaptionFetcher",
    "SecretFinding",
    "Section",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "UsageCallback",
    "YouTubeCaptionFetcher",
    "apply_secret_policy",
    "check_path",
    "check_url",
    "chunk_document",
    "extract",
    "fetch_url",
    "is_public_address",
    "iter_sources",
    "normalize_text",
    "redact_secrets",
    "redact_text",
    "scan_secrets",
    "select_transcriber",
    "transcriber_from_env",
    "youtube_video_id",
]
