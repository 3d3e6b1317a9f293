"""Fit the extractive picker's weights (``PickWeights``) on the train halves of the dev sets.

    python bench/fit_pick.py [--sets squad,pydoc] [--fit SETS] [--no-reader] [--l2 X]
        [--bases DIR] [--hits DIR] [--name pick]

Every answerable question of the ``--sets`` (``bench/answer_sets.py``) is retrieved
as the engine retrieves it (``GuardedAnswerer.retrieve``), each hit is widened to
whole sentences of its document as the engine reads it (``answer/passages.py``;
chunks flagged as instructions left out), and the picker's
candidates and their features are computed (``memo_core.answer.extractive.
pick_candidates``, with the base's sentence similarity and the passage reader, or
without the reader for ``--no-reader``). A candidate is positive
when it holds the gold answer. The weights are fitted as a listwise (softmax)
ranker on the *train* halves (of the ``--fit`` sets, by default all): the probability mass the softmax of the scores puts
on the question's positive candidates is maximised (questions with no positive
among the scored candidates carry no signal and are left out), with a small L2
penalty. Reported per set on both halves, for the shipped weights and the fitted
ones: how often the first pick holds the gold answer and how often one of the two
picks does (over questions whose gold answer is in a chunk read). ``--hits DIR``
keeps the retrieved hits, so a run after a picker change skips retrieval. Paste
the fitted weights (rounded) by hand into ``READER_WEIGHTS`` (or, for ``--no-reader``,
into ``PickWeights``' defaults): they are code.
Results: bench/results/NAME.json and .md.
"""

from __future__ import annotations

import argparse
import pickle
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from _common import markdown_table, write_results
from answer_sets import build_docs_module, load_set

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.extractive import (
    ExtractiveConfig,
    PickWeights,
    extractive_answer,
    pick_candidates,
)
from memo_core.answer.passages import sections, whole_sentences
from memo_core.answer.reader import PassageReader
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.embedders import default_local_embedder
from memo_core.kb.flags import INSTRUCTIONS
from memo_core.types import Hit

NAMES = tuple(f.name for f in fields(PickWeights))
L2 = 0.01


@dataclass
class Question:
    set: str
    heldout: bool
    question: str
    answer: str
    hits: list[Hit]


def retrieve(sets: list[str], bases: Path | None, cache: Path | None) -> list[Question]:
    embedder = default_local_embedder()
    out: list[Question] = []
    for name in sets:
        stored = cache / f"{name}.pickle" if cache else None
        if stored and stored.exists():
            out += pickle.loads(stored.read_bytes())
            continue
        answer_set = load_set(name)
        rows = []
        with answer_set.open_base(embedder, keep=bases) as kb:
            engine = GuardedAnswerer(kb)
            for q in answer_set.questions:
                if q.kind == "answerable" and q.answer:
                    found = engine.retrieve(q.question)
                    hits = [
                        p.hit
                        for p in whole_sentences(found, kb.document_slice)
                        if INSTRUCTIONS not in p.hit.flags
                    ]
                    rows.append(Question(name, q.heldout, q.question, q.answer, hits))
        if stored:
            stored.parent.mkdir(parents=True, exist_ok=True)
            stored.write_bytes(pickle.dumps(rows))
        out += rows
    return out


