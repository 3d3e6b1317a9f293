"""Embedders, rerankers and the spend ledger (network boundary: local servers only)."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from memo_core.embedders import CloudflareEmbedder, FastEmbedEmbedder, HashEmbedder
from memo_core.errors import BudgetExceededError, ProviderError
from memo_core.ledger import SpendLedger
from memo_core.rerank import CohereReranker, SafeReranker


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    emb = HashEmbedder(64)
    a, b = emb.embed_documents(["contract term", "contract term"])
    assert a == b
    assert sum(x * x for x in a) == pytest.approx(1.0)
    near = emb.embed_query("the contract term")
    far = emb.embed_query("banana smoothie recipe")
    dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
    assert dot(a, near) > dot(a, far)


def test_default_local_embedder_works_offline() -> None:
    pytest.importorskip("fastembed", reason="memo[local] not installed")
    from memo_core.embedders import default_local_embedder

    emb = default_local_embedder()
    contract, agreement, banana = emb.embed_documents(
        ["the contract lasts two years", "the agreement runs for 24 months", "a ripe banana"]
    )
    dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
    assert emb.dimensions == 384 and len(contract) == 384
    assert dot(contract, agreement) > dot(contract, banana)
    assert emb.fingerprint.model == "memo/all-MiniLM-L6-v2-int8"


def test_the_local_model_runs_with_threads_that_sleep_while_idle() -> None:
    """Spinning ONNX threads double the answer loop's CPU time; the swap of fastembed's
    SessionOptions class lasts only while the model loads."""
    pytest.importorskip("fastembed", reason="memo[local] not installed")
    import onnxruntime as ort

    from memo_core.embedders import default_local_embedder

    original = ort.SessionOptions
    emb = default_local_embedder()
    options = emb._load().model.model.get_session_options()
    for key in ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning"):
        assert options.get_session_config_entry(key) == "0"
    assert ort.SessionOptions is original
    assert len(emb.embed_query("the contract term")) == 384


def test_hub_model_download_fails_cleanly_offline(tmp_path: Path) -> None:
    pytest.importorskip("fastembed", reason="memo[local] not installed")
    emb = FastEmbedEmbedder("BAAI/bge-small-en-v1.5", cache_dir=tmp_path)
    with pytest.raises(ProviderError, match="could not load embedding model"):
        emb.embed_query("hello")


def test_e5_models_get_prefixes() -> None:
    emb = FastEmbedEmbedder("intfloat/multilingual-e5-large")
    assert (emb.query_prefix, emb.passage_prefix) == ("query: ", "passage: ")
    assert FastEmbedEmbedder("BAAI/bge-small-en-v1.5").query_prefix == ""


class _Recorder(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []
    status = 200

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(
            {"path": self.path, "auth": self.headers["Authorization"], "body": body}
        )
        vectors = [[3.0, 4.0] + [0.0] * 1022 for _ in body["text"]]
        payload = {"success": True, "result": {"shape": [len(vectors), 1024], "data": vectors}}
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(payload).encode())

    def log_message(self, *args: object) -> None: ...


@pytest.fixture
def cf_server() -> Iterator[str]:
    pytest.importorskip("httpx", reason="memo[cloud] not installed")
    _Recorder.requests = []
    _Recorder.status = 200
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/client/v4"
    finally:
        server.shutdown()
        server.server_close()  # shutdown() stops the loop; the listening socket stays open
        thread.join(timeout=5)


def test_cloudflare_embedder_against_local_server(cf_server: str, tmp_path: Path) -> None:
    ledger = SpendLedger(tmp_path / "ledger.db")
    emb = CloudflareEmbedder("acc1", "tok", base_url=cf_server, batch_size=2, ledger=ledger)
    vectors = emb.embed_documents(["a", "b", "c"])
    assert len(vectors) == 3 and vectors[0][:2] == pytest.approx([0.6, 0.8])
    assert [len(r["body"]["text"]) for r in _Recorder.requests] == [2, 1]
    assert _Recorder.requests[0]["path"].endswith("/accounts/acc1/ai/run/@cf/baai/bge-m3")
    assert _Recorder.requests[0]["auth"] == "Bearer tok"
    emb.embed_query("question")
    assert ledger.month_spend("cloudflare") > 0
    assert len(ledger.db.query("SELECT * FROM spend")) == 3  # query embeddings are charged too


def test_cloudflare_http_error_is_provider_error(cf_server: str) -> None:
    _Recorder.status = 500
    with pytest.raises(ProviderError):
        CloudflareEmbedder("acc", "tok", base_url=cf_server).embed_query("x")


def test_ceiling_stops_paid_calls_before_the_request(cf_server: str, tmp_path: Path) -> None:
    ledger = SpendLedger(tmp_path / "ledger.db", ceilings={"cloudflare": 0.0})
    with pytest.raises(BudgetExceededError):
        CloudflareEmbedder("acc", "tok", base_url=cf_server, ledger=ledger).embed_query("x")
    assert _Recorder.requests == []


def test_ledger_check_and_record_are_one_transaction(tmp_path: Path) -> None:
    ledger = SpendLedger(tmp_path / "l.db", ceilings={"cohere": 0.005})
    ledger.charge("cohere", "rerank", 1)
    ledger.charge("cohere", "rerank", 1)
    with pytest.raises(BudgetExceededError):
        ledger.charge("cohere", "rerank", 1)
    assert ledger.month_spend("cohere") == pytest.approx(0.004)
    assert ledger.by_provider() == {"cohere": pytest.approx(0.004)}


class _FakeCohere:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def rerank(self, *, model: str, query: str, documents: list[str], top_n: int) -> Any:
        if self.fail:
            raise ConnectionError("provider down")

        class R:
            def __init__(self, index: int, score: float) -> None:
                self.index, self.relevance_score = index, score

        class Resp:
            results: ClassVar[list[Any]] = [
                R(i, 1.0 if "term" in d else 0.1) for i, d in enumerate(documents)
            ]

        return Resp()


def test_cohere_reranker_reorders(tmp_path: Path) -> None:
    from memo_core.kb import MemoBase

    kb = MemoBase(
        tmp_path / "kb.db",
        embedder=HashEmbedder(64),
        reranker=CohereReranker("key", client=_FakeCohere()),
    )
    kb.add_texts(["contract contract contract", "the term of it"], ids=["a", "b"])
    hits = kb.search("contract term", k=2)
    assert hits[0].document_id == "b" and hits[0].rerank_score == 1.0


def test_failing_reranker_falls_back_to_fused_order(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from memo_core.kb import MemoBase

    kb = MemoBase(
        tmp_path / "kb.db",
        embedder=HashEmbedder(64),
        reranker=CohereReranker("key", client=_FakeCohere(fail=True)),
    )
    kb.add_texts(["contract contract contract", "the term of it"], ids=["a", "b"])
    hits = kb.search("contract", k=2)
    assert hits[0].document_id == "a" and hits[0].rerank_score is None
    assert "keeping fused order" in caplog.text


def test_safe_reranker_rejects_wrong_length() -> None:
    class Bad:
        name = "bad"

        def rerank(self, query: str, texts: Any) -> list[float]:
            return [1.0]

    assert SafeReranker(Bad()).rerank("q", ["a", "b"]) is None


def test_local_cross_encoder_without_a_model_falls_back(tmp_path: Path) -> None:
    pytest.importorskip("fastembed", reason="memo[local] not installed")
    from memo_core.kb import MemoBase
    from memo_core.rerank import CrossEncoderReranker

    reranker = CrossEncoderReranker("Xenova/ms-marco-MiniLM-L-6-v2", model_path=tmp_path / "none")
    kb = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64), reranker=reranker)
    kb.add_texts(["contract contract contract", "the term of it"], ids=["a", "b"])
    hits = kb.search("contract", k=2)  # the model folder is empty: fused order, no exception
    assert hits[0].document_id == "a" and hits[0].rerank_score is None


class _FakeCrossEncoder:
    """Stands in for fastembed's TextCrossEncoder: records registrations and loads."""

    registered: ClassVar[dict[str, str]] = {}
    loaded: ClassVar[list[tuple[str, str | None]]] = []

    @classmethod
    def add_custom_model(cls, model: str, sources: Any, model_file: str) -> None:
        if model in cls.registered:
            raise ValueError(f"Model {model} is already registered")
        cls.registered[model] = model_file

    def __init__(self, model_name: str, specific_model_path: str | None = None) -> None:
        if model_name not in self.registered:
            raise ValueError(f"Model {model_name} is not supported")
        self.loaded.append((model_name, specific_model_path))
        self.batches: list[list[str]] = []

    def rerank(self, query: str, documents: list[str]) -> Iterator[float]:
        self.batches.append(list(documents))
        yield from (2.0 if query.split()[0] in d else -2.0 for d in documents)


