"""A mixed workload: ingest, update, delete, search, capture, remember, recall, on shared files.

One :class:`Workload` is one actor. Run it in a child process
(:func:`process_worker`, started by ``multiprocessing``) to test several
processes on one file, or in a thread with shared ``MemoBase``/``MemoHood``
objects to test the LangChain executor case. Every write is acknowledged in an
:class:`~reliability_harness.Acks` file *after* it returned; :func:`lost_writes`
then proves each acknowledged write is on disk. Every read checks on the spot
that nothing from another owner/namespace came back.
"""

from __future__ import annotations

import json
import random
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from reliability_harness import (
    CITIES,
    WORDS,
    Acks,
    current_statements,
    doc_text,
    embedder,
    open_memory,
    read_acks,
    sha,
)

from memo_core.errors import DatabaseLockedError, MemoError
from memo_core.ingest import IngestPolicy
from memo_core.kb import MemoBase
from memo_core.kb.ingest import ingest_sources
from memo_core.kb.store import DOCUMENT_TEXT_SQL
from memo_core.ledger import SpendLedger
from memo_core.memory import MemoHood
from memo_core.memory.namespace import encode_namespace
from memo_core.rerank.providers import CohereReranker
from memo_core.storage.connection import Database

OWNERS = ("alice", "bob", "carol")
NAMESPACES = ("u-alice", "u-bob", "u-carol")
SHARED_OWNER = "team"
SHARED_DOCS = 3

#: (operation, weight): writes dominate, reads run alongside them.
OPERATIONS: tuple[tuple[str, int], ...] = (
    ("kb_add", 4),
    ("kb_update", 2),
    ("kb_shared", 2),
    ("kb_ingest_file", 2),
    ("kb_delete", 1),
    ("kb_search", 3),
    ("mem_capture", 4),
    ("mem_remember", 3),
    ("mem_recall", 3),
)


@dataclass
class WorkerSpec:
    index: int
    kb_path: str
    mem_path: str
    files_dir: str
    ack_path: str
    result_path: str
    operations: int
    seed: int
    #: Stop early once this file exists (writers running "until told", e.g. during backups).
    stop_path: str | None = None


@dataclass
class WorkerResult:
    index: int
    done: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    locked: int = 0
    leaks: int = 0


