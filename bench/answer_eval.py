"""The guarded loop in extractive mode (no LLM) on ../shared/eval/qa.

    python bench/answer_eval.py [--limit N]

For ``answerable`` questions: how often an answer is given and how often it
contains the gold answer; for ``out_of_base`` and ``unanswerable``: how often
the loop refuses. Every returned quote is checked to sit at its reported span.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

from _common import markdown_table, qa_dir, read_jsonl, write_results

from memo_core.answer.engine import GuardedAnswerer
from memo_core.embedders import default_local_embedder
from memo_core.kb import MemoBase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="questions per kind (0 = all)")
    args = parser.parse_args()
    data = qa_dir()
    corpus = list(read_jsonl(data / "corpus.jsonl"))
    questions = list(read_jsonl(data / "questions.jsonl"))
    if args.limit:
        seen: Counter[str] = Counter()
        kept = []
        for q in questions:
            if seen[q["kind"]] < args.limit:
                seen[q["kind"]] += 1
                kept.append(q)
        questions = kept
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        kb = MemoBase(Path(tmp) / "kb.db", embedder=default_local_embedder())
        kb.add_texts([p["text"] for p in corpus], ids=[p["id"] for p in corpus])
        engine = GuardedAnswerer(kb)
        for q in questions:
            kind = q["kind"]
            counts[f"{kind}:total"] += 1
            result = engine.ask(q["question"])
            if result.refused:
                counts[f"{kind}:refused"] += 1
                continue
            for c in result.citations:
                chunk = kb.get_chunks([c.chunk_id])[0].text
                counts["quotes"] += 1
                counts["quotes_at_span"] += chunk[c.start : c.end] == c.quote
            if kind == "answerable" and q["answer"].lower() in result.text.lower():
                counts[f"{kind}:contains_gold"] += 1
        kb.close()

    def share(key: str, kind: str) -> float:
        return counts[f"{kind}:{key}"] / max(1, counts[f"{kind}:total"])

    result = {
        "answerable_answered": 1 - share("refused", "answerable"),
        "answerable_contains_gold": share("contains_gold", "answerable"),
        "out_of_base_refused": share("refused", "out_of_base"),
        "unanswerable_refused": share("refused", "unanswerable"),
        "quotes_at_reported_span": counts["quotes_at_span"] / max(1, counts["quotes"]),
        "counts": dict(counts),
    }
    table = markdown_table(
        [
            "answerable answered",
            "answerable containing the gold answer",
            "out_of_base refused",
            "unanswerable refused",
            "quotes at their span",
        ],
        [
            [
                result["answerable_answered"],
                result["answerable_contains_gold"],
                result["out_of_base_refused"],
                result["unanswerable_refused"],
                result["quotes_at_reported_span"],
            ]
        ],
    )
    write_results("answer", result, table)
    print(table)


if __name__ == "__main__":
    main()