def features(
    questions: list[Question], similarity: SentenceSimilarity, reader: PassageReader | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per question: the scored candidates' feature matrix and which hold the gold answer."""
    normalize = build_docs_module().normalize
    out = []
    for q in questions:
        gold = normalize(q.answer)
        pool = pick_candidates(
            q.question,
            [(h.chunk_id, h.text) for h in q.hits],
            similarity=similarity,
            reader=reader,
            sections=sections(q.hits),
        )
        scored = [c for c in pool if c.scored]
        x = np.array([[c.features[n] for n in NAMES] for c in scored]).reshape(-1, len(NAMES))
        y = np.array([gold in normalize(c.text) for c in scored], dtype=float)
        out.append((x, y))
    return out


def fit(data: list[tuple[np.ndarray, np.ndarray]], start: np.ndarray, l2: float = L2) -> np.ndarray:
    """Weights maximising the softmax mass on the positives (gradient ascent, L2)."""
    useful = [(x, y) for x, y in data if y.any() and not y.all()]
    width = max(len(y) for _, y in useful)
    xs = np.zeros((len(useful), width, len(start)))
    ys = np.zeros((len(useful), width))
    mask = np.zeros((len(useful), width), dtype=bool)
    for i, (x, y) in enumerate(useful):
        xs[i, : len(y)], ys[i, : len(y)], mask[i, : len(y)] = x, y, True
    w = start.copy()
    for _ in range(3000):
        s = np.where(mask, xs @ w, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        q = p * ys
        q /= q.sum(axis=1, keepdims=True)  # the softmax restricted to the positives
        grad = np.einsum("qc,qcf->f", q - p, xs) / len(useful) - 2 * l2 * w
        w += 0.5 * grad
    return w


def evaluate(
    questions: list[Question],
    weights: PickWeights,
    similarity: SentenceSimilarity,
    reader: PassageReader | None,
) -> dict[str, float]:
    """First pick / either pick holds the gold answer, over questions whose gold was read."""
    normalize = build_docs_module().normalize
    config = ExtractiveConfig(weights=weights)
    first = either = read = 0
    for q in questions:
        gold = normalize(q.answer)
        if not any(gold in normalize(h.text) for h in q.hits):
            continue
        read += 1
        texts = {h.chunk_id: h.text for h in q.hits}
        picks = extractive_answer(
            q.question,
            list(texts.items()),
            config=config,
            similarity=similarity,
            reader=reader,
            sections=sections(q.hits),
        )
        held = [gold in normalize(texts[c][a:b]) for c, a, b in picks]
        first += bool(held) and held[0]
        either += any(held)
    return {"read": read, "first": first / max(1, read), "either": either / max(1, read)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="squad,pydoc", help="sets to report on")
    parser.add_argument(
        "--fit", help="sets whose train halves the weights are fitted on (default: --sets)"
    )
    parser.add_argument("--bases", type=Path, help="keep the ingested bases here for reuse")
    parser.add_argument("--hits", type=Path, help="keep the retrieved hits here for reuse")
    parser.add_argument("--l2", type=float, default=L2, help="L2 penalty on the weights")
    parser.add_argument(
        "--no-reader",
        action="store_true",
        help="fit the weights that pick without the passage reader (PickWeights' defaults)",
    )
    parser.add_argument("--name", default="pick", help="results file name")
    args = parser.parse_args()
    questions = retrieve(args.sets.split(","), args.bases, args.hits)
    fitted_on = (args.fit or args.sets).split(",")
    train = [q for q in questions if not q.heldout and q.set in fitted_on]
    # One similarity for every pass: its cache embeds each sentence once; one reader too.
    similarity = SentenceSimilarity(default_local_embedder())
    reader = None if args.no_reader else PassageReader(cache_size=1_000_000)
    shipped = ExtractiveConfig().weights_for(reader)
    w = fit(
        features(train, similarity, reader),
        np.array([getattr(shipped, n) for n in NAMES], dtype=float),
        args.l2,
    )
    fitted = PickWeights(**{n: round(float(v), 1) for n, v in zip(NAMES, w, strict=True)})
    rows: list[list[Any]] = []
    report: dict[str, Any] = {"shipped": asdict(shipped), "fitted": asdict(fitted), "sets": {}}
    for name in args.sets.split(","):
        for half in ("train", "heldout"):
            part = [q for q in questions if q.set == name and q.heldout == (half == "heldout")]
            for label, weights in (("shipped", shipped), ("fitted", fitted)):
                r = evaluate(part, weights, similarity, reader)
                report["sets"][f"{name}/{half}/{label}"] = r
                rows.append([name, half, label, r["read"], r["first"], r["either"]])
    table = markdown_table(["set", "half", "weights", "read", "first pick", "either pick"], rows)
    print(table)
    print("fitted:", fitted)
    write_results(args.name, report, table)


if __name__ == "__main__":
    main()