class Workload:
    """One actor's random but reproducible sequence of operations."""

    def __init__(self, spec: WorkerSpec, kb: MemoBase, memory: MemoHood) -> None:
        self.spec = spec
        self.kb = kb
        self.memory = memory
        self.rng = random.Random(spec.seed)
        self.acks = Acks(spec.ack_path)
        self.result = WorkerResult(spec.index)
        self.owner = OWNERS[spec.index % len(OWNERS)]
        self.namespace = NAMESPACES[spec.index % len(NAMESPACES)]
        self.docs: dict[str, int] = {}  # own live document id -> version
        self.policy = IngestPolicy(allowed_roots=[Path(spec.files_dir)])

    def run(self) -> WorkerResult:
        names = [name for name, _ in OPERATIONS]
        weights = [w for _, w in OPERATIONS]
        try:
            for step in range(self.spec.operations):
                if self.spec.stop_path and Path(self.spec.stop_path).exists():
                    break
                name = self.rng.choices(names, weights)[0]
                try:
                    getattr(self, name)(step)
                    self.result.done[name] = self.result.done.get(name, 0) + 1
                except DatabaseLockedError as exc:
                    self.result.locked += 1
                    self.result.errors.append(f"{name}: DatabaseLockedError: {exc}")
                except Exception as exc:
                    kind = "MemoError" if isinstance(exc, MemoError) else "crash"
                    self.result.errors.append(
                        f"{name} ({kind}): {type(exc).__name__}: {exc}\n"
                        + traceback.format_exc(limit=4)
                    )
        finally:
            self.acks.close()
        return self.result

    # -- knowledge base ---------------------------------------------------------------

    def _put(self, doc_id: str, version: int, owner: str, kind: str = "kb_put") -> None:
        text = doc_text(doc_id, version, paragraphs=3)
        self.kb.add_document(text, document_id=doc_id, owner=owner, metadata={"owner_tag": owner})
        self.acks.write(op=kind, owner=owner, id=doc_id, sha=sha(text))

    def kb_add(self, step: int) -> None:
        doc_id = f"w{self.spec.index}-d{step}"
        self._put(doc_id, 1, self.owner)
        self.docs[doc_id] = 1

    def kb_update(self, step: int) -> None:
        if not self.docs:
            return self.kb_add(step)
        doc_id = self.rng.choice(sorted(self.docs))
        self.docs[doc_id] += 1
        self._put(doc_id, self.docs[doc_id], self.owner)

    def kb_shared(self, step: int) -> None:
        doc_id = f"shared-{self.rng.randrange(SHARED_DOCS)}"
        self._put(doc_id, 1000 * self.spec.index + step, SHARED_OWNER, kind="kb_shared")

    def kb_ingest_file(self, step: int) -> None:
        folder = Path(self.spec.files_dir) / f"w{self.spec.index}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"note-{step}.md"
        body = doc_text(f"w{self.spec.index}-f{step}", 1, paragraphs=2)
        path.write_text(f"---\nowner_tag: {self.owner}\n---\n{body}", encoding="utf-8")
        report = ingest_sources(self.kb, [path], policy=self.policy, owner=self.owner)
        if report.failed or len(report.added) != 1:
            raise AssertionError(f"ingest of {path} failed: {report.failed}")
        self.acks.write(op="kb_source", owner=self.owner, source=str(path))

    def kb_delete(self, step: int) -> None:
        if not self.docs:
            return
        doc_id = self.rng.choice(sorted(self.docs))
        deleted = self.kb.delete([doc_id], owner=self.owner)
        if deleted != 1:
            raise AssertionError(f"delete of {doc_id} removed {deleted} documents")
        del self.docs[doc_id]
        self.acks.write(op="kb_delete", owner=self.owner, id=doc_id)

    def kb_search(self, step: int) -> None:
        owner = self.rng.choice((*OWNERS, SHARED_OWNER))
        query = " ".join(self.rng.sample(WORDS, 3))
        mode = self.rng.choice(("keyword", "vector", "hybrid"))
        for hit in self.kb.search(query, owner=owner, mode=mode, k=8):
            tag = hit.metadata.get("owner_tag") or hit.metadata.get("front_matter", {}).get(
                "owner_tag"
            )
            if tag != owner:
                self.result.leaks += 1
                raise AssertionError(f"search as {owner} returned {tag}'s chunk {hit.chunk_id}")

    # -- memory -----------------------------------------------------------------------

    def mem_capture(self, step: int) -> None:
        city = self.rng.choice(CITIES)
        text = self.rng.choice(
            (
                f"I live in {city}.",
                f"Actually, I moved to {city}.",
                f"The review of project w{self.spec.index}s{step} is on March {1 + step % 27}.",
                f"I really like {self.rng.choice(WORDS)} tea.",
                "ok thanks",
            )
        )
        result = self.memory.capture(text, namespace=self.namespace)
        fact_ids = [f.id for f in result.added]
        self.acks.write(op="turn", ns=self.namespace, turn=result.turn_id, facts=fact_ids)

    def mem_remember(self, step: int) -> None:
        key = f"w{self.spec.index}-k{self.rng.randrange(4)}"
        statement = f"Setting {key} has value {step} {self.rng.choice(WORDS)}"
        fact = self.memory.remember(statement, namespace=self.namespace, key=key)
        self.acks.write(op="keyed", ns=self.namespace, key=key, statement=statement, id=fact.id)

    def mem_recall(self, step: int) -> None:
        namespace = self.rng.choice(NAMESPACES)
        recall = self.memory.recall(
            self.rng.choice(("Where do I live?", "When is the review?", "What tea do I like?")),
            namespace=namespace,
            use_gate=False,
        )
        for item in (*recall.facts, *recall.turns, *recall.history):
            if item.namespace != (namespace,):
                self.result.leaks += 1
                raise AssertionError(f"recall at {namespace} returned {item.namespace}")


