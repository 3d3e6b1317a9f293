"""Locators from the caller: page, heading, timecode and url in metadatas reach the citation."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core import GuardedAnswerer, MemoBase, SufficiencyGate
from memo_core.answer import Answer
from memo_core.embedders import HashEmbedder
from memo_core.kb.locators import locator_from_metadata, parse_timecode

TERM = "The contract term is 24 months."


def _ask(kb: MemoBase, question: str) -> Answer:
    # These tests are about where a citation points, not whether one sentence suffices.
    result = GuardedAnswerer(kb, gate=SufficiencyGate(threshold=0.0)).ask(question)
    assert isinstance(result, Answer), result
    return result


def test_the_readme_snippet_cites_the_page_it_was_given(tmp_path: Path) -> None:
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        kb.add_texts([TERM], metadatas=[{"source": "contract.pdf", "page": 2}])
        [citation] = _ask(kb, "How long is the contract term?").citations
        assert citation.page == 2 and citation.to_dict()["page"] == 2


@pytest.mark.parametrize("vectors", [False, True], ids=["embedded", "precomputed"])
def test_heading_timecode_and_url_become_the_locator(tmp_path: Path, vectors: bool) -> None:
    embedder = HashEmbedder()
    texts = [
        "Volunteers repaint the lighthouse railings every second spring.",
        "The speaker said the ferry leaves at dawn on Sundays.",
    ]
    metadatas = [
        {"source": "handbook.md", "heading": ["Maintenance", "Railings"]},
        {"source": "talk.mp3", "timecode": "01:02:03", "url": "https://example.org/talk"},
    ]
    with MemoBase(tmp_path / "kb.db", embedder=embedder) as kb:
        given = embedder.embed_documents(texts) if vectors else None
        kb.add_texts(texts, metadatas=metadatas, vectors=given)
        [railings] = _ask(kb, "How often are the lighthouse railings repainted?").citations
        assert railings.locator == {"heading": "Maintenance > Railings"}
        [ferry] = _ask(kb, "When does the ferry leave on Sundays?").citations
        assert ferry.locator == {
            "start_time": 3723.0,
            "timecode": "01:02:03",
            "url": "https://example.org/talk",
        }


def test_chunked_texts_keep_the_callers_page_and_get_their_lines(tmp_path: Path) -> None:
    body = "\n".join(f"Line {i} of the harbour log mentions crate {i * 7}." for i in range(1, 80))
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        kb.add_texts([body], metadatas=[{"source": "log.txt", "page": "4"}], chunk=True)
        hits = kb.search("crate 343", k=1, mode="keyword")
    [hit] = hits
    assert hit.locator["page"] == 4  # a reader's page label "4" is page 4
    first, last = hit.locator["line_start"], hit.locator["line_end"]
    assert "crate 343." in "\n".join(body.splitlines()[first - 1 : last])


def test_plain_text_files_are_located_by_line_range(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    lines = [f"Entry {i}: the tide table for pier {i} was checked." for i in range(1, 120)]
    lines[90] = "Entry 91: the blue crane needs new cables before winter."
    (folder / "log.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder()) as kb:
        kb.ingest(folder, roots=[folder])
        [citation] = _ask(kb, "What does the blue crane need before winter?").citations
    where = citation.locator
    assert where["line_start"] <= 181 <= where["line_end"]  # line 181: blank lines between
    assert where["line_end"] - where["line_start"] < 60


def test_locator_parsing() -> None:
    assert parse_timecode("83.5") == 83.5 and parse_timecode(12) == 12.0
    assert parse_timecode("1:23") == 83 and parse_timecode("1:01:23.5") == 3683.5
    assert parse_timecode("soon") is None and parse_timecode(-1) is None
    assert locator_from_metadata({"page_label": "iv"}) == {"page": "iv"}
    assert locator_from_metadata({"page": True, "source": "x"}) == {}
