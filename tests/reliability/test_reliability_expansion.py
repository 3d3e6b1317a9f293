"""Documents that expand within the zip and file-size limits are refused before the work.

A small DOCX whose XML is tens of megabytes, a Markdown file of thousands of
headings, a long text file: each is refused with SourceTooLargeError while it is
read (the DOCX body is streamed and abandoned at the bound, python-docx never
parses it), and the embedder is never called for it. Documents within the bounds
beside them are still ingested.
"""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path
from typing import Any

import pytest
from reliability_attacks import (
    CountingEmbedder,
    attack_expanding_documents,
    expanding_docx,
    held,
)

from memo_core.errors import SourceTooLargeError
from memo_core.ingest import IngestPolicy, extract
from memo_core.kb import MemoBase
from memo_core.kb.ingest import ingest_sources

pytest.importorskip("docx", reason="python-docx (the docx extra) is not installed")


def test_a_docx_expanding_to_megabytes_of_xml_stops_reading_at_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = expanding_docx(12_000_000, random.Random(1))  # the default bound is 5 million
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("word/document.xml")
    assert info.file_size > 10_000_000 and len(data) < 1_000_000  # small file, huge XML
    assert info.file_size / info.compress_size < IngestPolicy().max_compression_ratio
    path = tmp_path / "report.docx"
    path.write_bytes(data)

    read: list[int] = []
    real_read = zipfile.ZipExtFile.read

    def counting_read(self: Any, n: int = -1) -> bytes:
        block: bytes = real_read(self, n)
        read.append(len(block))
        return block

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("python-docx parsed a document past the bound")

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting_read)
    monkeypatch.setattr("docx.Document", never)
    with pytest.raises(SourceTooLargeError, match="max_text_chars"):
        extract(path, policy=IngestPolicy(allowed_roots=[tmp_path]))
    assert sum(read) < info.file_size * 0.6  # abandoned at the bound, not read to the end


def test_the_bounds_are_configurable_and_nothing_is_embedded(tmp_path: Path) -> None:
    small = tmp_path / "small.docx"
    small.write_bytes(expanding_docx(40_000, random.Random(2)))
    counting = CountingEmbedder()
    with MemoBase(tmp_path / "kb.db", embedder=counting) as kb:  # type: ignore[arg-type]
        tight = IngestPolicy.for_roots([tmp_path], max_text_chars=10_000)
        report = ingest_sources(kb, [small], policy=tight)
        assert [f["type"] for f in report.failed] == ["SourceTooLargeError"]
        assert counting.texts == 0 and kb.list_documents() == []
        roomy = IngestPolicy.for_roots([tmp_path], max_chunks_per_document=10)
        report = ingest_sources(kb, [small], policy=roomy)  # 40k chars: ~40 chunks
        assert [f["type"] for f in report.failed] == ["SourceTooLargeError"]
        assert "max_chunks_per_document" in report.failed[0]["error"]
        assert counting.texts == 0
        report = ingest_sources(kb, [small], policy=IngestPolicy.for_roots([tmp_path]))
        assert report.added == [str(small)] and counting.texts == report.chunks > 10


def test_every_extractor_passes_the_same_bound(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><body><main><p>" + "harbour lantern " * 5_000 + "</p></main></body></html>"
    )
    (tmp_path / "notes.md").write_text("# Notes\n\n" + "meadow river " * 5_000)
    (tmp_path / "rows.csv").write_text("a,b\n" + "walnut,timber\n" * 5_000)
    policy = IngestPolicy.for_roots([tmp_path], max_text_chars=20_000)
    for name in ("page.html", "notes.md", "rows.csv"):
        with pytest.raises(SourceTooLargeError):
            extract(tmp_path / name, policy=policy)


def test_expanding_documents_attack_holds(tmp_path: Path) -> None:
    tally = attack_expanding_documents(tmp_path, 6, seed=3)
    assert held(tally), tally.as_dict()
