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
    lines = (BENCH / "data" / "answer" / "questions.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in lines.splitlines()]
    kinds = {r["kind"] for r in rows}
    assert kinds == {"answerable", "near_miss", "nonexistent"}
    assert len({r["id"] for r in rows}) == len(rows)
    assert all(r["answer"].strip() for r in rows if r["kind"] == "answerable")
    assert all(r.get("absent") for r in rows if r["kind"] == "nonexistent")


@pytest.fixture
def answer_eval(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(BENCH))
    import answer_eval

    return answer_eval


def test_roc_auc_hand_worked(answer_eval) -> None:  # type: ignore[no-untyped-def]
    # Pairs: 0.9>0.5, 0.9>0.1, 0.5=0.5 (half), 0.5>0.1 -> 3.5 of 4.
    assert answer_eval.roc_auc([0.9, 0.5], [0.5, 0.1]) == pytest.approx(0.875)
    assert answer_eval.roc_auc([0.2], [0.8]) == 0.0
    assert answer_eval.roc_auc([], [0.1]) is None


def test_judge_and_summary(answer_eval, bd) -> None:  # type: ignore[no-untyped-def]
    from answer_sets import EvalQuestion

    chunk = "The kettle boils up to two litres. It switches off by itself."
    q = EvalQuestion("a", "How much?", "answerable", answer="two litres", gold_pages=frozenset({3}))
    right = answer_eval.Quote(
        "The kettle boils up to two litres.", "c1", 0, 34, "k.pdf", {"page": 3}
    )
    wrong_page = answer_eval.Quote(right.text, "c1", 0, 34, "k.pdf", {"page": 4})
    off = answer_eval.Quote("It switches off by itself.", "c1", 3, 20, "k.pdf", {"page": 3})

    def judged(*quotes, refused=False):  # type: ignore[no-untyped-def]
        outcome = answer_eval.Outcome(refused, 0.7, tuple(quotes))
        return answer_eval.judge(q, outcome, lambda _: chunk, bd.normalize)

    good = judged(right)
    assert good["holds_gold"] and good["locator_ok"] is True and good["quotes_at_span"] == 1
    assert judged(wrong_page)["locator_ok"] is False
    missed = judged(off)
    assert not missed["holds_gold"] and missed["quotes_at_span"] == 0  # offsets 3:20 are not it
    refusal_q = EvalQuestion("n", "Colour?", "near_miss")
    false_answer = answer_eval.judge(
        refusal_q, answer_eval.Outcome(False, 0.9, (off,)), lambda _: chunk, bd.normalize
    )
    s = answer_eval.summarize([good, missed, false_answer], ["near_miss"])
    assert s["answerable_with_gold"] == 0.5
    assert s["answer_precision"] == pytest.approx(1 / 3)  # one of three answers holds its gold
    assert s["near_miss_refused"] == 0.0
    assert s["locator_correct"] == 1.0 and s["locator_checked"] == 1


def test_misses_are_split_by_cause(answer_eval, bd) -> None:  # type: ignore[no-untyped-def]
    from answer_sets import EvalQuestion

    chunks = {"c1": "The kettle boils up to two litres. It switches off by itself.", "c2": "Tea."}
    q = EvalQuestion("a", "How much?", "answerable", answer="two litres")
    off = answer_eval.Quote("It switches off by itself.", "c1", 35, 61, "k.txt", {})

    def failure(read, passed, *quotes, refused=False):  # type: ignore[no-untyped-def]
        outcome = answer_eval.Outcome(refused, 0.5, tuple(quotes), read, passed)
        return answer_eval.judge(q, outcome, chunks.__getitem__, bd.normalize)["failure"]

    assert failure(("c2",), True, off) == "not_retrieved"  # the gold is in c1, not read
    assert failure(("c2", "c1"), False, refused=True) == "gate_refused"
    assert failure(("c1",), True, refused=True) == "refused_after_pick"
    assert failure(("c1",), True, off) == "wrong_sentence"
    assert failure(None, None, off) is None  # an engine that does not say what it read
    records = [
        answer_eval.judge(
            q,
            answer_eval.Outcome(False, 0.5, (off,), ("c1",), True),
            chunks.__getitem__,
            bd.normalize,
        ),
        answer_eval.judge(
            q, answer_eval.Outcome(True, 0.1, (), ("c2",), False), chunks.__getitem__, bd.normalize
        ),
    ]
    s = answer_eval.summarize(records, [])
    assert s["answerable_wrong_sentence"] == 0.5 and s["answerable_not_retrieved"] == 0.5
    assert s["answerable_gate_refused"] == 0.0


def test_legacy_answerer_quotes_or_refuses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    from legacy_gate import LegacyAnswerer

    from memo_core.kb import MemoBase

    texts = [
        "The lighthouse keeper lit the lamp at dusk every evening.",
        "Granite quarries supplied the stone for the harbour wall.",
        "Fishing boats returned before the storm reached the bay.",
        "The village bakery sold rye bread on Saturdays.",
    ]
    kb = MemoBase(tmp_path / "kb.db", embedder=None)
    try:
        kb.add_texts(texts, ids=[f"t{i}" for i in range(len(texts))])
        legacy = LegacyAnswerer(kb)
        answered = legacy.ask("When did the lighthouse keeper light the lamp?")
        assert not answered.refused
        chunk = kb.get_chunks([answered.quotes[0].chunk_id])[0].text
        first = answered.quotes[0]
        assert chunk[first.start : first.end] == first.quote
        assert "dusk" in answered.text
        refused = legacy.ask("Which volcano erupted in Iceland during 2010?")
        assert refused.refused and refused.score < refused.threshold
    finally:
        kb.close()