@pytest.fixture
def fake_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cross-encoder folder that fastembed's stand-in loads."""
    pytest.importorskip("fastembed", reason="memo[local] not installed")
    import fastembed.rerank.cross_encoder as cross_encoder

    monkeypatch.setattr(cross_encoder, "TextCrossEncoder", _FakeCrossEncoder)
    monkeypatch.setattr(_FakeCrossEncoder, "registered", {})
    monkeypatch.setattr(_FakeCrossEncoder, "loaded", [])
    (tmp_path / "model.onnx").write_bytes(b"")
    return tmp_path


def test_a_local_cross_encoder_folder_loads_under_any_name(fake_folder: Path) -> None:
    from memo_core.rerank import CrossEncoderReranker

    first = CrossEncoderReranker("my/reranker", model_path=fake_folder)
    scores = first.rerank("kettle boils", ["the kettle", "a train"])
    assert scores == pytest.approx([1 / (1 + math.exp(-2.0)), 1 / (1 + math.exp(2.0))])
    assert _FakeCrossEncoder.registered == {"my/reranker": "model.onnx"}
    assert _FakeCrossEncoder.loaded == [("my/reranker", str(fake_folder))]  # from the folder
    # a second reranker of the same name: already registered, still loads
    CrossEncoderReranker("my/reranker", model_path=fake_folder).rerank("kettle", ["kettle"])
    assert len(_FakeCrossEncoder.loaded) == 2


