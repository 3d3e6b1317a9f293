"""DOCX: paragraphs and tables in body order, heading styles as section locators.

A .docx is a zip archive, so the archive is inspected before python-docx opens it:
a total uncompressed size, an entry count and a per-entry compression ratio beyond
the policy's limits mean a zip bomb, refused without inflating anything. A file
can still expand within those limits (0.5 MB holding 20 MB of XML), so the body
XML is then streamed once through expat, counting only the text of its runs, and
refused as soon as that passes ``policy.max_text_chars``: python-docx builds its
object tree (the slow part) only for a document that fits. The bytes checked are
the bytes parsed (one read), so the file cannot be swapped in between.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from typing import Any
from xml.parsers import expat

from memo_core.errors import ExtractionError
from memo_core.ingest.deps import require
from memo_core.ingest.frontmatter import json_safe
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.policy import IngestPolicy, check_text_length
from memo_core.ingest.types import ExtractedDocument

__all__ = ["check_body_text", "check_zip", "extract_docx"]

_HEADING_STYLE = re.compile(r"^(?:Heading|Überschrift|Заголовок)\s*(\d)$", re.IGNORECASE)
#: Entries smaller than this are never called bombs whatever their ratio (XML compresses well).
_RATIO_FLOOR_BYTES = 1024 * 1024
#: A text run (``<w:t>``) as expat names it with namespace processing on.
_TEXT_RUN = "http://schemas.openxmlformats.org/wordprocessingml/2006/main t"
_STREAM_BLOCK = 64 * 1024


def check_zip(data: bytes, policy: IngestPolicy, *, name: str) -> zipfile.ZipFile:
    """Open ``data`` as a zip after checking its declared sizes against the policy."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise ExtractionError(f"{name} is not a valid DOCX (zip) file: {exc}") from None
    if len(entries) > policy.max_zip_entries:
        raise ExtractionError(f"{name} has {len(entries)} zip entries: refused as a zip bomb")
    total = 0
    for entry in entries:
        total += entry.file_size
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > _RATIO_FLOOR_BYTES and ratio > policy.max_compression_ratio:
            raise ExtractionError(
                f"{name}: entry {entry.filename!r} expands {ratio:.0f}x: refused as a zip bomb"
            )
    if total > policy.max_unzipped_bytes:
        raise ExtractionError(
            f"{name} would unpack to {total} bytes, over the limit of "
            f"{policy.max_unzipped_bytes}: refused as a zip bomb"
        )
    if "word/document.xml" not in archive.namelist():
        raise ExtractionError(f"{name} is a zip file but not a Word document")
    return archive


def check_body_text(archive: zipfile.ZipFile, policy: IngestPolicy, *, name: str) -> int:
    """Stream ``word/document.xml`` and refuse it once its run text passes the bound.

    Returns the number of text characters. Only a block (64 KB) of XML is held at
    a time and no tree is built, so a document far past the bound costs the time
    to read up to the bound, not to parse all of it.
    """
    parser = expat.ParserCreate(namespace_separator=" ")
    depth = 0  # > 0 inside a text run
    chars = 0

    def start(tag: str, _attrs: Any) -> None:
        nonlocal depth
        depth += tag == _TEXT_RUN

    def end(tag: str) -> None:
        nonlocal depth
        depth -= tag == _TEXT_RUN

    def text(data: str) -> None:
        nonlocal chars
        if depth:
            chars += len(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        with archive.open("word/document.xml") as stream:
            while block := stream.read(_STREAM_BLOCK):
                parser.Parse(block, False)
                check_text_length(name, chars, policy)
            parser.Parse(b"", True)
    except expat.ExpatError as exc:
        raise ExtractionError(f"{name}: the DOCX body is not well-formed XML ({exc})") from None
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError) as exc:
        raise ExtractionError(f"{name} is not a valid DOCX (zip) file: {exc}") from None
    return chars


def extract_docx(
    data: bytes, *, source: str, title: str, policy: IngestPolicy
) -> ExtractedDocument:
    """Paragraphs and table rows in order; ``Heading N``/``Title`` styles start sections."""
    docx = require("docx", package="python-docx", extra="docx", feature="DOCX files")
    with check_zip(data, policy, name=source) as archive:
        check_body_text(archive, policy, name=source)
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = list(_blocks(document))
        properties = document.core_properties
    except ExtractionError:
        raise
    except Exception as exc:  # python-docx raises many types on malformed XML/parts
        raise ExtractionError(
            f"{source}: cannot read DOCX ({exc.__class__.__name__}: {exc})"
        ) from None

    builder = DocumentBuilder()
    path: list[tuple[int, str]] = []
    pending: list[str] = []
    first_title: str | None = None

    def flush() -> None:
        heading = " > ".join(t for _, t in path)
        builder.add("\n\n".join(pending), {"heading": heading} if heading else {})
        pending.clear()

    for level, block in blocks:
        if level is None:
            pending.append(block)
            continue
        flush()
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, block.strip()))
        first_title = first_title or block.strip()
        pending.append(block)
    flush()

    metadata: dict[str, Any] = json_safe(
        {
            "author": properties.author or None,
            "created": properties.created,
            "modified": properties.modified,
        }
    )
    doc_title = (properties.title or "").strip() or first_title or title
    return builder.build(
        source=source,
        title=doc_title,
        kind="docx",
        metadata={k: v for k, v in metadata.items() if v},
    )


def _blocks(document: Any) -> Any:
    """Yield ``(heading level or None, text)`` for paragraphs and table rows, in order."""
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            for row in item.rows:
                cells: list[str] = []
                seen: set[int] = set()
                for cell in row.cells:
                    if id(cell._tc) in seen:  # a merged cell repeats itself
                        continue
                    seen.add(id(cell._tc))
                    cells.append(cell.text.strip())
                if any(cells):
                    yield None, " | ".join(cells)
            continue
        text = item.text
        if not text.strip():
            continue
        yield _heading_level(item), text


def _heading_level(paragraph: Any) -> int | None:
    try:
        name = paragraph.style.name or ""
    except Exception:  # a style reference the document does not define
        return None
    if name.lower() == "title":
        return 1
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else None
