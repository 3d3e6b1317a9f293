"""SIGKILL trials: a child process dies at a random point of ingest, re-index, supersede or
consolidation, and the file must still be whole.

Each scenario has a *template* file (the state before the operation), the
operation itself, and what is allowed afterwards. A trial copies the template,
starts a child that runs the operation, and kills it either at a random SQL
statement (the child's own tracer sends SIGKILL right before statement n, so
most kills land inside a transaction) or after a random delay (which also lands
in Python code, embedding, COMMIT and fsync). Then the parent checks that the
file opens with integrity, that each item is entirely the old or entirely the
new version, and that running the operation again finishes the work.
"""

from __future__ import annotations

import multiprocessing.context
import os
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reliability_harness import (
    CITIES,
    StatementCounter,
    copy_db,
    current_statements,
    doc_text,
    embedder,
    kb_documents,
    kb_problems,
    memory_problems,
    open_memory,
    raw,
    vec_tables,
)

from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import EmbedderMismatchError
from memo_core.ingest import IngestPolicy
from memo_core.kb import MemoBase
from memo_core.kb.ingest import ingest_sources
from memo_core.memory.namespace import encode_namespace

SCENARIOS = ("ingest", "reindex", "supersede", "consolidate")
NAMESPACES = tuple(f"user{i}" for i in range(8))
OLD = datetime(2020, 1, 1, tzinfo=UTC)
LATER = datetime(2020, 6, 1, tzinfo=UTC)
CONSOLIDATE_AT = datetime(2030, 1, 1, tzinfo=UTC)
DOCS = 6


def new_embedder() -> HashEmbedder:
    """The embedder a re-index switches to (other dimensions, other features)."""
    return HashEmbedder(48, trigrams=False)


# -- the operations (run in the child, and again by the parent to finish the work) ----------


def _files(folder: Path) -> Path:
    return folder / "files"


def run_operation(kind: str, path: str, folder: Path, tracer: StatementCounter | None) -> None:
    if kind == "ingest":
        with MemoBase(path, embedder=embedder(), tracer=tracer) as kb:
            if tracer is not None:
                tracer.arm()
            report = ingest_sources(
                kb, [_files(folder)], policy=IngestPolicy(allowed_roots=[folder])
            )
            if report.failed:
                raise AssertionError(report.failed)
    elif kind == "reindex":
        with MemoBase(path, embedder=None, check_embedder=False, tracer=tracer) as kb:
            if tracer is not None:
                tracer.arm()
            kb.reindex(new_embedder())
    else:
        memory = open_memory(path, tracer=tracer)
        try:
            if tracer is not None:
                tracer.arm()
            if kind == "supersede":
                for i, ns in enumerate(NAMESPACES):
                    memory.capture(f"Actually, I moved to {_city(i, 1)}.", namespace=ns, at=LATER)
                    memory.remember(f"Plan {i} is version B", namespace=ns, key="plan", at=LATER)
                    memory.capture(
                        "Correction: the meeting with Bob is on March 23.", namespace=ns, at=LATER
                    )
            else:
                memory.consolidate(CONSOLIDATE_AT)
        finally:
            memory.close()


def _city(i: int, version: int) -> str:
    return CITIES[(i + 4 * version) % len(CITIES)]


def child(kind: str, path: str, folder: str, kill_at: int | None, ready: str) -> None:
    """Forkserver target: open, signal readiness, run the operation (maybe dying in it)."""
    tracer = StatementCounter(kill_at=kill_at)
    tracer.on_arm = lambda: Path(ready).touch()
    run_operation(kind, path, Path(folder), tracer)


# -- templates and references ----------------------------------------------------------


@dataclass
class Prepared:
    """A scenario's template file and what the old and new states look like."""

    kind: str
    folder: Path
    template: Path
    statements: int = 0
    seconds: float = 0.0
    reference: dict[Any, tuple[Any, Any]] = field(default_factory=dict)
    facts: int = 0
    eligible: int = 0


def _write_files(folder: Path, version: int) -> None:
    files = _files(folder)
    files.mkdir(parents=True, exist_ok=True)
    for i in range(DOCS):
        (files / f"doc{i}.md").write_text(doc_text(f"doc{i}", version), encoding="utf-8")
    if version == 2:  # a source that only the new run adds
        (files / "added.md").write_text(doc_text("added", 2), encoding="utf-8")


