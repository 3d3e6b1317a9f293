"""The library evaluation set: its modules, renderings, questions and split.

The rendering and validation checks use sentences of the test's own; the
committed questions are checked against this Python's rebuilt documents (they
were written over Python 3.11's docstrings).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
DOCS_SET = "library"  # the set conftest.py's docs_builder and built fixtures rebuild


@pytest.fixture(scope="module")
def lib(docs_builder: Any) -> Any:
    return docs_builder


def test_modules_are_new_to_the_team(lib: Any) -> None:
    pydoc_builder = lib._pydoc_builder()
    assert len(lib.MODULES) == len(set(lib.MODULES)) >= 30
    assert not set(lib.MODULES) & set(pydoc_builder.MODULES)  # none of the pydoc set's 54


def test_every_module_is_rendered_in_four_formats(
    lib: Any, built: tuple[Path, dict[str, Any]]
) -> None:
    out, manifest = built
    assert list(manifest["modules"]) == list(lib.MODULES)  # the order formats are mixed by
    for name, entry in manifest["modules"].items():
        assert set(entry["files"]) == {"txt", "md", "html", "pdf"}
        text = (out / entry["files"]["txt"]).read_text(encoding="utf-8")
        assert len(text) > 3000, name  # substantial docstrings, not a stub
        assert entry["pdf_page_starts"][0] == 0 and entry["md_sections"][0][0] == 0
        for fmt in ("txt", "md", "html"):
            rendered = (out / entry["files"][fmt]).read_text(encoding="utf-8")
            # The same bytes on every run and machine: no repr addresses, no venv path.
            assert " at 0x" not in rendered and sys.executable not in rendered, (name, fmt)


def test_reprs_and_the_interpreter_path_are_made_stable(lib: Any) -> None:
    stable = lib._pydoc_builder().stable
    assert stable("timeout=<object object at 0x7f9eea0519e0>)") == "timeout=<object object>)"
    assert stable("timeout=&lt;object object at 0x7f00&gt;") == "timeout=&lt;object object&gt;"
    assert stable(f"architecture(executable='{sys.executable}')") == (
        "architecture(executable='python')"
    )
    assert stable("[<weakref at 0x7f91; to 'Handler'>]") == "[<weakref; to 'Handler'>]"
    assert stable("meet at 0x10 hours") == "meet at 0x10 hours"  # not a repr: kept


SOURCE = "Kettles\n\n  The spout pours at most two litres.\n  The lid stays shut.\n"


def _docs(lib: Any, tmp_path: Path, html_body: str, pdf_text: str) -> Path:
    for fmt in lib.FORMATS:
        (tmp_path / fmt).mkdir()
    (tmp_path / "txt" / "kettle.txt").write_text(SOURCE)
    (tmp_path / "md" / "kettle.md").write_text("# kettle\n\n" + SOURCE)
    (tmp_path / "html" / "kettle.html").write_text(f"<html><body>{html_body}</body></html>")
    lib._pydoc_builder().render_pdf(pdf_text, "kettle", tmp_path / "pdf" / "kettle.pdf")
    return tmp_path


def _question(qid: str, answer: str) -> dict[str, Any]:
    return {
        "id": qid,
        "question": "?",
        "kind": "answerable",
        "doc": "kettle",
        "formats": ["txt", "md", "html", "pdf"],
        "answer": answer,
    }


def test_a_span_missing_from_any_one_format_is_a_problem(lib: Any, tmp_path: Path) -> None:
    html_body = "The <a href='#s'>spout</a> pours at most<br>\ntwo&nbsp;litres."  # html only
    docs = _docs(lib, tmp_path, html_body, SOURCE.replace("The lid stays shut.", ""))
    questions = [
        _question("everywhere", "pours at most two litres"),
        _question("not_in_html_nor_pdf", "The lid stays shut."),
        _question("curly", "The spout\u2019s pour"),
    ]
    problems = lib.validate(questions, docs, documents=["kettle"])
    by_id = Counter(p.split(":")[0] for p in problems)
    assert "everywhere" not in by_id  # tags, <br> and &nbsp; are layout
    assert any("not in kettle html" in p for p in problems)
    assert any("not in kettle pdf" in p for p in problems)
    assert by_id["not_in_html_nor_pdf"] == 2
    assert by_id["curly"] >= 1  # not in the text at all (and not Latin-1 either)


def test_every_answer_span_is_in_every_rendered_format(
    lib: Any, committed_problems: list[str]
) -> None:
    # validate() looks for each span in the txt, md, html and pdf renderings; the
    # fixture fails when one is missing on Python 3.11 (a fifth may go elsewhere).
    broken = {p.split(":")[0] for p in committed_problems}
    rows = lib.load_questions()
    holding = [r for r in rows if r["kind"] == "answerable" and r["id"] not in broken]
    assert len(holding) >= 200


def test_committed_questions_are_shaped_as_asked(lib: Any) -> None:
    rows = lib.load_questions()
    assert len(rows) >= 250
    assert len({r["id"] for r in rows}) == len(rows)
    kinds = Counter(r["kind"] for r in rows)
    share = {k: n / len(rows) for k, n in kinds.items()}
    assert set(kinds) == {"answerable", "near_miss", "nonexistent"}
    assert 0.55 <= share["answerable"] <= 0.70
    assert 0.15 <= share["near_miss"] <= 0.25
    assert 0.15 <= share["nonexistent"] <= 0.25
    assert all(r.get("absent") for r in rows if r["kind"] == "nonexistent")
    assert {r["doc"] for r in rows} == set(lib.MODULES)  # every module is asked about
    for r in rows:  # questions in the team's own words, not the docs' sentences
        if r["kind"] == "answerable":
            assert r["answer"].casefold() not in r["question"].casefold(), r["id"]


def test_the_set_is_wired_in_and_each_half_is_large_enough(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import answer_eval
    import calibrate_gate
    from answer_sets import RENDERED_SETS, SETS, load_set

    assert "library" in SETS and "library" in RENDERED_SETS  # --sets library
    assert answer_eval.RENDERED_SETS == RENDERED_SETS  # reported per format
    assert calibrate_gate.load_set is load_set  # the calibration loads a set by its name
    for split in ("heldout", "train"):
        kinds = Counter(q.kind for q in load_set("library", split=split).questions)
        assert kinds["answerable"] >= 100 and min(kinds.values()) >= 30, (split, kinds)
