"""Why answerable questions miss their gold answer: the passage not read, another sentence.

    python bench/misses.py [--sets pydoc,topics,library] [--split train] [--bases DIR]
        [--out FILE.jsonl] [--name misses]

Every answerable question of each set is asked of the engine in extractive mode
(``GuardedAnswerer``, as ``answer_eval.py`` asks it) and each miss gets its cause:

- **not read** (no hit the answer read holds the gold answer), split by why: *in no
  chunk* (no chunk of the base holds it as the evaluation normalises text: a chunk
  boundary or a rendering cuts it); *held back by diversifying* (a hit holding it
  ranked among the best ``k`` and was left out for another document); *in the
  pool past k* (among the ``2k`` hits searched, past the best ``k``); *demoted as
  repeated text* (it reaches the best ``2k`` when repeated text is not demoted);
  *keyword match cut off* (it reaches them when no keyword match is cut off for
  being far weaker than the best one); else *ranked past the pool*, with the
  chunk's fused, keyword and vector ranks in a deep search.
- **another sentence** (the gate passed and a quote was shown, none holding the
  gold), split by where the gold sentence stood among the picker's candidates
  (``extractive.pick_candidates`` over the passages as the engine reads them):
  *scored* (among the candidates the weights score), *past the scored ones* (a
  lower lexical pre-score), *no candidate* (no candidate sentence holds the gold:
  it shares too little of the question's words, or the splitter cut it), and by
  what the winning candidate is: a call signature or the sentence under one, the
  first sentence under a heading, the sentence just before or after the gold one,
  a sentence of the same passage, or of another passage.

Gate refusals and refusals after the pick are counted, not split (the gate has its
own command, ``calibrate_gate.py``). The counts go to bench/results/NAME.{json,md};
``--out`` writes one line per miss with the question, the gold answer, the winning
sentence and the ranks, which hold the documents' text and so stay out of the
committed results.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from _common import markdown_table, write_results
from answer_sets import build_docs_module, load_set

from memo_core.answer.engine import Explanation, GuardedAnswerer
from memo_core.answer.extractive import ExtractiveConfig, PickCandidate, pick_candidates
from memo_core.answer.passages import sections, whole_sentences
from memo_core.embedders import default_local_embedder
from memo_core.kb import MemoBase
from memo_core.kb.flags import INSTRUCTIONS

NOT_READ = (
    "in no chunk",
    "held back by diversifying",
    "in the pool past k",
    "demoted as repeated text",
    "keyword match cut off",
    "ranked past the pool",
)
GOLD_AT = ("scored", "past the scored ones", "no candidate")
WINNER = (
    "signature",
    "under a signature",
    "under a heading",
    "sentence before the gold",
    "sentence after the gold",
    "same passage",
    "another passage",
)
#: How deep the search for an unread gold chunk's ranks looks.
DEEP = 60


def _rank(hits: list[Any], holders: set[str]) -> int | None:
    """The 1-based rank of the first hit in ``holders`` (None: none is there)."""
    return next((i for i, h in enumerate(hits, start=1) if h.chunk_id in holders), None)


def why_not_read(
    kb: MemoBase, engine: GuardedAnswerer, question: str, holders: set[str]
) -> dict[str, Any]:
    """Why no chunk in ``holders`` (the chunks holding the gold) was read."""
    if not holders:
        return {"cause": NOT_READ[0]}
    k = engine.k
    vector = engine.similarity.query_vector(question) if engine.similarity else None
    pool = kb.search(question, k=2 * k, query_vector=vector)
    deep = kb.search(question, k=DEEP, query_vector=vector)
    ranks = {
        "fused": _rank(deep, holders),
        "keyword": _rank(kb.search(question, k=DEEP, mode="keyword"), holders),
        "vector": _rank(kb.search(question, k=DEEP, mode="vector", query_vector=vector), holders),
    }
    at = _rank(pool, holders)
    if at is not None:
        return {"cause": NOT_READ[1] if at <= k else NOT_READ[2], "pool_rank": at, **ranks}
    settings = kb.searcher.settings
    for cause, change in (
        (NOT_READ[3], {"repeated_penalty": 0.0}),
        (NOT_READ[4], {"keyword_cutoff": 0.0}),
    ):
        kb.searcher.settings = replace(settings, **change)
        try:
            reached = _rank(kb.search(question, k=2 * k, query_vector=vector), holders)
        finally:
            kb.searcher.settings = settings
        if reached is not None:
            return {"cause": cause, **ranks}
    return {"cause": NOT_READ[5], **ranks}


def _winner_kind(win: PickCandidate, gold: PickCandidate | None, texts: dict[str, str]) -> str:
    f = win.features
    if f.get("signature"):
        return WINNER[0]
    if f.get("after_signature"):
        return WINNER[1]
    if f.get("after_heading"):
        return WINNER[2]
    if gold is None or gold.chunk_id != win.chunk_id:
        return WINNER[6]
    text = texts[win.chunk_id]

    def adjacent(a: int, b: int) -> bool:  # only blanks and gutters between
        return a <= b and not text[a:b].strip(" \t\n|")

    if adjacent(win.end, gold.start):
        return WINNER[3]
    if adjacent(gold.end, win.start):
        return WINNER[4]
    return WINNER[5]


def why_other_sentence(
    engine: GuardedAnswerer, question: str, gold: str, normalize: Any
) -> dict[str, Any]:
    """Where the gold sentence stood among the picker's candidates, and what won."""
    hits = engine.retrieve(question)
    passages = [
        p
        for p in whole_sentences(hits, engine.kb.document_slice)  # as the engine reads them
        if INSTRUCTIONS not in p.hit.flags
    ]
    texts = {p.hit.chunk_id: p.hit.text for p in passages}
    pool = pick_candidates(
        question,
        list(texts.items()),
        similarity=engine.similarity,
        stored={p.hit.chunk_id: (p.head, p.head + p.length) for p in passages},
        reader=engine.gate.passage_reader(engine.kb.store),
        sections=sections(p.hit for p in passages),
    )
    weights = ExtractiveConfig().weights_for(engine.gate.passage_reader(engine.kb.store))
    scored = sorted(
        (c for c in pool if c.scored),
        key=lambda c: -sum(getattr(weights, n) * v for n, v in c.features.items()),
    )
    holding = [c for c in pool if gold in normalize(c.text)]
    first = holding[0] if holding else None
    at = GOLD_AT[2] if first is None else GOLD_AT[0] if first.scored else GOLD_AT[1]
    win = scored[0] if scored else None
    return {
        "gold_at": at,
        "gold_position": pool.index(first) if first is not None else None,
        "winner": _winner_kind(win, first, texts) if win is not None else None,
        "winner_text": win.text if win is not None else None,
    }