def prepare(kind: str, folder: Path) -> Prepared:
    """Build the template (the state before the operation) and the reference states."""
    folder.mkdir(parents=True, exist_ok=True)
    template = folder / "template.db"
    prepared = Prepared(kind, folder, template)
    if kind in ("ingest", "reindex"):
        _write_files(folder, 1)
        policy = IngestPolicy(allowed_roots=[folder])
        with MemoBase(template, embedder=embedder()) as kb:
            ingest_sources(kb, [_files(folder)], policy=policy)
            if kind == "reindex":  # many one-chunk documents: several re-index batches
                kb.add_texts([f"Filler note {i} about {CITIES[i % 9]}." for i in range(150)])
        old = kb_documents(template)
        if kind == "ingest":
            _write_files(folder, 2)
            scratch = folder / "reference-v2.db"
            copy_db(template, scratch)
            with MemoBase(scratch, embedder=embedder()) as kb:
                ingest_sources(kb, [_files(folder)], policy=policy)
            new = kb_documents(scratch)
        else:
            new = old
        for key in set(old) | set(new):
            prepared.reference[key] = (old.get(key), new.get(key))
    elif kind == "supersede":
        with open_memory(template) as memory:
            for i, ns in enumerate(NAMESPACES):
                memory.capture(f"I live in {_city(i, 0)}.", namespace=ns, at=OLD)
                memory.remember(f"Plan {i} is version A", namespace=ns, key="plan", at=OLD)
                memory.capture("The meeting with Bob is on March 20.", namespace=ns, at=OLD)
        prepared.facts = _count(template, "SELECT count(DISTINCT chain_id) FROM mem_facts")
    else:
        with open_memory(template) as memory:
            for i in range(420):
                memory.remember(
                    f"Note {i}: the {CITIES[i % 9]} office code is {1000 + i}",
                    namespace=NAMESPACES[i % 3],
                    key=f"note{i}",
                    pinned=i % 20 == 0,
                    at=OLD,
                )
        prepared.facts = _count(template, "SELECT count(*) FROM mem_facts")
        prepared.eligible = _count(template, "SELECT count(*) FROM mem_facts WHERE pinned = 0")
    # A dry run on a copy: how many statements and how long the operation takes.
    scratch = folder / "dry-run.db"
    copy_db(template, scratch)
    counter = StatementCounter()
    started = time.perf_counter()
    run_operation(kind, str(scratch), folder, counter)
    prepared.seconds = time.perf_counter() - started
    prepared.statements = counter.count
    problems = check(prepared, str(scratch), final=True)
    if problems:  # the scenario itself must reach its end state when nothing kills it
        raise AssertionError(f"{kind}: an uninterrupted run is not clean: {problems}")
    return prepared


def _count(path: Path, sql: str) -> int:
    with raw(path) as db:
        return int(db.query_one(sql)[0])


# -- what must hold ---------------------------------------------------------------------


def _open_with_either(path: str) -> list[str]:
    """Exactly one of the old and the new embedder opens the file, and search works."""
    opened = []
    for name, emb in (("old", embedder()), ("new", new_embedder())):
        try:
            with MemoBase(path, embedder=emb) as kb:
                if not kb.search("Filler note office", mode="vector", k=3):
                    return [f"vector search with the {name} embedder found nothing"]
                opened.append(name)
        except EmbedderMismatchError:
            continue
    return [] if len(opened) == 1 else [f"the file opened with {opened or 'no'} embedder(s)"]