# -- process entry point ------------------------------------------------------------------


def process_worker(spec: WorkerSpec) -> None:
    """Entry point of a child process: its own connections, its own acks."""
    kb = MemoBase(spec.kb_path, embedder=embedder())
    memory = open_memory(spec.mem_path)
    try:
        result = Workload(spec, kb, memory).run()
    finally:
        kb.close()
        memory.close()
    Path(spec.result_path).write_text(json.dumps(result.__dict__), encoding="utf-8")


def read_result(spec: WorkerSpec) -> WorkerResult:
    path = Path(spec.result_path)
    if not path.exists():
        return WorkerResult(spec.index, errors=[f"worker {spec.index} wrote no result"])
    return WorkerResult(**json.loads(path.read_text(encoding="utf-8")))


# -- verification --------------------------------------------------------------------------


def lost_writes(
    kb_path: str,
    mem_path: str,
    ack_paths: Sequence[str],
    *,
    prefix: Sequence[dict[str, Any]] | None = None,
) -> list[str]:
    """Every acknowledged write that is not on disk as acknowledged (target: none).

    With ``prefix`` (the acks made before a backup started) the files are a copy
    taken while writers kept going: each write of the prefix must be there, at
    any version acknowledged since (or gone by an acknowledged delete).
    """
    if prefix is not None:
        return _prefix_losses(kb_path, mem_path, prefix, read_acks(ack_paths))
    acks = read_acks(ack_paths)
    lost: list[str] = []
    db = Database(kb_path)
    try:
        docs = {
            (str(o), str(i)): str(t)
            for o, i, t in db.query(f"SELECT d.owner, d.id, {DOCUMENT_TEXT_SQL} FROM documents d")
        }
        sources = {(str(o), str(s)) for o, s in db.query("SELECT owner, source FROM documents")}
    finally:
        db.close()
    last: dict[tuple[str, str], dict[str, Any]] = {}
    shared: dict[tuple[str, str], set[str]] = {}
    for ack in acks:
        key = (ack.get("owner", ""), ack.get("id", ""))
        if ack["op"] in ("kb_put", "kb_delete"):
            last[key] = ack
        elif ack["op"] == "kb_shared":
            shared.setdefault(key, set()).add(ack["sha"])
        elif ack["op"] == "kb_source" and (ack["owner"], ack["source"]) not in sources:
            lost.append(f"ingested source {ack['source']} is missing")
    for key, ack in last.items():
        if ack["op"] == "kb_delete":
            if key in docs:
                lost.append(f"deleted document {key} is back")
        elif key not in docs:
            lost.append(f"document {key} is missing")
        elif sha(docs[key]) != ack["sha"]:
            lost.append(f"document {key} is not at its last acknowledged version")
    for key, shas in shared.items():
        if key not in docs or sha(docs[key]) not in shas:
            lost.append(f"shared document {key} is not one of its acknowledged versions")

    mdb = Database(mem_path)
    try:
        turns = {str(r[0]) for r in mdb.query("SELECT id FROM mem_turns")}
        facts = {str(r[0]) for r in mdb.query("SELECT id FROM mem_facts")}
    finally:
        mdb.close()
    current = current_statements(mem_path)
    keyed: dict[tuple[str, str], str] = {}
    for ack in acks:
        if ack["op"] == "turn":
            if ack["turn"] not in turns:
                lost.append(f"turn {ack['turn']} is missing")
            lost.extend(f"fact {f} is missing" for f in ack["facts"] if f not in facts)
        elif ack["op"] == "keyed":
            if ack["id"] not in facts:
                lost.append(f"fact {ack['id']} is missing")
            keyed[(encode_namespace((ack["ns"],)), ack["key"])] = ack["statement"]
    for key, statement in keyed.items():
        if current.get(key) != statement:
            lost.append(f"{key} is {current.get(key)!r}, last acknowledged {statement!r}")
    return lost


