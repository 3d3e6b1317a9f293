"""The pydoc evaluation set's own checks: span look-up, question validation, gold locators.

Sentences are the test's own; the committed questions are checked by
``python bench/data/answer/build_docs.py --check``, not here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bd():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "build_docs_under_test", BENCH / "data" / "answer" / "build_docs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TEXT = (
    "class Kettle\n"
    " |  Kettle(volume)\n"
    " |  \n"
    " |  Boils water up to the given\n"
    " |      volume in litres, never more.\n"
)


def test_span_found_across_lines_and_class_bars(bd) -> None:  # type: ignore[no-untyped-def]
    assert bd.find_span(TEXT, "up to the given volume in litres") == [TEXT.index("up to")]
    assert bd.find_span(TEXT, "up to the given volume in gallons") == []
    # Bars are layout only between words, never inside one.
    assert bd.find_span("a|b", "a b") == []
    assert bd.normalize(" |  Boils  water\n |  up") == "boils water up"


def _docs(tmp_path: Path) -> Path:
    for fmt in ("txt", "md"):
        (tmp_path / fmt).mkdir()
    (tmp_path / "txt" / "json.txt").write_text(TEXT)
    (tmp_path / "md" / "json.md").write_text(
        "# json\n\nBoils water up to the given volume in litres.\n"
    )
    return tmp_path


def _q(qid: str, kind: str, **extra: str) -> dict[str, object]:
    return {"id": qid, "question": "?", "kind": kind, "doc": "json", "formats": ["txt"], **extra}


def test_validator_rejects_what_it_should(bd, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs = _docs(tmp_path)
    good = [
        _q("a1", "answerable", answer="given volume in litres"),
        _q("n1", "near_miss"),
        _q("x1", "nonexistent", absent="temperature="),
    ]
    assert bd.validate(good, docs) == []
    bad = [
        _q("a2", "answerable", answer="volume in gallons"),  # span not in the text
        _q("x2", "nonexistent", absent="volume"),  # the "missing" thing is there
        _q("x3", "nonexistent"),  # says nothing about what is missing
        _q("n2", "near_miss", answer="litres"),  # a refusal question with an answer
        _q("a1", "answerable", answer="given volume in litres"),
        _q("a1", "answerable", answer="Kettle"),  # duplicate id
    ]
    problems = bd.validate(bad, docs)
    flagged = {p.split(":")[0] for p in problems}
    assert flagged == {"a2", "x2", "x3", "n2", "a1"}
    assert any("duplicate" in p for p in problems)


def test_pdf_lines_keep_offsets(bd) -> None:  # type: ignore[no-untyped-def]
    text = "short line\n" + "word " * 40 + "\nend"
    for line, at in bd._pdf_lines(text):
        assert len(line) <= bd.PDF_WIDTH
        assert text[at : at + len(line)] == line


def test_committed_questions_are_well_formed() -> None:
    rows = [json.loads(line) for line in (BENCH / "data" / "answer" / "questions.jsonl").open()]
    kinds = {r["kind"] for r in rows}
    assert kinds == {"answerable", "near_miss", "nonexistent"}
    assert len({r["id"] for r in rows}) == len(rows)
    assert all(r["answer"].strip() for r in rows if r["kind"] == "answerable")
    assert all(r.get("absent") for r in rows if r["kind"] == "nonexistent")
