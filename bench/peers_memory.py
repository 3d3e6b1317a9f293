"""Conversation memory side by side: MemoHood against LangGraph's InMemoryStore with a
semantic index, on the same scenarios with the same embeddings, in one run.

    python bench/peers_memory.py                        # scenarios, capture cost, 1k and 10k facts
    python bench/peers_memory.py --facts 1000,10000,100000

Quality, on ../shared/eval/memory/scenarios.jsonl and on the dev set
bench/data/memory/dev_scenarios.jsonl (scored like bench/memory_eval.py, overall and
by category): the share of probes whose must_include strings are all in what was
recalled, the share of those strings, and the probes where a must_not_include string
(a stale value, another user's, a stranger's or a hypothetical) leaked in. memo answers
a temporal probe from the versions current at its ``as_of``; the LangGraph stores have
no such view and answer it like any other. The LangGraph baselines store the SAME facts
memo's rule extractor finds in each turn (so only the store differs): overwritten
per fact key (subject, attribute), or appended (every version kept); a third
baseline appends every raw user turn, as a store without an extractor would.
For each probe they return as many items as memo's block held for it (its matched facts
plus those filling a small namespace's budget, at least ``recall_k``), with no gate.
A file with a ``split`` (the dev set) is also reported per part, ``dev`` and ``heldout``.

Speed: capture cost per turn (memo: score, extract, supersede, store; LangGraph:
one ``put`` of the turn), and gate + recall latency with 1k / 10k / 100k stored
facts (memo: ``MemoHood.recall``, its Model2Vec gate included; LangGraph:
``store.search``). Every vector, stored facts and messages alike, is computed once
by the shared embedder and looked up by both (a cache in front of the embedder),
so embedding time is excluded for both. Writes bench/results/peers_memory.*.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _common import RESULTS, markdown_table, median, percentile, shared_dir, write_results
from memory_eval import (
    _MESSAGES,
    DEV_SCENARIOS,
    _synthetic_records,
    probe_category,
    score,
)

from memo_core.memory import MemoHood, MemoryConfig, RecallGate
from memo_core.memory.replay import load_scenarios, replay
from memo_core.memory.timeutil import parse_when

log = logging.getLogger("bench.peers_memory")


class CachedEmbedder:
    """The shared embedder with a text -> vector cache, so every store gets the same
    vectors and no text is embedded twice (the first system pays, the others look up)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cache: dict[str, list[float]] = {}

    @property
    def dimensions(self) -> int:
        return int(self.inner.dimensions)

    @property
    def fingerprint(self) -> Any:
        return self.inner.fingerprint

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        todo = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if todo:
            self.cache.update(zip(todo, self.inner.embed_documents(todo), strict=True))
        return [self.cache[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        if text not in self.cache:
            self.cache[text] = self.inner.embed_query(text)
        return self.cache[text]


def langgraph_store(embedder: CachedEmbedder) -> Any:
    from langgraph.store.memory import InMemoryStore

    return InMemoryStore(
        index={"dims": embedder.dimensions, "embed": embedder.embed_documents, "fields": ["text"]}
    )


# -- quality on the scenarios ---------------------------------------------------


def run_scenarios(
    scenarios: list[dict[str, Any]], embedder: CachedEmbedder, folder: Path
) -> dict[str, Any]:
    """memo's replay, and the three LangGraph baselines fed from memo's own extraction."""
    k = MemoryConfig().recall_k
    out: dict[str, Any] = {}
    with MemoHood(folder / "memo.db", embedder=embedder, gate=RecallGate.default()) as memory:
        rows = list(replay(memory, scenarios))
    out["memo"] = score(scenarios, rows)
    shown = {(r["id"], r["probe"]): len(r["facts"]) + len(r["unmatched"]) for r in rows}

    # Turn texts are embedded before timing, for both: the per-turn figures below
    # exclude embedding the turn (memo still embeds the facts it extracts).
    embedder.embed_documents([t["text"] for s in scenarios for t in s["turns"]])
    stores = {name: langgraph_store(embedder) for name in ("overwrite", "append", "turns")}
    capture_ms: list[float] = []
    put_ms: list[float] = []
    lg_rows: dict[str, list[dict[str, Any]]] = {name: [] for name in stores}
    with MemoHood(folder / "extract.db", embedder=embedder) as extractor:
        for scenario in scenarios:
            ns = (str(scenario["user"]),)
            for number, turn in enumerate(scenario["turns"]):
                when = parse_when(turn["t"])
                t0 = time.perf_counter()
                result = extractor.capture(
                    turn["text"], namespace=ns, role=turn.get("role", "user"), at=when
                )
                capture_ms.append((time.perf_counter() - t0) * 1000)
                for fact in result.added:
                    stores["overwrite"].put(ns, fact.key, {"text": fact.statement})
                    stores["append"].put(ns, fact.id, {"text": fact.statement})
                if turn.get("role", "user") == "user":
                    t0 = time.perf_counter()
                    stores["turns"].put(ns, f"{scenario['id']}-{number}", {"text": turn["text"]})
                    put_ms.append((time.perf_counter() - t0) * 1000)
            for index, probe in enumerate(scenario["probes"]):
                limit = max(k, shown[(scenario["id"], index)])
                for name, store in stores.items():
                    items = store.search(ns, query=probe["text"], limit=limit)
                    lg_rows[name].append(
                        {
                            "id": scenario["id"],
                            "probe": index,
                            "gate": "recall",
                            "facts": [item.value["text"] for item in items],
                            "history": [],
                        }
                    )
    for name, rows_ in lg_rows.items():
        out[f"langgraph-{name}"] = score(scenarios, rows_)
    out["categories"] = sorted({probe_category(s, p) for s in scenarios for p in s["probes"]})
    out["capture"] = {
        "memo_capture_ms_median": median(capture_ms),
        "memo_capture_ms_p95": percentile(capture_ms, 95),
        "langgraph_put_turn_ms_median": median(put_ms),
        "langgraph_put_turn_ms_p95": percentile(put_ms, 95),
        "turns": len(capture_ms),
    }
    return out


# -- latency at 1k / 10k / 100k facts -------------------------------------------


def _timed(fn: Callable[[int], Any], n: int) -> list[float]:
    for i in range(min(3, n)):
        fn(i)
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def latency(facts: int, embedder: CachedEmbedder, folder: Path, queries: int) -> dict[str, Any]:
    records = _synthetic_records(facts, seed=7)
    embedder.embed_documents([r["statement"] for r in records])  # once, for both stores
    embedder.embed_documents(list(_MESSAGES))
    now = datetime(2026, 3, 1, tzinfo=UTC)
    user = ("bench-user",)
    with MemoHood(folder / f"lat-{facts}.db", embedder=embedder, gate=RecallGate.default()) as m:
        t0 = time.perf_counter()
        m.import_jsonl(records)
        memo_fill = time.perf_counter() - t0
        memo_ms = _timed(
            lambda i: m.recall(_MESSAGES[i % len(_MESSAGES)], namespace=user, at=now), queries
        )
    store = langgraph_store(embedder)
    t0 = time.perf_counter()
    for r in records:
        store.put(tuple(r["namespace"]), r["key"], {"text": r["statement"]})
    lg_fill = time.perf_counter() - t0
    lg_ms = _timed(
        lambda i: store.search(user, query=_MESSAGES[i % len(_MESSAGES)], limit=8), queries
    )
    return {
        "facts": facts,
        "memo_gate_recall_p50_ms": median(memo_ms),
        "memo_gate_recall_p95_ms": percentile(memo_ms, 95),
        "langgraph_search_p50_ms": median(lg_ms),
        "langgraph_search_p95_ms": percentile(lg_ms, 95),
        "memo_fill_s": memo_fill,
        "langgraph_fill_s": lg_fill,
        "queries": queries,
    }


# -- report ---------------------------------------------------------------------


_SYSTEMS = ("memo", "langgraph-overwrite", "langgraph-append", "langgraph-turns")


def _part(result: dict[str, Any], split: str | None) -> dict[str, Any]:
    return result if split is None else dict(result["splits"][split])


def category_table(quality: dict[str, Any], split: str | None = None) -> str:
    """Per probe category, each system's must_include probe share and leaking probes
    (of the whole file, or of one ``split``)."""
    headers = ["category", "probes"]
    for name in _SYSTEMS:
        headers += [f"{name} must_include", f"{name} leaks"]
    rows = []
    memo = _part(quality["memo"], split)
    for category in memo["by_category"]:
        cells: list[Any] = [category, memo["by_category"][category]["probes"]]
        for name in _SYSTEMS:
            r = _part(quality[name], split)["by_category"][category]
            share = r["must_include_probe_share"]
            cells += ["-" if share is None else share, r["leak_probes"]]
        rows.append(cells)
    return markdown_table(headers, rows)


def report(files: dict[str, dict[str, Any]], speed: list[dict[str, Any]], embedder: str) -> str:
    """``files``: a scenario file's name -> its ``run_scenarios`` result."""
    parts = [f"Embedder for every store: {embedder} (same vectors, computed once)."]
    for file_name, quality in files.items():
        rows = [
            [
                name,
                quality[name]["must_include_probe_share"],
                quality[name]["must_include_string_share"],
                quality[name]["leak_probes"],
                quality[name].get("gate_accuracy", ""),
            ]
            for name in _SYSTEMS
        ]
        cap = quality["capture"]
        parts += [
            f"### {file_name}",
            markdown_table(
                [
                    "system",
                    "probes with all must_include",
                    "must_include strings",
                    "probes with a stale/foreign leak",
                    "gate accuracy",
                ],
                rows,
            ),
            "By category (share of probes with all must_include, probes with a leak):",
            category_table(quality),
            *(
                text
                for split in quality["memo"].get("splits", {})
                for text in (f"{split} part, by category:", category_table(quality, split))
            ),
            (
                f"Capture cost per turn ({cap['turns']} turns): memo capture p50 "
                f"{cap['memo_capture_ms_median']:.1f} ms (p95 {cap['memo_capture_ms_p95']:.1f}); "
                f"LangGraph put of a raw user turn p50 {cap['langgraph_put_turn_ms_median']:.1f} ms "
                f"(p95 {cap['langgraph_put_turn_ms_p95']:.1f}); turn texts pre-embedded for both "
                "(memo's figure includes embedding the facts it extracts, and its supersede checks)."
            ),
        ]
    lat_rows = [
        [
            f"{s['facts']:,}",
            f"{s['memo_gate_recall_p50_ms']:.1f}",
            f"{s['memo_gate_recall_p95_ms']:.1f}",
            f"{s['langgraph_search_p50_ms']:.1f}",
            f"{s['langgraph_search_p95_ms']:.1f}",
            f"{s['langgraph_search_p50_ms'] / s['memo_gate_recall_p50_ms']:.1f}x",
        ]
        for s in speed
    ]
    parts += [
        "Gate + recall latency by stored facts (3 in 4 facts belong to the probed user); "
        "message vectors are cached for both, so embedding is excluded; memo's figure "
        "includes its Model2Vec gate, LangGraph has none.",
        markdown_table(
            [
                "stored facts",
                "memo gate+recall p50 ms",
                "p95 ms",
                "LangGraph search p50 ms",
                "p95 ms",
                "LangGraph / memo",
            ],
            lat_rows,
        ),
    ]
    return "\n\n".join(parts)


def plot(speed: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [s["facts"] for s in speed]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(x, [s["memo_gate_recall_p50_ms"] for s in speed], "o-", label="memo gate + recall")
    ax.plot(x, [s["langgraph_search_p50_ms"] for s in speed], "s--", label="LangGraph search")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("stored facts")
    ax.set_ylabel("p50 latency, ms (embedding excluded for both)")
    ax.legend()
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenarios",
        action="append",
        help="a scenario file (repeatable; default: the public set and the dev set)",
    )
    parser.add_argument("--facts", default="1000,10000", help="comma-separated fact counts")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--embedder", choices=("default", "hash"), default="default")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.embedder == "hash":
        from memo_core.embedders import HashEmbedder

        inner: Any = HashEmbedder(256)
    else:
        from memo_core.embedders import default_local_embedder

        inner = default_local_embedder()
    embedder = CachedEmbedder(inner)
    public = shared_dir() / "eval" / "memory" / "scenarios.jsonl"
    paths = args.scenarios or [str(p) for p in (public, DEV_SCENARIOS) if p.exists()]
    with tempfile.TemporaryDirectory() as tmp:
        files: dict[str, dict[str, Any]] = {}
        for number, path in enumerate(paths):
            print(f"{path} ...", flush=True)
            folder = Path(tmp) / f"file{number}"
            folder.mkdir()
            files[Path(path).name] = run_scenarios(load_scenarios(path), embedder, folder)
        speed = []
        for facts in [int(f) for f in args.facts.split(",") if f]:
            print(f"{facts:,} facts ...", flush=True)
            speed.append(latency(facts, embedder, Path(tmp), args.queries))
    md = report(files, speed, inner.fingerprint.describe())
    write_results(
        "peers_memory",
        {"embedder": inner.fingerprint.describe(), "quality": files, "latency": speed},
        md,
    )
    plot(speed, RESULTS / "peers_memory.png")
    print(md)


if __name__ == "__main__":
    main()