def check(prepared: Prepared, path: str, *, final: bool) -> list[str]:
    """Problems with the file after a kill (``final=False``) or after the re-run."""
    kind = prepared.kind
    if kind in ("ingest", "reindex"):
        problems = kb_problems(path)
        docs = kb_documents(path)
        for key, (old, new) in prepared.reference.items():
            if docs.get(key) not in ((new,) if final else (old, new)):
                problems.append(f"{key} is neither the old nor the new version")
        problems.extend(f"unexpected document {k}" for k in set(docs) - set(prepared.reference))
        if kind == "reindex":
            problems.extend(_open_with_either(path))
            tables = vec_tables(path)
            if final and len(tables) != 1:
                problems.append(f"vector tables left after the re-run: {tables}")
            if final:
                try:
                    MemoBase(path, embedder=embedder()).close()
                    problems.append("the old embedder still opens the re-indexed file")
                except EmbedderMismatchError:
                    pass
        return problems
    problems = memory_problems(path)
    if kind == "supersede":
        current = current_statements(path)
        chains = _count(Path(path), "SELECT count(DISTINCT chain_id) FROM mem_facts")
        if chains != prepared.facts:
            problems.append(f"{chains} fact chains, expected {prepared.facts}")
        with raw(path) as db:
            turns = {(str(ns), str(t)) for ns, t in db.query("SELECT ns, text FROM mem_turns")}
        for i, ns in enumerate(NAMESPACES):
            enc = encode_namespace((ns,))
            new_home = f"I moved to {_city(i, 1)}."
            correction = f"Actually, {new_home}"
            options = {
                "self.residence": (f"I live in {_city(i, 0)}.", new_home),
                "plan": (f"Plan {i} is version A", f"Plan {i} is version B"),
            }
            for key, (old, new) in options.items():
                got = current.get((enc, key))
                if got not in ((new,) if final else (old, new)):
                    problems.append(f"{ns} {key} is {got!r}")
            moved = (enc, correction) in turns
            if moved != (current.get((enc, "self.residence")) == new_home):
                problems.append(f"{ns}: the correction turn and its supersede were not atomic")
            meeting = [s for (n, _), s in current.items() if n == enc and "meeting" in s]
            expected = ["March 23"] if final else ["March 20", "March 23"]
            if len(meeting) != 1 or not any(d in meeting[0] for d in expected):
                problems.append(f"{ns} meeting facts: {meeting}")
    else:
        with raw(path) as db:
            facts = int(db.query_one("SELECT count(*) FROM mem_facts")[0])
            archived = int(db.query_one("SELECT count(*) FROM mem_facts WHERE archived = 1")[0])
            pinned = int(
                db.query_one("SELECT count(*) FROM mem_facts WHERE archived = 1 AND pinned = 1")[0]
            )
        if facts != prepared.facts:
            problems.append(f"{facts} facts, expected {prepared.facts}: consolidation lost some")
        if archived not in ((prepared.eligible,) if final else (0, prepared.eligible)):
            problems.append(f"{archived} of {prepared.eligible} archived: not all or nothing")
        if pinned:
            problems.append(f"{pinned} pinned facts archived")
    return problems


# -- one trial ---------------------------------------------------------------------------


@dataclass
class Trial:
    kind: str
    mode: str
    killed: bool
    problems: list[str]


def trial(
    ctx: multiprocessing.context.BaseContext,
    prepared: Prepared,
    rng: random.Random,
    workdir: Path,
    index: int,
    *,
    timeout: float = 120.0,
) -> Trial:
    """Copy the template, kill a child during the operation, check, finish, check again."""
    path = workdir / f"{prepared.kind}-{index}.db"
    ready = workdir / f"{prepared.kind}-{index}.ready"
    copy_db(prepared.template, path)
    mode = "statement" if index % 2 == 0 else "timer"
    kill_at = rng.randint(1, max(1, prepared.statements)) if mode == "statement" else None
    args = (prepared.kind, str(path), str(prepared.folder), kill_at, str(ready))
    process = ctx.Process(target=child, args=args)  # type: ignore[attr-defined]
    process.start()
    if mode == "timer":
        deadline = time.monotonic() + timeout
        while not ready.exists() and process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, prepared.seconds * 1.2))
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGKILL)
    process.join(timeout)
    killed = process.exitcode == -signal.SIGKILL
    problems = [f"child exited with {process.exitcode}"] if not killed and process.exitcode else []
    problems += [f"after the kill: {p}" for p in check(prepared, str(path), final=False)]
    run_operation(prepared.kind, str(path), prepared.folder, None)
    problems += [f"after the re-run: {p}" for p in check(prepared, str(path), final=True)]
    return Trial(prepared.kind, mode, killed, problems)


def run_trials(
    ctx: multiprocessing.context.BaseContext,
    prepared: Prepared,
    count: int,
    workdir: Path,
    seed: int,
    on_trial: Callable[[Trial], None] | None = None,
) -> list[Trial]:
    rng = random.Random(seed)
    workdir.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(count):
        result = trial(ctx, prepared, rng, workdir, i)
        if on_trial is not None:
            on_trial(result)
        out.append(result)
    return out
