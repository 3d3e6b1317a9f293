"""The Language Reference evaluation set: its renderings, and its questions against them.

The rendering checks use sentences of the test's own; the committed questions
are checked against this Python's rebuilt documents (they were written over
Python 3.11's ``pydoc_data.topics``).
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
DOCS_SET = "topics"  # the set conftest.py's docs_builder and built fixtures rebuild


@pytest.fixture(scope="module")
def td(docs_builder: Any) -> Any:
    return docs_builder


TOPIC = (
    "Kettles\n"
    "*******\n"
    "\n"
    "A kettle boils water.\n"
    "\n"
    "   kettle ::= spout handle\n"
    "\n"
    "Spouts\n"
    "======\n"
    "\n"
    "The spout pours.\n"
    "\n"
    "Lids\n"
    "----\n"
    "\n"
    "The lid keeps the heat in.\n"
    "\n"
    "Handles\n"
    "=======\n"
    "\n"
    "The handle stays cool.\n"
)


def test_markdown_headings_and_their_offsets(td: Any) -> None:
    markdown, sections = td.markdown_of(TOPIC)
    assert [h for _, h in sections] == [
        "Kettles",
        "Kettles > Spouts",
        "Kettles > Spouts > Lids",
        "Kettles > Handles",  # a level-2 title closes the level-3 one
    ]
    for offset, path in sections:
        level = path.count(" > ") + 1
        assert markdown[offset:].startswith("#" * level + " " + path.split(" > ")[-1] + "\n")
    assert "=====" not in markdown and "*****" not in markdown  # underlines became headings
    # Every sentence of the text is in the Markdown unchanged.
    for sentence in ("A kettle boils water.", "The lid keeps the heat in.", "kettle ::= spout"):
        assert sentence in markdown


def test_html_keeps_indented_blocks_and_headings(td: Any) -> None:
    page = td.html_of(TOPIC, "kettles")
    assert "<h1>Kettles</h1>" in page and "<h3>Lids</h3>" in page
    assert "<pre>   kettle ::= spout handle</pre>" in page
    assert "<p>The handle stays cool.</p>" in page
    assert "<title>Kettles</title>" in page


def test_topics_repeated_by_a_larger_one_are_left_out(td: Any) -> None:
    long = "x" * 90
    topics = {
        "chapter": f"{long} one.\n\n{long} two.\n\n{long} three.\n",
        "section": f"{long} two.\n",  # wholly inside "chapter"
        "partial": f"{long} two.\n\n{long} four.\n",  # one paragraph of its own
        "short": "Tiny.\n",  # nothing long enough to compare: kept
    }
    assert td.topic_names(topics) == ["chapter", "partial", "short"]


def test_answer_spans_must_survive_the_pdf(td: Any, tmp_path: Path) -> None:
    for fmt in ("txt", "md"):
        (tmp_path / fmt).mkdir()
        (tmp_path / fmt / "kettles.txt").write_text(TOPIC)
    (tmp_path / "md" / "kettles.md").write_text(td.markdown_of(TOPIC)[0])
    question = {"question": "?", "doc": "kettles", "formats": ["txt"], "kind": "answerable"}
    good = {**question, "id": "a1", "answer": "keeps the heat in"}
    curly = {**question, "id": "a2", "answer": "the lid\u2019s heat"}
    problems = td.validate([good, curly], tmp_path, documents=["kettles"])
    assert {p.split(":")[0] for p in problems} == {"a2"}
    assert any("Latin-1" in p for p in problems)


def _html_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_every_answer_span_is_in_its_rendered_documents(
    td: Any, built: tuple[Path, dict[str, Any]], committed_problems: list[str]
) -> None:
    out, manifest = built
    questions = td.load_questions()
    broken = {p.split(":")[0] for p in committed_problems}
    for q in questions:
        if q["kind"] != "answerable" or q["id"] in broken:
            continue
        entry = manifest["modules"][q["doc"]]
        page = (out / entry["files"]["html"]).read_text(encoding="utf-8")
        assert td.find_span(_html_text(page), q["answer"]), (q["id"], q["answer"])
        assert (out / entry["files"]["pdf"]).stat().st_size > 0


def test_committed_questions_are_shaped_as_asked(td: Any) -> None:
    rows = td.load_questions()
    kinds = Counter(r["kind"] for r in rows)
    assert set(kinds) == {"answerable", "near_miss", "nonexistent"}
    assert len({r["id"] for r in rows}) == len(rows)
    share = {k: n / len(rows) for k, n in kinds.items()}
    assert 0.45 <= share["answerable"] <= 0.65
    assert 0.15 <= share["near_miss"] <= 0.35
    assert 0.10 <= share["nonexistent"] <= 0.30
    assert all(r.get("absent") for r in rows if r["kind"] == "nonexistent")
    # Questions are the team's own words, not copied sentences of the reference.
    for r in rows:
        if r["kind"] == "answerable":
            assert r["answer"].casefold() not in r["question"].casefold(), r["id"]


def test_answer_eval_reports_topics_by_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    import answer_eval

    assert "topics" in answer_eval.RENDERED_SETS
    record = {
        "kind": "answerable",
        "format": "pdf",
        "refused": False,
        "holds_gold": True,
        "score": 0.9,
        "quotes": 1,
        "quotes_at_span": 1,
        "locator_ok": True,
        "failure": None,
    }
    result = {
        "set": "topics",
        "info": {"split": "heldout"},
        "skipped": {},
        "ingest_seconds": 1.0,
        "engines_agree": 1.0,
        "engines": {
            name: {
                **answer_eval.summarize([record], ("near_miss", "nonexistent")),
                "ms_p50": 1.0,
                "by_format": answer_eval.by_format([record], ("near_miss", "nonexistent")),
            }
            for name in answer_eval.ENGINES
        },
    }
    table = answer_eval.tables([result])
    assert "topics set by the format each document was ingested in" in table
    assert json.dumps(result)  # what write_results stores is plain JSON
