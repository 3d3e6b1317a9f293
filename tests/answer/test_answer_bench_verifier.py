"""bench/verifier.py on a tiny hand-made QA set: every perturbation kind is built and rejected."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench(
    load_bench: Callable[[str], contextlib.AbstractContextManager[ModuleType]],
) -> Iterator[ModuleType]:
    with load_bench("verifier") as module:
        yield module


CORPUS = [
    {"id": "p1", "text": "The initial term is 24 months. The Supplier shall not assign the "
     "contract without consent. It was signed in Lyon by Alice Moreau."},
    {"id": "p2", "text": "Penguins cannot fly. Emperor penguins breed during the Antarctic "
     "winter, walking 120 kilometres to their colonies."},
    {"id": "p3", "text": "The museum was renovated in 1998. Its collection includes 4,000 "
     "paintings and is known for prestigious exhibitions."},
]  # fmt: skip
QUESTIONS = [
    {"id": "q1", "question": "How long is the term?", "kind": "answerable",
     "paragraph_id": "p1", "answer": "24 months"},
    {"id": "q2", "question": "Who signed it?", "kind": "answerable",
     "paragraph_id": "p1", "answer": "Alice Moreau"},
    {"id": "q3", "question": "How far do they walk?", "kind": "answerable",
     "paragraph_id": "p2", "answer": "120 kilometres"},
    {"id": "q4", "question": "What can penguins not do?", "kind": "answerable",
     "paragraph_id": "p2", "answer": "fly"},
    {"id": "q5", "question": "When was it renovated?", "kind": "answerable",
     "paragraph_id": "p3", "answer": "1998"},
    {"id": "q6", "question": "What is it known for?", "kind": "answerable",
     "paragraph_id": "p3", "answer": "prestigious exhibitions"},
    {"id": "q7", "question": "Who?", "kind": "unanswerable", "paragraph_id": "p3", "answer": None},
]  # fmt: skip


def _write(tmp: Path) -> Path:
    qa = tmp / "qa"
    qa.mkdir()
    (qa / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in CORPUS) + "\n")
    (qa / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in QUESTIONS) + "\n")
    return qa


def test_benchmark_meets_its_targets_on_a_small_set(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qa = _write(tmp_path)
    out = tmp_path / "verifier.json"
    assert bench.main(["--qa", str(qa), "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["questions"] == 6  # the unanswerable one is not used
    kinds = report["kinds"]
    for kind in (*bench.TRUE_KINDS, "number_changed", "negation_inserted", "answer_swapped",
                 "truncated_two_words"):  # fmt: skip
        assert kinds[kind]["n"] > 0, kind
    assert report["perturbed_accepted"] == 0
    assert report["true_acceptance"] == 1.0 and report["targets_met"]
    assert "| number_changed | reject |" in capsys.readouterr().out


def test_missing_data_is_skipped_with_a_message(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(["--qa", str(tmp_path / "absent")]) == 0
    assert "skipped" in capsys.readouterr().out


def test_perturbations_change_what_they_claim(bench: ModuleType) -> None:
    rng = random.Random(1)
    s = "The initial term is 24 months and cannot be renewed."
    changed = bench.change_number(s, "24 months", rng)
    assert changed != s and "24" not in changed
    assert bench.insert_negation("Penguins walk far.", 9) == "Penguins not walk far."
    assert bench.insert_negation("The term is long.", 0) == "The term is not long."
    assert bench.remove_negation(s) == "The initial term is 24 months and can be renewed."
    assert bench.remove_negation("The term is long.") is None
    two = bench.truncated_two_words(s, rng)
    assert two is not None and len(two.split()) == 2 and not bench.present(two, s)
    stub = bench.stub_at(s, s.index("24"), rng)
    assert stub in ("24 months", "24 months and") and bench.present(stub, s)
    cut = bench.cut_before_condition("The tenant may sublet the flat unless told.", rng)
    assert cut == "The tenant may sublet the flat."
    vocabulary = frozenset({"shell", "shall", "goods"})
    swapped = bench.substitute_word("The seller shall ship goods.", rng, vocabulary)
    assert swapped == "The seller shell ship goods."
    assert bench.same_answer("the Supreme Court", "Supreme Court")  # no swap: one answer
    assert not bench.same_answer("the Supreme Court", "Court")
    noisy = bench.ocr_noise(s, rng)
    assert noisy is not None and noisy != s and "24" in noisy
