"""PDF extraction: page locators, de-hyphenation, and every broken-file path."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.errors import ExtractionError
from memo_core.ingest import ExtractedDocument, IngestPolicy, chunk_document, extract

pypdf = pytest.importorskip("pypdf", reason="pypdf (the pdf extra) is not installed")

PAGES = [
    ["# Agreement", "This first page names the parties: Northwind and Contoso."],
    [
        "# Term",
        "The term of this agreement is 24 months.",
        "The infor-\nmation on renewal follows.",
    ],
    ["# Signatures", "Signed in London."],
]


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _encrypted(data: bytes, user_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_every_chunk_knows_its_page(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    doc = extract(_write(tmp_path, "c.pdf", build_pdf(PAGES, title="Contract")), policy=policy)
    assert isinstance(doc, ExtractedDocument)
    assert doc.kind == "pdf" and doc.title == "Contract" and doc.metadata["pages"] == 3
    assert [s.locator for s in doc.sections] == [{"page": 1}, {"page": 2}, {"page": 3}]
    chunks = chunk_document(doc, max_chars=60, overlap_chars=10, min_chars=10)
    term = [c for c in chunks if "24 months" in c.text]
    assert term and all(c.locator == {"page": 2} for c in term)
    assert all("page" in c.locator for c in chunks)
    assert "The information on renewal" in doc.text  # hyphenated line break joined


def test_empty_user_password_is_opened(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    data = _encrypted(build_pdf(PAGES), user_password="")
    doc = extract(_write(tmp_path, "open.pdf", data), policy=policy)
    assert isinstance(doc, ExtractedDocument)
    assert doc.metadata["encrypted"] is True and "24 months" in doc.text


def test_password_protected_pdf_is_refused(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    data = _encrypted(build_pdf(PAGES), user_password="hunter2")
    with pytest.raises(ExtractionError, match="password"):
        extract(_write(tmp_path, "locked.pdf", data), policy=policy)


def test_truncated_pdf(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    data = build_pdf(PAGES)
    with pytest.raises(ExtractionError):
        extract(_write(tmp_path, "cut.pdf", data[: len(data) // 3]), policy=policy)


def test_corrupt_pdf(tmp_path: Path, policy: IngestPolicy) -> None:
    junk = b"%PDF-1.4\n" + bytes((i * 37 + 11) % 256 for i in range(4000))
    with pytest.raises(ExtractionError):
        extract(_write(tmp_path, "junk.pdf", junk), policy=policy)


def test_pdf_suffix_on_something_else(tmp_path: Path, policy: IngestPolicy) -> None:
    with pytest.raises(ExtractionError, match="not a PDF"):
        extract(_write(tmp_path, "fake.pdf", b"hello, I am text"), policy=policy)


def test_pdf_without_text(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    with pytest.raises(ExtractionError, match="no extractable text"):
        extract(_write(tmp_path, "scan.pdf", build_pdf([[], []])), policy=policy)


def test_page_limit(tmp_path: Path, build_pdf: Callable[..., bytes]) -> None:
    strict = IngestPolicy(allowed_roots=[tmp_path], max_pdf_pages=2)
    with pytest.raises(ExtractionError, match="over the limit"):
        extract(_write(tmp_path, "long.pdf", build_pdf(PAGES)), policy=strict)


def test_pdf_sniffed_without_suffix(
    tmp_path: Path, policy: IngestPolicy, build_pdf: Callable[..., bytes]
) -> None:
    doc = extract(_write(tmp_path, "download", build_pdf(PAGES)), policy=policy)
    assert isinstance(doc, ExtractedDocument) and doc.kind == "pdf"
