"""Hostile input through the public API: a typed MemoError or a safe result, base unchanged.

Fuzzed (hypothesis) search queries, metadata-filter field names and values, and
memory recall queries and namespaces; then the cross-cutting file cases that
tests/ingest does not cover through the whole pipeline: binary files with text
extensions, Obsidian links and symlinks escaping the vault, and URLs to private,
loopback and link-local addresses (directly, by DNS name, and by redirect),
all via ``ingest_sources``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import random
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_fuzz import (
    FTS_SYNTAX,
    SQL_VALUES,
    fuzz_kb,
    fuzz_memory,
    hostile_kb,
    hostile_memory,
    kb_state,
    memory_state,
)
from reliability_harness import embedder, remove_db

from memo_core.errors import MemoError, NamespaceRequiredError, UnsafeURLError
from memo_core.ingest import IngestPolicy, urlguard
from memo_core.kb import MemoBase
from memo_core.kb.ingest import ingest_sources
from memo_core.kb.store import DOCUMENT_TEXT_SQL
from memo_core.memory import MemoHood
from memo_core.memory.namespace import ancestors, normalize_namespace

hostile_text = st.one_of(
    st.text(max_size=80),
    st.lists(st.one_of(st.sampled_from(FTS_SYNTAX), st.text(max_size=12)), max_size=10).map(
        " ".join
    ),
    st.integers(1, 30_000).map(lambda n: "contract " * n),
)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63 - 2, max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(SQL_VALUES),
)
field_name = st.one_of(
    st.text(max_size=12), st.sampled_from(["page", "tags", "lang", '"', "a.b", "$[0]", "\x00"])
)
operator = st.sampled_from(
    [
        "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$contains", "$any",
        "$all", "$text_match", "$text_match_insensitive", "$exists", "$is_empty", "$bogus",
    ]
)  # fmt: skip
operand = st.one_of(
    scalar, st.lists(scalar, max_size=4), st.dictionaries(st.text(max_size=4), scalar, max_size=2)
)
condition = st.one_of(scalar, st.dictionaries(operator, operand, min_size=1, max_size=2))
filters = st.recursive(
    st.dictionaries(st.one_of(field_name, st.integers()), condition, max_size=3),
    lambda inner: st.one_of(
        st.dictionaries(st.sampled_from(["$and", "$or"]), st.lists(inner, max_size=3), max_size=1),
        st.dictionaries(st.just("$not"), inner, max_size=1),
        st.dictionaries(field_name, inner, max_size=2),
    ),
    max_leaves=12,
)

FUZZ = settings(
    max_examples=int(os.environ.get("MEMO_RELIABILITY_FUZZ", 120)),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoBase]:
    base = hostile_kb(tmp_path_factory.mktemp("hostile") / "kb.db")
    yield base
    base.close()


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoHood]:
    with hostile_memory(tmp_path_factory.mktemp("hostile-memory") / "memory.db") as mem:
        yield mem


def _safe_hits(hits: Any, owner: str) -> None:
    assert isinstance(hits, list)
    for hit in hits:
        assert hit.metadata["owner_tag"] == owner


@FUZZ
@given(
    query=hostile_text,
    mode=st.sampled_from(["keyword", "vector", "hybrid"]),
    owner=st.sampled_from(["alice", "bob"]),
)
def test_fuzzed_queries(kb: MemoBase, query: str, mode: str, owner: str) -> None:
    before = kb_state(kb)
    with contextlib.suppress(MemoError):
        _safe_hits(kb.search(query, mode=mode, owner=owner, k=5), owner)
    assert kb_state(kb) == before


@FUZZ
@given(spec=filters, query=hostile_text, mode=st.sampled_from(["keyword", "vector", "hybrid"]))
def test_fuzzed_metadata_filters(kb: MemoBase, spec: Any, query: str, mode: str) -> None:
    before = kb_state(kb)
    try:
        _safe_hits(kb.search(query, mode=mode, owner="alice", filter=spec, k=5), "alice")
        _safe_hits(kb.search_by_vector([0.1] * 32, owner="alice", filter=spec), "alice")
    except MemoError:
        pass
    assert kb_state(kb) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda kb: kb.search("contract", k="3"),
        lambda kb: kb.search("contract", k=2**70),
        lambda kb: kb.search("contract", mode="bogus"),
        lambda kb: kb.search("contract", filter={"page": 2**70}),
        lambda kb: kb.search("contract", filter={"page": {"$in": [1, 2**64]}}),
        lambda kb: kb.search("contract", filter={7: "x"}),
        lambda kb: kb.search("contract", filter={"lang": "\ud800"}),
        lambda kb: kb.search("contract", collection=["\ud800"]),
        lambda kb: kb.add_texts(["bad \ud800 text"]),
        lambda kb: kb.add_texts(["fine text"], [{"k": "\ud800"}]),
        lambda kb: kb.add_document("fine text", title="\ud800"),
    ],
)
def test_type_confusion_is_a_typed_error(kb: MemoBase, call: Any) -> None:
    before = kb_state(kb)
    with pytest.raises(MemoError):
        call(kb)
    assert kb_state(kb) == before


def test_deeply_nested_filter_is_a_typed_error(kb: MemoBase) -> None:
    spec: dict[str, Any] = {"page": 2}
    for _ in range(5000):
        spec = {"$not": spec}
    with pytest.raises(MemoError):
        kb.search("contract", filter=spec)


def test_a_seeded_random_mix_of_hostile_calls(kb: MemoBase, memory: MemoHood) -> None:
    rng = random.Random(2024)
    tally = fuzz_kb(kb, rng, 150)
    tally.add(fuzz_memory(memory, rng, 100))
    assert tally.crashes == []
    assert tally.changed == 0 and tally.leaks == 0
    assert tally.typed_errors > 0 and tally.safe_results > 0  # both kinds were exercised


namespaces = st.one_of(
    st.sampled_from(["alice", "bob"]),
    st.text(max_size=20),
    st.lists(st.text(max_size=8), max_size=4),
    st.sampled_from(["", " ", "\x00", "\ud800", "a/b", "%2F", "alice/", ("alice", "")]),
)


@FUZZ
@given(query=hostile_text, namespace=namespaces, gate=st.booleans())
def test_fuzzed_recall(memory: MemoHood, query: str, namespace: Any, gate: bool) -> None:
    before = memory_state(memory)
    try:
        recall = memory.recall(query, namespace=namespace, use_gate=gate)
    except MemoError:
        pass
    else:
        visible = set(ancestors(normalize_namespace(namespace)))
        assert all(f.namespace in visible for f in (*recall.facts, *recall.history))
        assert all(t.namespace in visible for t in recall.turns)
    assert memory_state(memory) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.recall("hi", namespace=None),
        lambda m: m.capture("I live in Oslo", namespace=None),
        lambda m: m.remember("I live in Oslo", namespace=None),
        lambda m: m.list_facts(None),
        lambda m: m.forget(namespace=None, query="Berlin"),
        lambda m: m.recall("hi", namespace=""),
        lambda m: m.recall("hi", namespace=[]),
    ],
)
def test_memory_without_a_namespace_fails_closed(memory: MemoHood, call: Any) -> None:
    before = memory_state(memory)
    with pytest.raises(NamespaceRequiredError):
        call(memory)
    assert memory_state(memory) == before


def test_memory_hostile_namespace_and_text_are_typed_errors(memory: MemoHood) -> None:
    before = memory_state(memory)
    for call in (
        lambda: memory.recall("hi", namespace="\ud800"),
        lambda: memory.capture("I live in \ud800 Oslo", namespace="alice"),
        lambda: memory.remember("tea", namespace="alice", key="\ud800"),
    ):
        with pytest.raises(MemoError):
            call()
    assert memory_state(memory) == before


# -- files and URLs through the whole ingest pipeline --------------------------------------


@pytest.fixture
def fresh_kb(tmp_path: Path) -> Iterator[MemoBase]:
    path = tmp_path / "ingest.db"
    remove_db(path)
    base = MemoBase(path, embedder=embedder())
    base.add_texts(["A document that was here before."], ids=["before"])
    yield base
    base.close()


def test_binary_files_with_text_extensions_leave_the_base_unchanged(
    tmp_path: Path, fresh_kb: MemoBase
) -> None:
    folder = tmp_path / "binaries"
    folder.mkdir()
    noise = bytes(range(256)) * 64
    (folder / "notes.txt").write_bytes(noise)
    (folder / "readme.md").write_bytes(b"\x89PNG\r\n\x1a\n" + noise)
    (folder / "page.html").write_bytes(b"\x00" * 4096)
    (folder / "table.csv").write_bytes(b"a,b\n\xff\xfe\x00\x01" * 500)
    (folder / "empty.md").write_bytes(b"")
    (folder / "fake.pdf").write_text("%PDF-1.7 this is not really a pdf", encoding="utf-8")
    (folder / "fake.docx").write_bytes(b"PK\x03\x04" + noise)
    before = kb_state(fresh_kb)
    report = ingest_sources(fresh_kb, [folder], policy=IngestPolicy(allowed_roots=[tmp_path]))
    assert report.added == [] and report.updated == []
    assert len(report.failed) == 7
    assert all(f["type"].endswith("Error") for f in report.failed)
    assert kb_state(fresh_kb) == before


def _vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Home.md").write_text(
        "# Home\nSee [[../outside/secret]], [[../../etc/passwd]], ![[../outside/secret.md]]"
        " and [[/etc/hostname]].\n",
        encoding="utf-8",
    )
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\nTOPSECRET-7731 payroll data\n", "utf-8")
    os.symlink(outside / "secret.md", vault / "Leak.md")
    os.symlink(outside, vault / "LeakDir")
    return vault


def test_obsidian_links_and_symlinks_cannot_escape_the_vault(
    tmp_path: Path, fresh_kb: MemoBase
) -> None:
    vault = _vault(tmp_path)
    # Even with the outside folder inside the allowed roots, the vault is the boundary.
    report = ingest_sources(fresh_kb, [vault], policy=IngestPolicy(allowed_roots=[tmp_path]))
    assert [Path(s).name for s in report.added] == ["Home.md"]
    hits = fresh_kb.search("TOPSECRET payroll", mode="keyword")
    assert all("TOPSECRET" not in h.text for h in hits)
    texts = fresh_kb.db.query(f"SELECT {DOCUMENT_TEXT_SQL} FROM documents d")
    assert all("TOPSECRET" not in str(t[0]) for t in texts)
    # A note path that resolves outside the allowed roots is refused by name, too.
    before = kb_state(fresh_kb)
    report = ingest_sources(
        fresh_kb, [vault / "Leak.md"], policy=IngestPolicy(allowed_roots=[vault])
    )
    assert [f["type"] for f in report.failed] == ["PathNotAllowedError"]
    assert kb_state(fresh_kb) == before


class _Redirector(BaseHTTPRequestHandler):
    target = ""
    seen: list[str] = []  # noqa: RUF012 - a per-class log the test resets

    def do_GET(self) -> None:
        self.seen.append(self.path)
        self.send_response(302)
        self.send_header("Location", self.target)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def redirector() -> Iterator[tuple[type[_Redirector], int]]:
    handler = type("Handler", (_Redirector,), {"seen": [], "target": ""})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield handler, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


PRIVATE_URLS = [
    "http://127.0.0.1:9/",
    "http://10.0.0.5/admin",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/",
    "http://[fe80::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://0.0.0.0/",
    "http://internal.test/",
    "http://metadata.test/computeMetadata/v1/",
]


@pytest.mark.network
def test_private_urls_are_refused_directly_by_dns_and_by_redirect(
    fresh_kb: MemoBase, monkeypatch: pytest.MonkeyPatch, redirector: tuple[Any, int]
) -> None:
    fake = {"internal.test": ["10.20.30.40"], "metadata.test": ["fd00:ec2::254"]}
    real = urlguard.resolve_host

    def resolve(host: str, port: int) -> list[Any]:
        if host in fake:
            return [ipaddress.ip_address(a) for a in fake[host]]
        return list(real(host, port))

    monkeypatch.setattr(urlguard, "resolve_host", resolve)
    handler, port = redirector
    policy = IngestPolicy(allowed_roots=[], allow_hosts=frozenset({"127.0.0.1"}))
    before = kb_state(fresh_kb)
    report = ingest_sources(fresh_kb, PRIVATE_URLS, policy=IngestPolicy(allowed_roots=[]))
    assert [f["type"] for f in report.failed] == ["UnsafeURLError"] * len(PRIVATE_URLS)
    for target in ("http://10.1.2.3/", "http://internal.test/x", "http://[::1]:9/"):
        handler.target = target
        report = ingest_sources(fresh_kb, [f"http://127.0.0.1:{port}/go"], policy=policy)
        assert [f["type"] for f in report.failed] == [UnsafeURLError.__name__], target
    assert handler.seen == ["/go"] * 3  # only the allowed hop was ever contacted
    assert kb_state(fresh_kb) == before
