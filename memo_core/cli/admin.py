"""``memo demo``: the offline tour the README's first command runs."""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC
from pathlib import Path
from typing import Any

__all__ = ["register"]

DEMO_QUESTIONS = (
    "How long is the initial term of the agreement?",
    "What is the warranty period for the espresso machine?",
)


def _rule(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def cmd_demo(args: argparse.Namespace) -> int:
    from memo_core.answer import GuardedAnswerer, Refusal
    from memo_core.errors import NotFoundError
    from memo_core.kb import MemoBase

    samples = Path(args.samples).resolve()
    if not samples.is_dir():
        # Otherwise the demo would run on an empty base and refuse every question.
        raise NotFoundError(
            f"no sample documents at {samples}: run the demo from the repository root, "
            "or pass --samples FOLDER"
        )
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="memo-demo-"))
    workdir.mkdir(parents=True, exist_ok=True)
    _rule("MemoBase: ingest the sample documents (offline embedder, one SQLite file)")
    kb = MemoBase(workdir / "kb.db")
    report = kb.ingest(samples, roots=[samples])
    print(
        f"{len(report.added) + len(report.updated) + len(report.unchanged)} documents, "
        f"{report.chunks} chunks -> {workdir / 'kb.db'}"
    )
    print(f"embedder: {kb.status()['embedder']}")

    _rule("Hybrid search: 'termination notice'")
    for i, hit in enumerate(kb.search("termination notice", k=3), start=1):
        where = hit.locator.get("page") or hit.locator.get("heading") or ""
        print(
            f"[{i}] {hit.title} ({where}) kw#{hit.keyword_rank} vec#{hit.vector_rank}: "
            f"{hit.text[:110].replace(chr(10), ' ')}..."
        )

    _rule("Guarded answers: a verified quote with its page, or an honest refusal")
    answerer = GuardedAnswerer(kb)
    for question in DEMO_QUESTIONS:
        result = answerer.ask(question)
        print(f"Q: {question}")
        if isinstance(result, Refusal):
            print(f"A: REFUSED: {result.reason}")
        else:
            print(f"A: {result.text}")
            for c in result.citations:
                print(f'   quote verified ({c.method}) in {c.title}, page {c.page}: "{c.quote}"')
        print()
    kb.close()
    _memory_demo(workdir)
    _unified_demo(workdir)
    return 0


def _memory_demo(workdir: Path) -> None:
    try:
        from memo_core.memory import MemoHood
    except ImportError:
        return
    from datetime import datetime, timedelta

    _rule("MemoHood: the penicillin story, two sessions a month apart, no LLM")
    monday = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    with MemoHood(workdir / "memory.db") as memory:
        user = ("alice",)
        said = "By the way, I'm allergic to penicillin."
        memory.capture(said, namespace=user, at=monday, session_id="monday")
        print(f"session 1, {monday:%Y-%m-%d}: user: {said}")
        later = monday + timedelta(days=31)
        ask = "Suggest an antibiotic for a sore throat."
        recall: Any = memory.recall(ask, namespace=user, at=later)
        print(f"session 2, {later:%Y-%m-%d}: user: {ask}")
        print(
            f"recall gate: {recall.gate.action} (small talk {recall.gate.small_talk:.2f} vs memory {recall.gate.memory:.2f})"
        )
        print(recall.block or "(nothing recalled)")

        _rule("SUPERSEDE: a fact changed twice keeps its history")
        t = monday
        for text in (
            "The Hollis grant report is due on March 20.",
            "Actually the Hollis deadline moved to March 23.",
            "Update: the Hollis report deadline changed to March 27.",
        ):
            t += timedelta(days=2)
            memory.capture(text, namespace=user, at=t)
            print(f"{t:%Y-%m-%d} user: {text}")
        recall = memory.recall("When is the Hollis report due?", namespace=user, at=t)
        for fact in recall.facts:
            print(f"current: {fact.statement}")
            for version in memory.history(fact.id, namespace=user):
                until = f"until {version.valid_to:%Y-%m-%d}" if version.valid_to else "current"
                print(
                    f"   version from {version.valid_from:%Y-%m-%d} ({until}): {version.statement}"
                )


#: A schedule that disagrees with the deadline the memory demo was told (March 27).
GRANT_SCHEDULE = (
    "Hollis grant: the final report is due on 30 March 2026, submitted through the "
    "foundation portal. The budget review meeting is on 12 March 2026."
)


def _unified_demo(workdir: Path) -> None:
    try:
        from memo_core.memory import MemoHood
        from memo_core.unified import recall_all
    except ImportError:
        return
    from datetime import datetime

    from memo_core.answer.engine import GuardedAnswerer
    from memo_core.kb import ChunkInput, MemoBase

    _rule("Unified recall: memory and documents in one context, conflicts flagged")
    with MemoBase(workdir / "kb.db") as kb, MemoHood(workdir / "memory.db") as memory:
        kb.add_document(
            GRANT_SCHEDULE,
            source="grant-schedule.md",
            title="Grant schedule",
            chunks=[
                ChunkInput(GRANT_SCHEDULE, 0, len(GRANT_SCHEDULE), {"heading": "Hollis grant"})
            ],
        )
        print(f'document "Grant schedule": {GRANT_SCHEDULE}')
        ask = "When is the Hollis report due?"
        result = recall_all(
            ask,
            memory=memory,
            kb=kb,
            namespace=("alice",),
            k=4,
            token_budget=500,
            at=datetime(2026, 3, 9, 9, 0, tzinfo=UTC),
        )
        print(f"user: {ask}")
        print(result.render())
        answer = GuardedAnswerer(kb).ask(ask, memory_facts=result.memory_facts)
        print(f"guarded answer with memory as evidence: {getattr(answer, 'text', answer)}")
        for c in getattr(answer, "citations", ()):
            print(f'   document quote verified in {c.title}: "{c.quote}"')
        for c in getattr(answer, "memory_citations", ()):
            print(f'   memory quote verified ({c.title}): "{c.quote}"')


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("demo", help="an offline tour over the sample documents")
    p.add_argument("--samples", default="samples", help="folder of sample documents")
    p.add_argument("--workdir", help="where to write the demo's files (default: a temp dir)")
    p.set_defaults(func=cmd_demo)