def _prefix_losses(
    kb_path: str, mem_path: str, prefix: Sequence[dict[str, Any]], acks: Sequence[dict[str, Any]]
) -> list[str]:
    versions: dict[tuple[str, str], set[str]] = {}
    deleted: set[tuple[str, str]] = set()
    statements: dict[tuple[str, str], set[str]] = {}
    for ack in acks:
        key = (ack.get("owner", ""), ack.get("id", ""))
        if ack["op"] in ("kb_put", "kb_shared"):
            versions.setdefault(key, set()).add(ack["sha"])
        elif ack["op"] == "kb_delete":
            deleted.add(key)
        elif ack["op"] == "keyed":
            statements.setdefault((ack["ns"], ack["key"]), set()).add(ack["statement"])
    with Database(kb_path) as db:
        docs = {
            (str(o), str(i)): sha(str(t))
            for o, i, t in db.query(f"SELECT d.owner, d.id, {DOCUMENT_TEXT_SQL} FROM documents d")
        }
    with Database(mem_path) as mdb:
        turns = {str(r[0]) for r in mdb.query("SELECT id FROM mem_turns")}
        facts = {str(r[0]) for r in mdb.query("SELECT id FROM mem_facts")}
    current = current_statements(mem_path)
    lost: list[str] = []
    for ack in prefix:
        key = (ack.get("owner", ""), ack.get("id", ""))
        if ack["op"] in ("kb_put", "kb_shared") and key not in deleted:
            if docs.get(key) not in versions[key]:
                lost.append(f"document {key} missing from the copy")
        elif ack["op"] == "turn":
            lost.extend(
                f"turn/fact of {ack['turn']} missing"
                for i in [ack["turn"], *ack["facts"]]
                if i not in turns | facts
            )
        elif ack["op"] == "keyed":
            enc = encode_namespace((ack["ns"],))
            if current.get((enc, ack["key"])) not in statements[(ack["ns"], ack["key"])]:
                lost.append(f"keyed fact {ack['key']} missing from the copy")
    return lost


def acknowledged_count(ack_paths: Sequence[str]) -> int:
    return len(read_acks(ack_paths))


def make_specs(
    folder: Path, processes: int, operations: int, seed: int, prefix: str = "w"
) -> list[WorkerSpec]:
    (folder / "files").mkdir(parents=True, exist_ok=True)
    return [
        WorkerSpec(
            index=i,
            kb_path=str(folder / "kb.db"),
            mem_path=str(folder / "memory.db"),
            files_dir=str(folder / "files"),
            ack_path=str(folder / f"{prefix}{i}.acks"),
            result_path=str(folder / f"{prefix}{i}.json"),
            operations=operations,
            seed=seed * 1000 + i,
        )
        for i in range(processes)
    ]


# -- paid calls ---------------------------------------------------------------------------


class FakeCohere:
    """Stands in for ``cohere.ClientV2``: each (would-be paid) call appends a line to a file."""

    def __init__(self, log_path: str) -> None:
        self.log_path = log_path

    def rerank(self, *, model: str, query: str, documents: list[str], top_n: int) -> Any:
        with open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(f"{model}\n")
        results = [
            SimpleNamespace(index=i, relevance_score=1.0 / (2 + i)) for i in range(len(documents))
        ]
        return SimpleNamespace(results=list(reversed(results)))


def paid_search_worker(
    kb_path: str, spend_path: str, calls_path: str, ceiling: float, searches: int, start_at: float
) -> None:
    """Search with a paid reranker under a shared monthly ceiling; every search must answer."""
    ledger = SpendLedger(spend_path, ceilings={"cohere": ceiling})
    reranker = CohereReranker("test-key", client=FakeCohere(calls_path), ledger=ledger)
    kb = MemoBase(kb_path, embedder=embedder(), reranker=reranker)
    try:
        while time.time() < start_at:  # start together so the charges interleave
            time.sleep(0.001)
        for i in range(searches):
            if not kb.search(f"{WORDS[i % len(WORDS)]} contract budget", k=3):
                raise AssertionError("a search returned nothing")
    finally:
        kb.close()
        ledger.db.close()
