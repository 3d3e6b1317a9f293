"""Plain text, Markdown, CSV, HTML and DOCX files, and the byte-level guards."""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.errors import ExtractionError, UnsupportedSourceError
from memo_core.ingest import ExtractedDocument, IngestPolicy, chunk_document, extract


def _one(result: ExtractedDocument | list[ExtractedDocument]) -> ExtractedDocument:
    assert isinstance(result, ExtractedDocument)
    return result


def _write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _located(doc: ExtractedDocument, needle: str) -> dict[str, object]:
    """The locator of the section holding ``needle``."""
    at = doc.text.index(needle)
    return next(s.locator for s in doc.sections if s.start <= at < s.end)


def test_plain_text(tmp_path: Path, policy: IngestPolicy) -> None:
    doc = _one(
        extract(
            _write(tmp_path / "notes.txt", "Hello\r\nworld.\n\n\n\nSecond para.\n"), policy=policy
        )
    )
    assert doc.kind == "text" and doc.title == "notes"
    assert doc.text == "Hello\nworld.\n\nSecond para."
    assert doc.source == str((tmp_path / "notes.txt").resolve())
    assert doc.metadata["encoding"] == "utf-8"


def test_markdown_headings_front_matter_and_code_fences(
    tmp_path: Path, policy: IngestPolicy
) -> None:
    text = """---
title: Handbook
tags: [hr, policy]
date: 2024-05-01
---
Intro before any heading.

# Leave
General leave rules.

## Sick leave
Ten days per year.

```python
# not a heading, just a comment
```

## Parental leave
Sixteen weeks.

Setext section
--------------
Underlined heading body.
"""
    doc = _one(extract(_write(tmp_path / "h.md", text), policy=policy))
    assert doc.kind == "markdown" and doc.title == "Handbook"
    assert doc.metadata["front_matter"] == {
        "title": "Handbook",
        "tags": ["hr", "policy"],
        "date": "2024-05-01",
    }
    assert "title: Handbook" not in doc.text
    assert _located(doc, "Intro before") == {}
    assert _located(doc, "Ten days") == {"heading": "Leave > Sick leave"}
    assert _located(doc, "not a heading") == {"heading": "Leave > Sick leave"}
    assert _located(doc, "Sixteen weeks") == {"heading": "Leave > Parental leave"}
    assert _located(doc, "Underlined heading body") == {"heading": "Leave > Setext section"}
    chunk = next(c for c in chunk_document(doc) if "Ten days" in c.text)
    assert chunk.text.startswith("## Sick leave") and chunk.locator == {
        "heading": "Leave > Sick leave"
    }


def test_markdown_with_broken_front_matter_keeps_the_text(
    tmp_path: Path, policy: IngestPolicy
) -> None:
    doc = _one(
        extract(_write(tmp_path / "b.md", "---\n: [unclosed\n---\n# T\nbody\n"), policy=policy)
    )
    assert "front_matter_error" in doc.metadata
    assert "body" in doc.text and doc.title == "T"


def test_csv_rows_are_self_describing_blocks(tmp_path: Path, policy: IngestPolicy) -> None:
    csv_text = 'id,name,note\n1,Alice,"likes ""tea"", and cake"\n2,Bob,\n\n3,Carol,"multi\nline"\n'
    doc = _one(extract(_write(tmp_path / "people.csv", csv_text), policy=policy))
    assert doc.kind == "csv" and doc.metadata["columns"] == ["id", "name", "note"]
    lines = doc.text.split("\n")
    assert lines[0] == 'id: 1; name: Alice; note: likes "tea", and cake'
    assert lines[1] == "id: 2; name: Bob"  # the empty cell is left out
    assert [s.locator for s in doc.sections] == [{"row": 2}, {"row": 3}, {"row": 5}]
    chunks = chunk_document(doc)
    assert [c.locator["row"] for c in chunks] == [2, 3, 5]  # one row per chunk


def test_tsv_and_semicolon_csv(tmp_path: Path, policy: IngestPolicy) -> None:
    tsv = _one(extract(_write(tmp_path / "t.tsv", "a\tb\n1\t2\n"), policy=policy))
    assert tsv.text == "a: 1; b: 2"
    semi = _one(
        extract(
            _write(tmp_path / "s.csv", "city;population\nParis;2100000\nLyon;520000\n"),
            policy=policy,
        )
    )
    assert semi.text.split("\n")[0] == "city: Paris; population: 2100000"


HTML_PAGE = """<!DOCTYPE html><html><head><title>Travel &amp; Expenses</title>
<style>.x{color:red}</style><script>var secret = 1;</script></head>
<body><nav>Home | About | Contact</nav><article>
<h1>Expense policy</h1>
<p>Employees are reimbursed for travel booked through the portal, within the limits below.</p>
<h2>Hotels</h2><p>Hotel stays are capped at 180 euros per night in capital cities.</p>
<h2>Meals</h2><p>Meals are reimbursed up to 45 euros per day with receipts attached.</p>
</article><footer>Copyright 2025</footer></body></html>"""


