"""How the passage reader's batch size weighs on the time to answer a question.

    python bench/reader_batches.py --sets pydoc,cli,records --bases DIR [--sizes 64,1,2,4,8]

The reader (``memo_core/answer/reader.py``) reads a question with each of up to a dozen
sentences through a cross-encoder; a batch is padded to its longest pair, so one long
sentence makes every short one beside it cost as much. ``CrossEncoderReranker`` reads
pairs shortest first, ``batch_size`` at a time. Each held-out question of each set is
asked once per batch size, the sizes taken in turn for every question and each first in
turn (so the machine's load and whatever a first ask warms up fall on all of them alike),
with the reader's cache emptied before each ask. It reports the median and 90th percentile
of milliseconds per question, each size's median as a ratio to the first size's (64: one
batch for all pairs, as fastembed reads them by default), and whether every size gave the
same outcomes (refused or not, the same first quote).
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from _common import markdown_table, median, percentile, timed, write_results
from answer_sets import load_set

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.reader import PassageReader
from memo_core.embedders import default_local_embedder
from memo_core.rerank.providers import CrossEncoderReranker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="pydoc,cli,records")
    parser.add_argument("--sizes", default="64,1,2,4,8", help="batch sizes, the first the base")
    parser.add_argument("--limit", type=int, default=0, help="questions per set (0: all)")
    parser.add_argument("--bases", type=Path, help="keep the ingested bases here for reuse")
    parser.add_argument("--name", default="reader_batches")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    reader = PassageReader.shipped()
    embedder = default_local_embedder()
    rows, payload = [], {}
    for set_name in args.sets.split(","):
        answer_set = load_set(set_name, split="heldout", limit=args.limit)
        times: dict[int, list[float]] = {size: [] for size in sizes}
        outcomes: dict[int, list[tuple[bool, str]]] = {size: [] for size in sizes}
        with answer_set.open_base(embedder, keep=args.bases) as kb:
            engine = GuardedAnswerer(kb)
            engine.ask("warm the models up")
            for n, question in enumerate(answer_set.questions):
                # each size goes first in turn: whatever a first ask warms up (the
                # question's embedding) favours none of them
                for size in sizes[n % len(sizes) :] + sizes[: n % len(sizes)]:
                    CrossEncoderReranker.batch_size = size
                    reader._read.clear()
                    result, ms = timed(partial(engine.ask, question.question))
                    quote = result.citations[0].quote if getattr(result, "citations", ()) else ""
                    times[size].append(ms)
                    outcomes[size].append((result.refused, quote))
        base = median(times[sizes[0]])
        for size in sizes:
            same = outcomes[size] == outcomes[sizes[0]]
            rows.append([set_name, size, median(times[size]), percentile(times[size], 90),
                         median(times[size]) / base, same])  # fmt: skip
        payload[set_name] = {
            "questions": len(answer_set.questions),
            "ms": {size: times[size] for size in sizes},
            "same_outcomes": {size: outcomes[size] == outcomes[sizes[0]] for size in sizes},
        }
    table = markdown_table(
        ["set", "batch size", "ms p50", "ms p90", f"p50 / size {sizes[0]}", "same outcomes"], rows
    )
    write_results(args.name, payload, table)
    print(table)


if __name__ == "__main__":
    main()