def test_the_config_builds_a_local_cross_encoder(tmp_path: Path) -> None:
    from memo_core.cli.kb import _reranker
    from memo_core.config import Settings
    from memo_core.rerank import CrossEncoderReranker

    folder = tmp_path / "ce-model"
    built = _reranker(Settings(rerank={"provider": "local", "path": str(folder)}))
    assert isinstance(built, CrossEncoderReranker)
    assert (built.model_name, built.model_path) == ("local/ce-model", folder)
    named = _reranker(
        Settings(rerank={"provider": "local", "model": "org/ce", "path": str(folder)})
    )
    assert isinstance(named, CrossEncoderReranker) and named.model_name == "org/ce"
    assert _reranker(Settings(rerank={"provider": "local"})) is None  # nothing to load
    assert _reranker(Settings(rerank={})) is None


class _Vector(list):  # what fastembed yields: an array with tolist()
    def tolist(self) -> list[float]:
        return list(self)


class _RecordingModel:
    """Stands in for fastembed.TextEmbedding: records each batch, embeds a text as its length."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed(self, texts: list[str], batch_size: int) -> list[_Vector]:
        self.batches.append(list(texts))
        return [_Vector([float(len(t)), 1.0]) for t in texts]


def test_fastembed_batches_texts_of_similar_length_and_keeps_the_callers_order() -> None:
    from memo_core.embedders.fastembed import FastEmbedEmbedder

    embedder = FastEmbedEmbedder("any/model", dimensions=2, batch_size=2)
    model = _RecordingModel()
    embedder._model = model  # loaded: no model file needed
    texts = ["a" * 9, "a", "a" * 5, "a" * 2, "a" * 7]
    vectors = embedder.embed_documents(texts)
    assert vectors == [[float(len(t)), 1.0] for t in texts]
    assert model.batches == [["a", "aa"], ["a" * 5, "a" * 7], ["a" * 9]]


def test_fastembed_threads_default_to_the_cpus_this_process_may_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from memo_core.embedders import fastembed as module

    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3, 5})
        assert module.usable_cpus() == 3
    assert module.usable_cpus() >= 1


def test_a_local_cross_encoder_reads_pairs_shortest_first_in_batches(
    fake_folder: Path,
) -> None:
    from memo_core.rerank import CrossEncoderReranker

    reranker = CrossEncoderReranker("my/reranker", model_path=fake_folder)
    reranker.batch_size = 4
    texts = ["a long line about the kettle on the stove", "kettle", "no", "a train at noon",
             "the kettle", "a slow train", "boats"]  # fmt: skip
    scores = reranker.rerank("kettle boils", texts)
    # each score stays with its own text, whatever order the pairs were read in
    assert [s > 0.5 for s in scores] == ["kettle" in t for t in texts]
    batches = reranker._model.batches
    assert [len(b) for b in batches] == [4, 3]
    read = [t for b in batches for t in b]
    assert sorted(read) == sorted(texts) and [len(t) for t in read] == sorted(map(len, texts))
