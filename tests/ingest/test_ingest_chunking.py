"""chunk_document: exact spans, structure boundaries, split preferences, determinism."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.errors import InvalidInputError
from memo_core.ingest import ChunkDraft, DocumentBuilder, ExtractedDocument, chunk_document

_WORDS = st.sampled_from(
    ["term", "contract", "24", "months.", "Notice!", "renews", "яблоко", "a", "б", "end?", "x" * 40]
)
_PIECE = st.lists(
    st.one_of(_WORDS, st.sampled_from([" ", "  ", "\n", "\n\n", " - ", "\t"])),
    min_size=0,
    max_size=400,
).map("".join)
_LOCATOR = st.one_of(
    st.builds(lambda n: {"page": n}, st.integers(1, 50)),
    st.builds(lambda h: {"heading": h}, st.sampled_from(["A", "A > B", "C"])),
    st.builds(lambda s: {"start_time": float(s), "end_time": float(s) + 2.5}, st.integers(0, 500)),
    st.just({}),
)


@st.composite
def documents(draw: st.DrawFn) -> ExtractedDocument:
    builder = DocumentBuilder(separator=draw(st.sampled_from(["\n", "\n\n"])))
    for piece, locator in draw(st.lists(st.tuples(_PIECE, _LOCATOR), max_size=12)):
        builder.add(piece, locator)
    return builder.build(source="/doc", title="doc", kind="text")


@st.composite
def params(draw: st.DrawFn) -> dict[str, int]:
    return {
        "max_chars": draw(st.integers(1, 600)),
        "overlap_chars": draw(st.integers(0, 400)),
        "min_chars": draw(st.integers(0, 400)),
    }


def _section_of(doc: ExtractedDocument, chunk: ChunkDraft) -> list[int]:
    return [i for i, s in enumerate(doc.sections) if s.start < chunk.end and s.end > chunk.start]


@settings(max_examples=200, deadline=None)
@given(documents(), params())
def test_chunk_spans_are_exact_bounded_and_cover_everything(
    doc: ExtractedDocument, kw: dict[str, int]
) -> None:
    chunks = chunk_document(doc, **kw)
    covered = [False] * len(doc.text)
    for chunk in chunks:
        assert chunk.text == doc.text[chunk.start : chunk.end]
        assert 0 <= chunk.start < chunk.end <= len(doc.text)
        assert chunk.text == chunk.text.strip()
        assert len(chunk.text) <= kw["max_chars"]
        touched = _section_of(doc, chunk)
        hard = [i for i in touched if not doc.sections[i].is_timed]
        # Plain text is also located by its lines (1-based, inclusive).
        lines = {k: chunk.locator[k] for k in ("line_start", "line_end")}
        assert lines["line_start"] == doc.text.count("\n", 0, chunk.start) + 1
        assert lines["line_end"] == doc.text.count("\n", 0, chunk.end - 1) + 1
        located = {k: v for k, v in chunk.locator.items() if k not in lines}
        if hard:  # a page/heading/row chunk sits inside exactly one section
            assert touched == hard and len(hard) == 1
            assert located == doc.sections[hard[0]].locator
        elif touched:  # timecoded sections may share a chunk; the locator spans them
            assert chunk.locator["start_time"] == doc.sections[touched[0]].locator["start_time"]
            assert chunk.locator["end_time"] == doc.sections[touched[-1]].locator["end_time"]
        for i in range(chunk.start, chunk.end):
            covered[i] = True
    missing = [i for i, ch in enumerate(doc.text) if not ch.isspace() and not covered[i]]
    assert missing == []
    assert chunks == chunk_document(doc, **kw)  # deterministic


def _doc(text: str, **kwargs: object) -> ExtractedDocument:
    return ExtractedDocument(text=text, source="/d", title="d", kind="text", **kwargs)  # type: ignore[arg-type]


def test_short_document_is_one_chunk() -> None:
    chunks = chunk_document(_doc("  Just one line.  "))
    assert [(c.text, c.start, c.end) for c in chunks] == [("Just one line.", 2, 16)]


def test_prefers_paragraph_then_sentence_boundaries() -> None:
    para = "Alpha sentence one. Alpha sentence two. " * 5
    text = para.strip() + "\n\n" + para.strip()
    chunks = chunk_document(_doc(text), max_chars=300, overlap_chars=0, min_chars=50)
    assert chunks[0].text == para.strip()  # cut at the paragraph break
    long_para = "This is a sentence of moderate length. " * 20
    sentence_chunks = chunk_document(_doc(long_para), max_chars=200, overlap_chars=0, min_chars=50)
    assert all(c.text.endswith(".") for c in sentence_chunks)


def test_overlap_repeats_the_tail_on_a_word_start() -> None:
    text = " ".join(f"word{i}" for i in range(200))
    chunks = chunk_document(_doc(text), max_chars=100, overlap_chars=30, min_chars=20)
    for first, second in itertools.pairwise(chunks):
        assert second.start < first.end  # they overlap
        assert text[second.start - 1] == " "  # starting on a word
        assert first.end - second.start <= 30


def test_word_without_spaces_is_cut_hard() -> None:
    chunks = chunk_document(_doc("x" * 1000), max_chars=300, overlap_chars=0, min_chars=0)
    assert [len(c.text) for c in chunks] == [300, 300, 300, 100]


def test_tail_is_not_a_sliver() -> None:
    text = "Sentence here. " * 90  # a little over max_chars
    chunks = chunk_document(_doc(text.strip()), max_chars=1200, overlap_chars=0, min_chars=200)
    assert len(chunks) == 2 and len(chunks[-1].text) >= 200


def test_timed_sections_merge_and_pages_do_not() -> None:
    timed = DocumentBuilder(separator="\n")
    for i in range(10):
        timed.add(f"caption number {i}", {"start_time": i * 2.0, "end_time": i * 2.0 + 2})
    chunks = chunk_document(timed.build(source="/v", title="v", kind="youtube"), max_chars=100)
    assert len(chunks) < 10
    assert chunks[0].locator == {"start_time": 0.0, "end_time": chunks[0].locator["end_time"]}
    assert chunks[-1].locator["end_time"] == 20.0
    paged = DocumentBuilder()
    for page in range(1, 4):
        paged.add(f"tiny page {page}", {"page": page})
    page_chunks = chunk_document(paged.build(source="/p", title="p", kind="pdf"))
    assert [c.locator for c in page_chunks] == [{"page": 1}, {"page": 2}, {"page": 3}]


@pytest.mark.parametrize("kw", [{"max_chars": 0}, {"overlap_chars": -1}, {"min_chars": -5}])
def test_rejects_bad_parameters(kw: dict[str, int]) -> None:
    with pytest.raises(InvalidInputError):
        chunk_document(_doc("text"), **kw)


def test_small_max_chars_alone_is_valid() -> None:
    chunks = chunk_document(_doc("word " * 100), max_chars=40)
    assert chunks and all(len(c.text) <= 40 for c in chunks)
