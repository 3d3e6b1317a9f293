"""Mutated files: every failure must be one of memo's IngestErrors, never a crash.

Seeded mutations (byte flips, cuts, insertions) of valid PDF, DOCX, Markdown, CSV
and HTML files; each either extracts (and chunks) or raises an IngestError.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from memo_core.errors import IngestError
from memo_core.ingest import IngestPolicy, chunk_document, extract


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rnd.randint(1, 8)):
        choice = rnd.random()
        if choice < 0.25 and len(out) > 400:
            # The tail holds the zip central directory / the PDF xref table.
            out[len(out) - 1 - rnd.randrange(400)] = rnd.randrange(256)
        elif choice < 0.5 and out:
            out[rnd.randrange(len(out))] = rnd.randrange(256)
        elif choice < 0.75 and out:
            start = rnd.randrange(len(out))
            del out[start : start + rnd.randint(1, 64)]
        else:
            at = rnd.randrange(len(out) + 1)
            out[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
    return bytes(out)


def _check_all(tmp_path: Path, suffix: str, base: bytes, count: int, seed: int) -> tuple[int, int]:
    policy = IngestPolicy(allowed_roots=[tmp_path])
    rnd = random.Random(seed)
    ok = refused = 0
    for index in range(count):
        path = tmp_path / f"m{index}{suffix}"
        path.write_bytes(_mutate(base, rnd))
        try:
            result = extract(path, policy=policy)
        except IngestError:
            refused += 1
            continue
        for doc in result if isinstance(result, list) else [result]:
            chunk_document(doc)
        ok += 1
    return ok, refused


@pytest.fixture(autouse=True)
def _quiet_pypdf() -> None:
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)


def test_mutated_pdfs(tmp_path: Path, build_pdf: Callable[..., bytes]) -> None:
    pytest.importorskip("pypdf", reason="pypdf is not installed")
    base = build_pdf([["Page one has text."], ["Page two has more text."]])
    ok, refused = _check_all(tmp_path, ".pdf", base, 150, seed=7)
    assert ok + refused == 150 and refused > 0


def test_mutated_docx(tmp_path: Path, make_docx: Callable[..., bytes]) -> None:
    base = make_docx([("Heading 1", "Terms"), (None, "Payment is due in 30 days. " * 20)])
    ok, refused = _check_all(tmp_path, ".docx", base, 150, seed=11)
    assert ok + refused == 150 and refused > 0


@pytest.mark.parametrize(
    ("suffix", "base"),
    [
        (".md", b"---\ntitle: x\n---\n# Heading\n\nSome *text* here.\n\n## Sub\n\nMore.\n"),
        (".csv", b'a,b,c\n1,"two, quoted",3\n4,5,6\n'),
        (".html", b"<html><head><title>t</title></head><body><h1>x</h1><p>para</p></body></html>"),
    ],
)
def test_mutated_text_formats(tmp_path: Path, suffix: str, base: bytes) -> None:
    ok, refused = _check_all(tmp_path, suffix, base, 150, seed=3)
    assert ok + refused == 150 and ok > 0


def test_docx_needing_a_newer_zip_version(tmp_path: Path, make_docx: Callable[..., bytes]) -> None:
    data = bytearray(make_docx([(None, "text")]))
    entry = data.index(b"PK\x01\x02")  # first central directory header
    data[entry + 6 : entry + 8] = (233).to_bytes(2, "little")  # "version needed to extract": 23.3
    (tmp_path / "new.docx").write_bytes(bytes(data))
    with pytest.raises(IngestError, match="not a valid DOCX"):
        extract(tmp_path / "new.docx", policy=IngestPolicy(allowed_roots=[tmp_path]))