def test_html_file_with_trafilatura(tmp_path: Path, policy: IngestPolicy) -> None:
    pytest.importorskip("trafilatura", reason="trafilatura (the web extra) is not installed")
    doc = _one(extract(_write(tmp_path / "policy.html", HTML_PAGE), policy=policy))
    assert doc.kind == "html" and doc.title == "Travel & Expenses"
    assert "180 euros" in doc.text and "var secret" not in doc.text and "color:red" not in doc.text
    assert _located(doc, "180 euros") == {"heading": "Expense policy > Hotels"}


def test_html_fallback_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    from memo_core.ingest.htmltext import extract_html

    doc = extract_html(HTML_PAGE, source="/p.html", default_title="p")
    monkeypatch.setitem(__import__("sys").modules, "trafilatura", None)  # as if not installed
    fallback = extract_html(HTML_PAGE, source="/p.html", default_title="p")
    assert fallback.title == doc.title == "Travel & Expenses"
    assert "Home | About" not in fallback.text and "Copyright" not in fallback.text
    assert "var secret" not in fallback.text
    assert _located(fallback, "45 euros") == {"heading": "Expense policy > Meals"}


def test_deeply_nested_html_does_not_crash(tmp_path: Path, policy: IngestPolicy) -> None:
    depth = 50_000
    markup = (
        "<html><body>"
        + "<div>" * depth
        + "<p>deep treasure text</p>"
        + "</div>" * depth
        + "</body></html>"
    )
    doc = _one(extract(_write(tmp_path / "deep.html", markup), policy=policy))
    assert "deep treasure text" in doc.text


def test_html_sniffed_without_suffix(tmp_path: Path, policy: IngestPolicy) -> None:
    doc = _one(extract(_write(tmp_path / "page", HTML_PAGE), policy=policy))
    assert doc.kind == "html" and "180 euros" in doc.text


def test_docx_headings_and_tables(
    tmp_path: Path, policy: IngestPolicy, make_docx: Callable[..., bytes]
) -> None:
    data = make_docx(
        [
            ("Title", "Supplier handbook"),
            (None, "Welcome to the handbook."),
            ("Heading 1", "Payments"),
            (None, "Invoices are paid within 30 days."),
            ("Heading 2", "Late fees"),
            (None, "Late fees are 2 percent per month."),
        ],
        table=[["Supplier", "Terms"], ["Northwind", "Net 30"]],
    )
    doc = _one(extract(_write(tmp_path / "h.docx", data), policy=policy))
    assert doc.kind == "docx" and doc.title == "Supplier handbook"
    assert _located(doc, "paid within 30 days") == {"heading": "Payments"}
    assert _located(doc, "2 percent") == {"heading": "Payments > Late fees"}
    assert "Supplier | Terms" in doc.text and "Northwind | Net 30" in doc.text


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_docx_zip_bomb_is_refused_before_inflating(tmp_path: Path, policy: IngestPolicy) -> None:
    bomb = _zip(
        {
            "[Content_Types].xml": b"<x/>",
            "word/document.xml": b"<w/>",
            "word/media/pad.bin": b"\0" * (30 * 1024 * 1024),
        }
    )
    assert len(bomb) < 100_000  # 30 MB of zeros compresses ~1000x
    with pytest.raises(ExtractionError, match="zip bomb"):
        extract(_write(tmp_path / "bomb.docx", bomb), policy=policy)
    tight = IngestPolicy(allowed_roots=[tmp_path], max_unzipped_bytes=1000)
    small = _zip({"word/document.xml": b"<w>" + b"a" * 2000 + b"</w>"})
    with pytest.raises(ExtractionError, match="zip bomb"):
        extract(_write(tmp_path / "big.docx", small), policy=tight)


def test_docx_that_is_not_a_docx(tmp_path: Path, policy: IngestPolicy) -> None:
    with pytest.raises(ExtractionError):
        extract(_write(tmp_path / "fake.docx", b"plain text pretending"), policy=policy)
    with pytest.raises(ExtractionError, match="not a Word document"):
        extract(_write(tmp_path / "other.docx", _zip({"hello.txt": b"hi"})), policy=policy)


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("image.txt", PNG),
        ("binary.md", b"text\x00with\x00nuls" * 10),
        ("elf.csv", b"\x7fELF\x02\x01\x01" + b"\x00" * 50),
        ("controls.txt", bytes(range(1, 32)) * 20),
    ],
)
def test_binary_with_text_suffix_is_unsupported(
    tmp_path: Path, policy: IngestPolicy, name: str, data: bytes
) -> None:
    with pytest.raises(UnsupportedSourceError, match="binary"):
        extract(_write(tmp_path / name, data), policy=policy)