def run_set(name: str, split: str, bases: Path | None) -> tuple[Counter[str], list[dict[str, Any]]]:
    normalize = build_docs_module().normalize
    answer_set = load_set(name, split=split)
    counts: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    with answer_set.open_base(default_local_embedder(), keep=bases) as kb:
        engine = GuardedAnswerer(kb)
        chunks = kb.filter_chunks()
        for q in answer_set.questions:
            if q.kind != "answerable" or not q.answer:
                continue
            counts["answerable"] += 1
            gold = normalize(q.answer)
            explanation = Explanation(q.question)
            result = engine.ask(q.question, explanation=explanation)
            quotes = [c.quote for c in getattr(result, "citations", ())]
            if any(gold in normalize(x) for x in quotes):
                counts["with gold"] += 1
                continue
            read = {c["chunk_id"] for c in explanation.candidates}
            holders = {h.chunk_id for h in chunks if gold in normalize(h.text)}
            row: dict[str, Any] = {
                "set": name,
                "id": q.id,
                "question": q.question,
                "gold": q.answer,
            }
            if not read & holders:
                row |= {"miss": "not read", **why_not_read(kb, engine, q.question, holders)}
                counts[f"not read: {row['cause']}"] += 1
            elif explanation.gate is not None and not explanation.gate.passed:
                row["miss"] = "gate refused"
            elif result.refused:
                row["miss"] = "refused after the pick"
            else:
                row |= {"miss": "another sentence", "quotes": quotes}
                row |= why_other_sentence(engine, q.question, gold, normalize)
                counts[f"another sentence: gold {row['gold_at']}"] += 1
                counts[f"another sentence: winner {row['winner']}"] += 1
            counts[row["miss"]] += 1
            rows.append(row)
    return counts, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="pydoc,topics,library")
    parser.add_argument("--split", default="train")
    parser.add_argument("--bases", type=Path, help="keep the ingested bases here for reuse")
    parser.add_argument("--out", type=Path, help="one line per miss (holds document text)")
    parser.add_argument("--name", default="misses", help="results file name")
    args = parser.parse_args()
    sets = args.sets.split(",")
    report: dict[str, Any] = {"split": args.split, "sets": {}}
    every: list[dict[str, Any]] = []
    for name in sets:
        counts, rows = run_set(name, args.split, args.bases)
        report["sets"][name] = dict(counts)
        every += rows
    keys = (
        ["answerable", "with gold", "gate refused", "refused after the pick", "not read"]
        + [f"not read: {c}" for c in NOT_READ]
        + ["another sentence"]
        + [f"another sentence: gold {c}" for c in GOLD_AT]
        + [f"another sentence: winner {c}" for c in WINNER]
    )
    rows_out = [[key] + [report["sets"][s].get(key, 0) for s in sets] for key in keys]
    table = markdown_table([f"{args.split} questions", *sets], rows_out)
    print(table)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in every))
    write_results(args.name, report, table)


if __name__ == "__main__":
    main()
