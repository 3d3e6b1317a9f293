"""PDF: text per page with its page number (pypdf, the ``pdf`` extra).

Every failure mode of a hostile or broken file ends in ExtractionError with a
reason a person can act on: not a PDF, truncated or corrupt, password-protected,
too many pages, or no extractable text (a scan that needs OCR).
"""

from __future__ import annotations

import io
import warnings
from typing import Any

from memo_core.errors import ExtractionError
from memo_core.ingest.deps import require
from memo_core.ingest.frontmatter import json_safe
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.policy import IngestPolicy, check_text_length
from memo_core.ingest.types import ExtractedDocument

__all__ = ["extract_pdf"]


def extract_pdf(data: bytes, *, source: str, title: str, policy: IngestPolicy) -> ExtractedDocument:
    """One section per page that has text, located by its 1-based page number."""
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError(f"{source} is not a PDF file")
    pypdf = require("pypdf", package="pypdf", extra="pdf", feature="PDF files")
    builder = DocumentBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pypdf warns on every recoverable oddity
        try:
            reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
            encrypted = bool(reader.is_encrypted)
            if encrypted:
                _decrypt(reader, source)
            page_count = len(reader.pages)
            if page_count == 0:
                raise ExtractionError(f"{source} has no pages")
            if page_count > policy.max_pdf_pages:
                raise ExtractionError(
                    f"{source} has {page_count} pages, over the limit of {policy.max_pdf_pages}"
                )
            chars = 0
            for number, page in enumerate(reader.pages, start=1):
                page_text = page.extract_text() or ""
                chars += len(page_text)
                check_text_length(source, chars, policy)  # stop reading once past it
                builder.add(page_text, {"page": number})
            info = _info(reader)
        except ExtractionError:
            raise
        except RecursionError:
            raise ExtractionError(f"{source}: PDF structure nested too deeply") from None
        except Exception as exc:  # pypdf raises many types on corrupt input
            raise ExtractionError(
                f"{source}: corrupt or truncated PDF ({exc.__class__.__name__}: {exc})"
            ) from None
    if builder.is_empty:
        raise ExtractionError(f"{source} has no extractable text (a scanned PDF needs OCR)")
    metadata: dict[str, Any] = {"pages": page_count, "encrypted": encrypted}
    metadata.update({k: v for k, v in info.items() if v and k != "title"})
    doc_title = info.get("title") or title
    return builder.build(source=source, title=str(doc_title), kind="pdf", metadata=metadata)


def _decrypt(reader: Any, source: str) -> None:
    """Open files encrypted with an empty user password; refuse real passwords."""
    try:
        opened = reader.decrypt("")
    except Exception as exc:  # e.g. AES without the cryptography package
        raise ExtractionError(f"{source} is encrypted and cannot be opened: {exc}") from None
    if not opened:
        raise ExtractionError(f"{source} is password-protected")


def _info(reader: Any) -> dict[str, Any]:
    try:
        meta = reader.metadata
        if not meta:
            return {}
        fields = {
            "title": meta.title,
            "author": meta.author,
            "producer": meta.producer,
            "created": meta.creation_date,
        }
    except Exception:  # a broken Info dictionary must not lose the text
        return {}
    cleaned = {k: (v.strip() if isinstance(v, str) else v) for k, v in fields.items()}
    safe: dict[str, Any] = json_safe(cleaned)
    return safe