@pytest.mark.parametrize("data", [b"", b"   \n\t\n", b"\xef\xbb\xbf"])
def test_empty_files_are_unsupported(tmp_path: Path, policy: IngestPolicy, data: bytes) -> None:
    with pytest.raises(UnsupportedSourceError, match="empty"):
        extract(_write(tmp_path / "empty.txt", data), policy=policy)


def test_encodings(tmp_path: Path, policy: IngestPolicy) -> None:
    russian = "Договор заключён на двадцать четыре месяца с даты подписания."
    doc = _one(extract(_write(tmp_path / "ru.txt", russian.encode("cp1251")), policy=policy))
    assert doc.text == russian and doc.metadata["encoding"] == "cp1251"
    french = "Le café coûte trois euros, à emporter ou sur place."
    doc = _one(extract(_write(tmp_path / "fr.txt", french.encode("cp1252")), policy=policy))
    assert doc.text == french and doc.metadata["encoding"] == "cp1252"
    doc = _one(
        extract(_write(tmp_path / "u16.txt", "UTF-16 text ✓".encode("utf-16")), policy=policy)
    )
    assert doc.text == "UTF-16 text ✓"
    doc = _one(extract(_write(tmp_path / "bom.txt", "\ufeffwith bom".encode()), policy=policy))
    assert doc.text == "with bom" and doc.metadata["encoding"] == "utf-8"


def test_invalid_utf8_that_is_not_text_is_an_error(tmp_path: Path, policy: IngestPolicy) -> None:
    garbage = bytes([0x80, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0xC3, 0x28]) * 40 + b"abc"
    with pytest.raises(ExtractionError, match="not valid UTF-8"):
        extract(_write(tmp_path / "bad.txt", garbage), policy=policy)


def test_size_limit_refuses_a_50mb_text_file(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    block = b"a line of perfectly ordinary text, repeated many times over\n" * 17_000  # ~1 MB
    with path.open("wb") as handle:
        for _ in range(52):
            handle.write(block)
    assert path.stat().st_size > 50 * 1024 * 1024
    with pytest.raises(ExtractionError, match="over the ingest limit"):
        extract(path, policy=IngestPolicy(allowed_roots=[tmp_path]))  # the default 50 MB limit
    os.truncate(path, 2 * 1024 * 1024)
    roomy = IngestPolicy(allowed_roots=[tmp_path], max_file_bytes=3 * 1024 * 1024)
    doc = _one(extract(path, policy=roomy))
    assert len(doc.text) > 2_000_000 and len(chunk_document(doc)) > 1000


def test_folder_without_vault_must_be_expanded(tmp_path: Path, policy: IngestPolicy) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(UnsupportedSourceError, match="iter_sources"):
        extract(tmp_path / "plain", policy=policy)


def test_unknown_suffix_with_text_is_plain_text(tmp_path: Path, policy: IngestPolicy) -> None:
    doc = _one(extract(_write(tmp_path / "README", "Just text without a suffix."), policy=policy))
    assert doc.kind == "text"
    with pytest.raises(UnsupportedSourceError):
        extract(_write(tmp_path / "photo.bin", PNG), policy=policy)


def test_html_quotes_read_as_the_page_shows_them(tmp_path: Path, policy: IngestPolicy) -> None:
    """trafilatura's Markdown puts backslashes before ``_``, ``*``, brackets...; the
    page never showed them, so a quoted identifier must not carry them."""
    pytest.importorskip("trafilatura")
    page = (
        "<html><head><title>Knobs</title></head><body><article><h1>Tuning knobs</h1>"
        "<p>Set retry_limit=7 and keep buffer_size*2 under the [soft] cap, since the "
        "worker pool (spare_threads) reads both values at start-up every morning.</p>"
        "<p># is the comment marker of this file format and it stays literal text here, "
        "never a heading of its own in the extracted document.</p>"
        "<table><tr><td>left|right</td><td>mode_b</td></tr></table>"
        "</article></body></html>"
    )
    doc = _one(extract(_write(tmp_path / "knobs.html", page), policy=policy))
    assert "Set retry_limit=7 and keep buffer_size*2 under the [soft] cap" in doc.text
    assert "(spare_threads)" in doc.text and "\\_" not in doc.text
    assert "\\# is the comment marker" in doc.text  # still no heading of its own
    assert [s.locator.get("heading") for s in doc.sections] == ["Tuning knobs"]
    # a row is its cells joined by " | ", each cell as the page shows it
    assert "left|right | mode_b" in doc.text


def test_markdown_unescape_keeps_structure() -> None:
    from memo_core.ingest.htmltext import unescape_markdown

    assert unescape_markdown("a\\_b \\*c\\* \\[d\\]") == "a_b *c* [d]"
    assert unescape_markdown("\\# not a heading\n  \\> not a quote") == (
        "\\# not a heading\n  \\> not a quote"
    )
    assert unescape_markdown("| x\\|y | z\\_w |") == "| x\\|y | z_w |"
    assert unescape_markdown("path C:\\temp stays") == "path C:\\temp stays"
