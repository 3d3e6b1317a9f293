"""Quote or refuse on the dev sets, today's engine side by side with the previous gate.

    python bench/answer_eval.py [--sets squad,pydoc,topics,library,cli,readmes,records]
                                [--split heldout]
                                [--limit N] [--formats mixed] [--bases DIR] [--name answer]

Sets (loaded by ``bench/answer_sets.py``): the public SQuAD split in ../shared/eval/qa,
the pydoc set (54 standard-library modules rebuilt by
``bench/data/answer/build_docs.py``), the topics set (the Language Reference
sections of ``pydoc_data.topics``, rebuilt by ``bench/data/topics/build_docs.py``)
the library set (32 other standard-library modules, rebuilt by
``bench/data/library/build_docs.py``) and the cli set (the ``--help`` option
lists of the interpreter and 34 standard-library tools, rebuilt by
``bench/data/cli/build_docs.py``) and the readmes set (the project READMEs of
36 third-party distributions installed in the venv, licences stripped, rebuilt by
``bench/data/readmes/build_docs.py``) and the records set (those distributions'
metadata headers, "Name: value" fields as mail headers and Debian's control files
write them, licence fields dropped, rebuilt by ``bench/data/records/build_docs.py``);
the last five are asked only when named and check that what was tuned on the first
two carries over. For the six rendered sets ``--formats mixed`` puts txt, md, html and pdf in one base, ``all``
ingests every format of every document. Each set goes into a
fresh MemoBase with the offline MiniLM int8 embedder; every question is asked, in
extractive mode, of two engines over that same base:

* ``engine``: ``GuardedAnswerer`` as the code on this branch builds it;
* ``legacy``: the two-feature gate and sentence picker as they stood before issue 20
  (``bench/legacy_gate.py``, frozen), on the same retrieval.

Reported per set and engine: answerable questions answered with the gold answer
inside a verified quote, answered with quotes that miss it, refused; the share of
each refusal kind refused (its complement is false answers); answer precision
(answers holding the gold answer / all answers given, over every kind); the gate's
ROC AUC (answerable against the refusal kinds, on the score each engine returns);
locator correctness (the cited PDF page / Markdown heading of a quote holding the
gold answer is where the answer is); quotes found at their reported offsets; the
median time to answer one question (``ms_p50``: search, gate and answer); and,
for today's engine, why answerable questions missed the gold answer: the right
passage was not among the chunks read, the gate refused, the answer was refused
after the pick, or another sentence was picked.
``--split heldout`` asks only the held-out half of each set (the half
``bench/calibrate_gate.py`` never fits on; ``train`` the other, ``all`` both);
``--limit N`` takes N questions of each kind spread over the set (a quick run);
``--bases DIR`` keeps the ingested bases for the next run.
Results: bench/results/NAME.json and NAME.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from _common import markdown_table, write_results
from answer_sets import (
    RENDERED_SETS,
    SETS,
    SPLITS,
    AnswerSet,
    EvalQuestion,
    build_docs_module,
    load_set,
)
from legacy_gate import LegacyAnswerer

from memo_core.answer.engine import Explanation, GuardedAnswerer
from memo_core.answer.sentences import sentence_around
from memo_core.embedders import default_local_embedder
from memo_core.errors import MemoError
from memo_core.kb import MemoBase

ENGINES = ("engine", "legacy")


@dataclass(frozen=True)
class Quote:
    """One quote an engine showed, reduced to what the evaluation checks."""

    text: str
    chunk_id: str
    start: int
    end: int
    source: str
    locator: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    refused: bool
    score: float
    quotes: tuple[Quote, ...]
    #: The chunks the answer read and whether the gate passed them (None: not known).
    read: tuple[str, ...] | None = None
    gate_passed: bool | None = None


def _outcome(refused: bool, score: float, cited: Sequence[Any]) -> Outcome:
    """Citations (engine) and LegacyQuotes (legacy) share these attribute names."""
    quotes = tuple(
        Quote(c.quote, c.chunk_id, c.start, c.end, c.source, dict(c.locator)) for c in cited
    )
    return Outcome(refused, score, quotes)


def _askers(kb: MemoBase) -> dict[str, Callable[[str], Outcome]]:
    engine = GuardedAnswerer(kb)
    legacy = LegacyAnswerer(kb)

    def ask_engine(question: str) -> Outcome:
        explanation = Explanation(question)
        result = engine.ask(question, explanation=explanation)
        cited = getattr(result, "citations", ())
        outcome = _outcome(result.refused, float(result.gate_score or 0.0), cited)
        return replace(
            outcome,
            read=tuple(c["chunk_id"] for c in explanation.candidates),
            gate_passed=explanation.gate.passed if explanation.gate else None,
        )

    def ask_legacy(question: str) -> Outcome:
        result = legacy.ask(question)
        return _outcome(result.refused, result.score, result.quotes)

    return {"engine": ask_engine, "legacy": ask_legacy}


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, ties counted half."""
    if not positives or not negatives:
        return None
    ordered = sorted([(s, 1) for s in positives] + [(s, 0) for s in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][0] == ordered[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2  # ranks i+1..j share their mean
        rank_sum += mean_rank * sum(label for _, label in ordered[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def _locator_ok(q: EvalQuestion, quote: Quote) -> bool | None:
    """Whether a gold-holding quote cites where the answer is (None: no locator to check)."""
    suffix = Path(quote.source).suffix.lower()
    if suffix == ".pdf":
        return quote.locator.get("page") in q.gold_pages
    if suffix == ".md":
        return quote.locator.get("heading") in q.gold_headings
    return None


def judge(
    q: EvalQuestion,
    outcome: Outcome,
    chunk_text: Callable[[str], str],
    normalize: Callable[[str], str],
    in_document: Callable[[Quote], tuple[str, int, int]] | None = None,
) -> dict[str, Any]:
    """One question's record: refused, gold in a quote, locator, quotes at their offsets
    in their document, and quotes that are not whole sentences of it (a sentence a
    chunk cut at its edge, quoted as if it began there).

    ``in_document(quote)``: its document's text and the quote's span in it (the
    quote's offsets are relative to its chunk's start; the sentence may reach past
    the chunk). Without it, quotes are checked against their chunk's text."""
    spans = [
        in_document(x) if in_document else (chunk_text(x.chunk_id), x.start, x.end)
        for x in outcome.quotes
    ]
    at_span = sum(
        text[a:b].strip() == x.text.strip()
        for x, (text, a, b) in zip(outcome.quotes, spans, strict=True)
    )
    partial = sum(sentence_around(text, a, b) != (a, b) for text, a, b in spans)
    record: dict[str, Any] = {
        "id": q.id,
        "kind": q.kind,
        "format": q.format,
        "refused": outcome.refused,
        "score": outcome.score,
        "quotes": len(outcome.quotes),
        "quotes_at_span": at_span,
        "partial_sentences": partial,
        "holds_gold": False,
        "locator_ok": None,
        "failure": None,
        # Which document the first quote came from (its text stays out of the committed
        # results: the documents are third-party and rebuilt, never committed).
        "quoted_from": Path(outcome.quotes[0].source).name if outcome.quotes else None,
    }
    if q.kind == "answerable" and not outcome.refused and q.answer:
        gold = normalize(q.answer)
        holding = [x for x in outcome.quotes if gold in normalize(x.text)]
        record["holds_gold"] = bool(holding)
        checks = [ok for ok in (_locator_ok(q, x) for x in holding) if ok is not None]
        if checks:
            record["locator_ok"] = any(checks)
    if q.kind == "answerable" and q.answer and not record["holds_gold"]:
        record["failure"] = _failure(q.answer, outcome, chunk_text, normalize)
    return record


#: Why an answerable question got no quote holding its gold answer, in this order.
FAILURES = ("not_retrieved", "gate_refused", "refused_after_pick", "wrong_sentence")


def _failure(
    answer: str,
    outcome: Outcome,
    chunk_text: Callable[[str], str],
    normalize: Callable[[str], str],
) -> str | None:
    """The first of :data:`FAILURES` that explains a miss (None: the engine does not
    say what it read): the gold answer is in none of the chunks read; the gate
    refused them; the answer was refused after the pick (no verified quote, or
    the quotes miss a number or name of the question); another sentence was picked."""
    if outcome.read is None:
        return None
    gold = normalize(answer)
    if not any(gold in normalize(chunk_text(c)) for c in outcome.read):
        return "not_retrieved"
    if outcome.gate_passed is False:
        return "gate_refused"
    return "refused_after_pick" if outcome.refused else "wrong_sentence"


def summarize(records: list[dict[str, Any]], refusal_kinds: Sequence[str]) -> dict[str, Any]:
    def share(rows: list[dict[str, Any]], key: str) -> float | None:
        return sum(bool(r[key]) for r in rows) / len(rows) if rows else None

    answerable = [r for r in records if r["kind"] == "answerable"]
    answered = [r for r in records if not r["refused"]]
    out: dict[str, Any] = {
        "questions": len(records),
        "answerable": len(answerable),
        "answerable_with_gold": share(answerable, "holds_gold"),
        "answerable_without_gold": (
            sum(not r["refused"] and not r["holds_gold"] for r in answerable) / len(answerable)
            if answerable
            else None
        ),
        "answerable_refused": share(answerable, "refused"),
        "answers": len(answered),
        "answer_precision": (
            sum(r["holds_gold"] for r in answered) / len(answered) if answered else None
        ),
    }
    negatives: list[float] = []
    for kind in refusal_kinds:
        rows = [r for r in records if r["kind"] == kind]
        out[f"{kind}_refused"] = share(rows, "refused")
        out[f"{kind}_count"] = len(rows)
        out[f"roc_auc_vs_{kind}"] = roc_auc(
            [r["score"] for r in answerable], [r["score"] for r in rows]
        )
        negatives += [r["score"] for r in rows]
    out["roc_auc"] = roc_auc([r["score"] for r in answerable], negatives)
    if answerable and all(r["holds_gold"] or r["failure"] for r in answerable):
        for failure in FAILURES:
            out[f"answerable_{failure}"] = sum(r["failure"] == failure for r in answerable) / len(
                answerable
            )
    located = [r for r in answerable if r["locator_ok"] is not None]
    out["locator_checked"] = len(located)
    out["locator_correct"] = share(located, "locator_ok")
    quotes = sum(r["quotes"] for r in records)
    out["quotes_at_span"] = sum(r["quotes_at_span"] for r in records) / quotes if quotes else None
    out["partial_sentences"] = sum(r.get("partial_sentences", 0) for r in records)
    return out


def by_format(records: list[dict[str, Any]], refusal_kinds: Sequence[str]) -> dict[str, Any]:
    formats = sorted({r["format"] for r in records if r["format"]})
    return {f: summarize([r for r in records if r["format"] == f], refusal_kinds) for f in formats}


def evaluate(answer_set: AnswerSet, embedder: Any, bases: Path | None = None) -> dict[str, Any]:
    normalize = build_docs_module().normalize
    started = time.perf_counter()
    with answer_set.open_base(embedder, keep=bases) as kb:
        ingest_seconds = time.perf_counter() - started
        askers = _askers(kb)
        cache: dict[str, str] = {}

        chunks: dict[str, Any] = {}
        documents: dict[str, str] = {}

        def chunk_text(chunk_id: str) -> str:
            if chunk_id not in cache:
                cache[chunk_id] = kb.get_chunks([chunk_id])[0].text
            return cache[chunk_id]

        def in_document(quote: Quote) -> tuple[str, int, int]:
            if quote.chunk_id not in chunks:
                chunks[quote.chunk_id] = kb.get_chunks([quote.chunk_id])[0]
            chunk = chunks[quote.chunk_id]
            if chunk.document_id not in documents:
                documents[chunk.document_id] = (
                    kb.store.document_text(kb.owner, chunk.document_id) or ""
                )
            return documents[chunk.document_id], chunk.start + quote.start, chunk.start + quote.end

        records: dict[str, list[dict[str, Any]]] = {name: [] for name in ENGINES}
        seconds: dict[str, list[float]] = {name: [] for name in ENGINES}
        errors: dict[str, list[str]] = {name: [] for name in ENGINES}
        agree = 0
        for q in answer_set.questions:
            outcomes = {}
            for name, ask in askers.items():
                t = time.perf_counter()
                try:
                    outcomes[name] = ask(q.question)
                except MemoError as exc:  # counted and shown, not a lost run
                    errors[name].append(f"{q.id}: {type(exc).__name__}: {exc}")
                    outcomes[name] = Outcome(True, 0.0, ())
                seconds[name].append(time.perf_counter() - t)
                records[name].append(judge(q, outcomes[name], chunk_text, normalize, in_document))
            e, legacy = outcomes["engine"], outcomes["legacy"]
            agree += e.refused == legacy.refused and [x.text for x in e.quotes] == [
                x.text for x in legacy.quotes
            ]
    n = max(1, len(answer_set.questions))
    result: dict[str, Any] = {
        "set": answer_set.name,
        "info": answer_set.info,
        "skipped": dict(answer_set.skipped),
        "ingest_seconds": round(ingest_seconds, 1),
        "engines_agree": agree / n,
        "engines": {},
    }
    for name in ENGINES:
        summary = summarize(records[name], answer_set.refusal_kinds)
        summary["ms_per_question"] = round(1000 * sum(seconds[name]) / n, 1)
        summary["ms_p50"] = round(1000 * statistics.median(seconds[name] or [0.0]), 1)
        summary["errors"] = errors[name]
        if answer_set.name in RENDERED_SETS:
            summary["by_format"] = by_format(records[name], answer_set.refusal_kinds)
        result["engines"][name] = summary
    result["records"] = records
    return result


def _fmt(v: Any) -> str:
    return "" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def tables(results: list[dict[str, Any]]) -> str:
    headers = [
        "set",
        "gate",
        "answerable with gold",
        "answered, gold missing",
        "answerable refused",
        "refused (by kind)",
        "answer precision",
        "ROC AUC",
        "locator correct",
        "quotes at span",
        "partial sentences quoted",
    ]
    rows = []
    for res in results:
        for name in ENGINES:
            s = res["engines"][name]
            kinds = [k for k in s if k.endswith("_refused") and not k.startswith("answerable")]
            refused = ", ".join(f"{k[: -len('_refused')]} {_fmt(s[k])}" for k in kinds)
            rows.append(
                [
                    res["set"],
                    "today" if name == "engine" else "previous (frozen)",
                    _fmt(s["answerable_with_gold"]),
                    _fmt(s["answerable_without_gold"]),
                    _fmt(s["answerable_refused"]),
                    refused,
                    _fmt(s["answer_precision"]),
                    _fmt(s["roc_auc"]),
                    f"{_fmt(s['locator_correct'])} of {s['locator_checked']}",
                    _fmt(s["quotes_at_span"]),
                    str(s.get("partial_sentences", "")),
                ]
            )
    out = [markdown_table(headers, rows)]
    for res in results:
        line = (
            f"- {res['set']}: {res['engines']['engine']['questions']} questions "
            f"({res['info'].get('split', 'all')}), "
            f"ingest {res['ingest_seconds']} s, the two gates give the same outcome on "
            f"{res['engines_agree']:.1%} of questions; ms per question (p50): today "
            f"{res['engines']['engine']['ms_p50']}, previous {res['engines']['legacy']['ms_p50']}"
        )
        if res["skipped"]:
            line += f"; left out: {res['skipped']}"
        out.append(line)
        if res["set"] in RENDERED_SETS:
            fmt_rows = []
            for name in ENGINES:
                for fmt, s in res["engines"][name]["by_format"].items():
                    refused = [s.get(f"{k}_refused") for k in ("near_miss", "nonexistent")]
                    fmt_rows.append(
                        [
                            "today" if name == "engine" else "previous",
                            fmt,
                            _fmt(s["answerable_with_gold"]),
                            _fmt(refused[0]),
                            _fmt(refused[1]),
                            _fmt(s["answer_precision"]),
                            f"{_fmt(s['locator_correct'])} of {s['locator_checked']}",
                        ]
                    )
            out.append(f"\n{res['set']} set by the format each document was ingested in:\n")
            out.append(
                markdown_table(
                    [
                        "gate",
                        "format",
                        "answerable with gold",
                        "near_miss refused",
                        "nonexistent refused",
                        "answer precision",
                        "locator correct",
                    ],
                    fmt_rows,
                )
            )
    split_rows = [
        [res["set"], _fmt(s["answerable_with_gold"])]
        + [_fmt(s[f"answerable_{f}"]) for f in FAILURES]
        for res in results
        if f"answerable_{FAILURES[0]}" in (s := res["engines"]["engine"])
    ]
    if split_rows:
        out.append("\nWhy answerable questions got no quote holding the gold answer (today):\n")
        out.append(
            markdown_table(
                [
                    "set",
                    "with gold",
                    "right passage not read (top k)",
                    "refused by the gate",
                    "refused after the pick",
                    "another sentence picked",
                ],
                split_rows,
            )
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="squad,pydoc", help=f"comma-separated: {', '.join(SETS)}")
    parser.add_argument("--limit", type=int, default=0, help="questions per kind (0 = all)")
    parser.add_argument(
        "--formats",
        default="mixed",
        help="the rendered sets' documents: mixed, all, txt, md, html or pdf",
    )
    parser.add_argument("--split", default="all", choices=SPLITS, help="which questions to ask")
    parser.add_argument("--bases", type=Path, help="keep the ingested bases here for reuse")
    parser.add_argument("--name", default="answer", help="results file name")
    args = parser.parse_args()
    embedder = default_local_embedder()
    results = []
    for name in args.sets.split(","):
        options: dict[str, Any] = {"limit": args.limit, "split": args.split}
        if name in RENDERED_SETS:
            options["formats"] = args.formats
        results.append(evaluate(load_set(name, **options), embedder, args.bases))
        print(f"{name} done", flush=True)
    table = tables(results)
    payload = {
        "split": args.split,
        "limit": args.limit,
        "formats": args.formats,
        "sets": [{k: v for k, v in r.items() if k != "records"} for r in results],
        "records": {r["set"]: r["records"] for r in results if r["set"] in RENDERED_SETS},
    }
    write_results(args.name, payload, table)
    print(table)


if __name__ == "__main__":
    main()
