"""One entry point for every source: ``extract`` and the folder walker ``iter_sources``.

``extract`` decides what a source is (a YouTube URL or id, a web URL, an Obsidian
vault, a file by suffix, or by content when the suffix says nothing), checks it
against the policy (allowed roots, size), runs the extractor, and applies the
secret policy to the result. Text-like suffixes are never second-guessed: a
``.txt`` holding binary data is refused, not parsed as something else.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from memo_core.errors import (
    ExtractionError,
    SecretFoundError,
    UnsafeURLError,
    UnsupportedSourceError,
)
from memo_core.ingest.audio import AUDIO_SUFFIXES, ProgressCallback, Transcriber, extract_audio
from memo_core.ingest.decoding import decode_text, looks_binary, sniff_format
from memo_core.ingest.docx import extract_docx
from memo_core.ingest.htmltext import extract_html
from memo_core.ingest.markdown import extract_markdown, extract_plain_text
from memo_core.ingest.obsidian import ObsidianVault, find_vault_root, is_vault
from memo_core.ingest.pdf import extract_pdf
from memo_core.ingest.policy import (
    IngestPolicy,
    check_path,
    check_text_length,
    read_bytes_limited,
)
from memo_core.ingest.secretscan import (
    redact_secrets,
    redacted_findings,
    scan_secrets,
    shift_offset,
)
from memo_core.ingest.tabular import extract_csv
from memo_core.ingest.transcribers import select_transcriber
from memo_core.ingest.types import ExtractedDocument, Section
from memo_core.ingest.web import extract_url
from memo_core.ingest.youtube import CaptionFetcher, extract_youtube, youtube_video_id

__all__ = ["SUPPORTED_SUFFIXES", "OnSkip", "apply_secret_policy", "extract", "iter_sources"]

logger = logging.getLogger(__name__)

_TEXT_SUFFIXES = frozenset({".txt", ".text", ".log", ".rst", ".org", ".adoc"})
_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd"})
_CSV_SUFFIXES = frozenset({".csv", ".tsv"})
_HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
SUPPORTED_SUFFIXES = (
    _TEXT_SUFFIXES
    | _MARKDOWN_SUFFIXES
    | _CSV_SUFFIXES
    | _HTML_SUFFIXES
    | {".pdf", ".docx"}
    | AUDIO_SUFFIXES
)
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
#: Formats a folder walk skips by name, without reading them: binaries, archives, images
#: and office formats memo has no extractor for. Any other suffix, or none (LICENSE,
#: NOTES, Makefile, data.json), is sniffed and ingested when it is text.
_UNSUPPORTED_SUFFIXES = frozenset(
    {
        ".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".lib", ".class", ".jar",
        ".pyc", ".pyo", ".whl", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z",
        ".rar", ".tar", ".iso", ".dmg", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif",
        ".tiff", ".webp", ".ico", ".heic", ".psd", ".svgz", ".woff", ".woff2", ".ttf",
        ".otf", ".eot", ".db", ".sqlite", ".sqlite3", ".db-wal", ".db-shm", ".doc",
        ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".rtf", ".epub",
        ".parquet", ".npy", ".npz", ".pkl", ".onnx", ".kwidx", ".hnsw",
    }
)  # fmt: skip
#: Bytes a walk reads to tell text from binary in a file of unknown type.
_SNIFF_BYTES = 8192

#: on_skip(path, reason): told of every file or folder a walk leaves out, and why.
OnSkip = Callable[[str, str], None]


def _is_url(source: str) -> bool:
    return "://" in source[:16]


def extract(
    source: str | Path,
    *,
    policy: IngestPolicy,
    transcriber: Transcriber | None = None,
    caption_fetcher: CaptionFetcher | None = None,
    progress: ProgressCallback | None = None,
    http_transport: Any = None,
) -> ExtractedDocument | list[ExtractedDocument]:
    """Extract one source; an Obsidian vault gives a list, anything else one document.

    ``transcriber`` (audio), ``caption_fetcher`` (YouTube) and ``http_transport``
    (web) replace the defaults, for tests and for callers that configure them.
    """
    result = _extract(source, policy, transcriber, caption_fetcher, progress, http_transport)
    if isinstance(result, list):
        return [apply_secret_policy(_bounded(doc, policy), policy) for doc in result]
    return apply_secret_policy(_bounded(result, policy), policy)


def _bounded(doc: ExtractedDocument, policy: IngestPolicy) -> ExtractedDocument:
    """Every extractor's output passes the text bound here, before it is scanned or chunked.

    (DOCX and PDF also stop reading once past it; the chunk bound is applied by
    the chunker, which stops as soon as it passes it.)
    """
    check_text_length(doc.source, len(doc.text), policy)
    return doc


def _extract(
    source: str | Path,
    policy: IngestPolicy,
    transcriber: Transcriber | None,
    caption_fetcher: CaptionFetcher | None,
    progress: ProgressCallback | None,
    http_transport: Any,
) -> ExtractedDocument | list[ExtractedDocument]:
    if isinstance(source, str) and _is_url(source):
        video = youtube_video_id(source)
        if video:
            return extract_youtube(
                video, languages=policy.youtube_languages, fetcher=caption_fetcher
            )
        if not source.lower().startswith(("http://", "https://")):
            raise UnsafeURLError(f"only http and https URLs are fetched: {source}")
        return extract_url(source, policy, transport=http_transport)
    if isinstance(source, str) and not os.path.lexists(source) and youtube_video_id(source):
        return extract_youtube(source, languages=policy.youtube_languages, fetcher=caption_fetcher)
    path = check_path(source, policy)
    if path.is_dir():
        if is_vault(path):
            return ObsidianVault(path, policy).extract_all()
        raise UnsupportedSourceError(f"{path} is a folder: expand it with iter_sources()")
    suffix = path.suffix.lower()
    if suffix in AUDIO_SUFFIXES:
        size = path.stat().st_size
        if size == 0:
            raise UnsupportedSourceError(f"{path} is empty")
        if size > policy.max_audio_bytes:
            raise ExtractionError(
                f"{path} is {size} bytes, over the audio limit of {policy.max_audio_bytes} bytes"
            )
        return extract_audio(
            path,
            source=str(path),
            title=path.stem,
            transcriber=transcriber or select_transcriber(),
            piece_seconds=policy.audio_piece_seconds,
            progress=progress,
        )
    data = read_bytes_limited(path, policy.max_file_bytes)
    if not data.strip():
        raise UnsupportedSourceError(f"{path} is empty")
    doc = _extract_file(path, suffix, data, policy)
    if not doc.text:
        raise UnsupportedSourceError(f"{path} has no text")
    return doc


def _extract_file(path: Path, suffix: str, data: bytes, policy: IngestPolicy) -> ExtractedDocument:
    source, title, name = str(path), path.stem, str(path)
    sniffed = sniff_format(data) if suffix not in SUPPORTED_SUFFIXES else None
    if suffix == ".pdf" or sniffed == "pdf":
        return extract_pdf(data, source=source, title=title, policy=policy)
    if suffix == ".docx" or sniffed == "zip":
        return extract_docx(data, source=source, title=title, policy=policy)
    text, encoding = decode_text(data, name=name)
    metadata = {"encoding": encoding}
    if suffix in _MARKDOWN_SUFFIXES:
        vault = find_vault_root(path, policy)
        if vault is not None:
            note = ObsidianVault(vault, policy).extract_note(path)
            if note is None:
                raise UnsupportedSourceError(f"{path} is empty")
            return note
        return extract_markdown(text, source=source, default_title=title, metadata=metadata)
    if suffix in _CSV_SUFFIXES:
        return extract_csv(text, source=source, title=title, tab_separated=suffix == ".tsv")
    if suffix in _HTML_SUFFIXES or sniffed == "html":
        return extract_html(text, source=source, default_title=title, metadata=metadata)
    return extract_plain_text(text, source=source, title=title, metadata=metadata)


def apply_secret_policy(doc: ExtractedDocument, policy: IngestPolicy) -> ExtractedDocument:
    """Scan ``doc`` for secrets: refuse it, redact them, or keep them, per the policy.

    Findings (kind and span, never the value) go to ``metadata["secrets"]``; after
    redaction the spans are those of the ``[REDACTED:kind]`` markers, and section
    offsets are moved so that every locator still covers its own text.
    """
    findings = scan_secrets(doc.text)
    if not findings:
        return doc
    kinds = sorted({f.kind for f in findings})
    if policy.secrets == "block":
        raise SecretFoundError(
            f"{doc.source} contains {len(findings)} secret(s) ({', '.join(kinds)}); "
            "remove them or ingest with secrets='redact'"
        )
    if policy.secrets == "allow":
        reported = findings
        text, sections = doc.text, doc.sections
    else:
        text = redact_secrets(doc.text, findings)
        sections = [
            Section(shift_offset(s.start, findings), shift_offset(s.end, findings), s.locator)
            for s in doc.sections
        ]
        reported = redacted_findings(findings)
    metadata = {
        **doc.metadata,
        "secrets": [f.to_dict() for f in reported],
        "secrets_action": "redacted" if policy.secrets == "redact" else "allowed",
    }
    return replace(doc, text=text, sections=sections, metadata=metadata)


def iter_sources(
    paths: Iterable[str | Path], policy: IngestPolicy, *, on_skip: OnSkip | None = None
) -> Iterator[str | Path]:
    """Expand folders into the sources ``extract`` accepts, in a stable order.

    URLs and YouTube ids pass through. A folder is walked (symlinked folders not
    followed); a vault inside it is yielded once, as its folder. What the walk
    leaves out is told to ``on_skip`` with its reason: hidden files and folders,
    dependency folders, formats memo has no extractor for, and files of unknown
    type (or none: ``LICENSE``, ``NOTES``) whose first bytes are binary or that
    are empty; text of unknown type is yielded. A folder with no file at all is
    told too ("empty folder"). Each file is yielded as found, so a symlink that
    leaves the allowed roots is refused by ``extract`` with a PathNotAllowedError
    the caller can report.
    """
    skip = on_skip or (lambda path, reason: None)
    for item in paths:
        if isinstance(item, str) and (
            _is_url(item) or (not os.path.lexists(item) and youtube_video_id(item))
        ):
            yield item
            continue
        root = check_path(item, policy)
        if not root.is_dir():
            yield root
            continue
        if is_vault(root):
            yield root
            continue
        seen = 0
        for found in _walk(root, skip):
            seen += 1
            yield found
        if not seen and not any(root.iterdir()):
            skip(str(root), "empty folder")


def _walk(root: Path, skip: OnSkip) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        kept = []
        for name in sorted(dirs):
            if name.startswith("."):
                skip(str(here / name), "hidden folder")
                continue
            if name in _SKIPPED_FOLDERS:
                skip(str(here / name), "dependency folder")
                continue
            if is_vault(here / name) and not (here / name).is_symlink():
                yield here / name
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            path = here / name
            reason = _skip_reason(path)
            if reason is None:
                yield path
            else:
                skip(str(path), reason)


def _skip_reason(path: Path) -> str | None:
    """Why a walk leaves ``path`` out, or None to ingest it."""
    if path.name.startswith("."):
        return "hidden file"
    suffix = path.suffix.lower()
    if suffix in SUPPORTED_SUFFIXES:
        return None  # the extractor decides (and reports a binary .txt as a failure)
    if suffix in _UNSUPPORTED_SUFFIXES:
        return f"unsupported format ({suffix})"
    if path.is_symlink() and not path.exists():
        return None  # extract names the broken link
    try:
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return None  # extract reports the unreadable file as a failure
    if not head.strip():
        return "empty file"
    fmt = sniff_format(head)
    if fmt in ("pdf", "html"):
        return None
    if looks_binary(head):
        return f"binary file ({fmt})" if fmt else "binary file"
    return None
