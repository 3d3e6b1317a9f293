"""Every paid call reaches the spend ledger: LLM, transcription, and the CLI's wiring."""

from __future__ import annotations

import json
import math
import multiprocessing
import struct
import time
import wave
from pathlib import Path

import pytest
from ops_fakes import FakeAPI
from ops_workers import charge_many

from memo_core.cli import main
from memo_core.embedders.hash import HashEmbedder
from memo_core.errors import BudgetExceededError
from memo_core.ingest import IngestPolicy
from memo_core.ingest.audio import AudioPiece, Transcript, TranscriptSegment
from memo_core.ingest.transcribers import HTTPWhisperTranscriber
from memo_core.kb.base import MemoBase
from memo_core.kb.ingest import MeteredTranscriber, ingest_sources
from memo_core.ledger import PRICES_USD, SpendLedger, provider_for_url
from memo_core.llm import ChatMessage, OpenAICompatibleLLM

GOOD = "good-key-1234567890"


def _rows(ledger: SpendLedger) -> list[tuple[str, str, float, float]]:
    return [
        (str(p), str(k), float(u), float(c))
        for p, k, u, c in ledger.db.query("SELECT provider, kind, units, cost_usd FROM spend")
    ]


# -- LLM ---------------------------------------------------------------------


def test_llm_calls_are_charged_before_the_request(tmp_path: Path, fake_api: FakeAPI) -> None:
    ledger = SpendLedger(tmp_path / "spend.db")
    llm = OpenAICompatibleLLM(
        f"{fake_api.base}/v1", "tiny", api_key=GOOD, ledger=ledger, provider="openai"
    )
    prompt = [ChatMessage("system", "x" * 40), ChatMessage("user", "y" * 21)]  # 61 chars
    assert llm.complete(prompt, max_tokens=50) == "pong"
    assert llm.complete(prompt) == "pong"  # no max_tokens: the default reply allowance
    llm.close()
    price = PRICES_USD[("openai", "llm")]
    assert _rows(ledger) == [
        ("openai", "llm", 16 + 50, pytest.approx(66 * price)),
        ("openai", "llm", 16 + 1024, pytest.approx(1040 * price)),
    ]


def test_llm_over_the_ceiling_sends_nothing(tmp_path: Path, fake_api: FakeAPI) -> None:
    price = PRICES_USD[("groq", "llm")]
    ledger = SpendLedger(tmp_path / "spend.db", ceilings={"groq": 150 * price})
    llm = OpenAICompatibleLLM(
        f"{fake_api.base}/v1", "tiny", api_key=GOOD, ledger=ledger, provider="groq"
    )
    message = [ChatMessage("user", "hello")]
    llm.complete(message, max_tokens=100)  # 2 + 100 tokens: under the ceiling
    with pytest.raises(BudgetExceededError, match="groq"):
        llm.complete(message, max_tokens=100)  # another 102 would pass it
    llm.close()
    assert fake_api.paths("POST") == ["/v1/chat/completions"]  # the refused call never left
    assert len(_rows(ledger)) == 1


def test_provider_names_come_from_the_host() -> None:
    assert provider_for_url("https://api.openai.com/v1") == "openai"
    assert provider_for_url("https://api.groq.com/openai/v1") == "groq"
    assert provider_for_url("https://generativelanguage.googleapis.com/v1beta/openai") == "gemini"
    assert provider_for_url("http://localhost:11434/v1") == "openai-compatible"
    llm = OpenAICompatibleLLM("https://api.groq.com/openai/v1", "m", api_key="k")
    assert llm.provider == "groq" and llm.ledger is None


# -- transcription -------------------------------------------------------------


def _wav(path: Path, seconds: float, rate: int = 8000) -> Path:
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
        for i in range(int(seconds * rate))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return path


def test_hosted_transcription_is_charged_per_second(tmp_path: Path, fake_api: FakeAPI) -> None:
    audio = _wav(tmp_path / "talk.wav", 2.5)
    ledger = SpendLedger(tmp_path / "spend.db")
    whisper = HTTPWhisperTranscriber(
        f"{fake_api.base}/openai/v1", GOOD, "whisper-large-v3-turbo", provider="groq"
    )
    policy = IngestPolicy.for_roots([tmp_path], audio_piece_seconds=1.0)
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        report = ingest_sources(kb, [audio], policy=policy, transcriber=whisper, ledger=ledger)
        assert report.added == [str(audio)] and not report.failed
        assert kb.search("fake whisper", k=1, mode="keyword")
    rows = _rows(ledger)
    assert [r[:2] for r in rows] == [("groq", "transcription")] * 3  # pieces of 1 + 1 + 0.5 s
    assert sum(r[2] for r in rows) == pytest.approx(2.5)
    assert ledger.month_spend("groq") == pytest.approx(2.5 * 0.04 / 3600)
    assert fake_api.paths("POST").count("/openai/v1/audio/transcriptions") == 3


class LocalStub:
    """Stands in for faster-whisper: free, so never charged."""

    name = "local-stub"
    max_piece_bytes = None

    def __init__(self) -> None:
        self.pieces = 0

    def transcribe_piece(self, piece: AudioPiece) -> Transcript:
        self.pieces += 1
        return Transcript([TranscriptSegment(0.0, piece.duration, "spoken locally")], "en")


def test_transcription_over_the_ceiling_falls_back_or_fails(
    tmp_path: Path, fake_api: FakeAPI
) -> None:
    audio = _wav(tmp_path / "talk.wav", 3.0)
    policy = IngestPolicy.for_roots([tmp_path], audio_piece_seconds=1.0)
    ceiling = 1.5 * 0.04 / 3600  # one and a half seconds of Groq audio
    ledger = SpendLedger(tmp_path / "spend.db", ceilings={"groq": ceiling})

    def whisper() -> HTTPWhisperTranscriber:
        return HTTPWhisperTranscriber(
            f"{fake_api.base}/openai/v1", GOOD, "whisper-large-v3-turbo", provider="groq"
        )

    # No local fallback: the source fails with the budget error, the rest is not sent.
    with MemoBase(tmp_path / "a.db", embedder=HashEmbedder(32)) as kb:
        report = ingest_sources(kb, [audio], policy=policy, transcriber=whisper(), ledger=ledger)
    assert not report.added and report.failed[0]["type"] == "BudgetExceededError"
    assert fake_api.paths("POST").count("/openai/v1/audio/transcriptions") == 1
    assert ledger.month_spend("groq") <= ceiling

    # With a local fallback the file is finished locally.
    stub = LocalStub()
    metered = MeteredTranscriber(whisper, ledger, fallback=lambda: stub)
    with MemoBase(tmp_path / "b.db", embedder=HashEmbedder(32)) as kb:
        report = ingest_sources(kb, [audio], policy=policy, transcriber=metered)
        assert report.added == [str(audio)]
        assert kb.search("spoken locally", k=1, mode="keyword")
    assert stub.pieces == 3 and metered.name == "local-stub"
    assert fake_api.paths("POST").count("/openai/v1/audio/transcriptions") == 1


def test_local_transcription_is_not_charged(tmp_path: Path) -> None:
    ledger = SpendLedger(tmp_path / "spend.db", ceilings={"groq": 0.0})
    stub = LocalStub()
    metered = MeteredTranscriber(lambda: stub, ledger)
    audio = _wav(tmp_path / "a.wav", 1.0)
    policy = IngestPolicy.for_roots([tmp_path])
    with MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(32)) as kb:
        assert ingest_sources(kb, [audio], policy=policy, transcriber=metered).added
    assert _rows(ledger) == []


# -- the CLI: one ledger in the config folder, written by providers, read by status ----


def _configure(folder: Path, text: str, secrets: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(text, encoding="utf-8")
    (folder / "secrets.env").write_text(secrets, encoding="utf-8")


def test_cli_charges_the_config_ledger_and_status_shows_it(
    tmp_path: Path,
    fake_api: FakeAPI,
    config_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMO_CLOUDFLARE_BASE_URL", f"{fake_api.base}/client/v4")
    monkeypatch.setattr(  # no cached faster-whisper model: the hosted endpoint is chosen
        "memo_core.ingest.transcribers.LocalWhisperTranscriber.model_available",
        staticmethod(lambda model: False),
    )
    _configure(
        config_home,
        "memobase:\n  embedder: {provider: cloudflare, dims: 4}\n"
        "spend:\n  ceilings: {cloudflare: 1.0}\n",
        f"CLOUDFLARE_ACCOUNT_ID=acc\nCLOUDFLARE_API_TOKEN={GOOD}\n"
        f"MEMO_WHISPER_API_KEY={GOOD}\nMEMO_WHISPER_API_BASE={fake_api.base}/openai/v1\n",
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Tea\n\nGreen tea is steeped at 80 degrees.\n")
    _wav(docs / "talk.wav", 1.0)
    db = str(tmp_path / "kb.db")
    code = main(["kb", "ingest", str(docs), "--db", db, "--root", str(docs), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and len(report["added"]) == 2, report

    ledger = SpendLedger(config_home / "spend.db")
    kinds = {(p, k) for p, k, _, _ in _rows(ledger)}
    assert kinds == {("cloudflare", "embedding"), ("openai-compatible", "transcription")}
    ledger.db.close()
    code = main(["kb", "status", "--db", db, "--json"])
    status = json.loads(capsys.readouterr().out)
    assert code == 0 and status["spend_ledger"] == str(config_home / "spend.db")
    assert status["spend_usd_this_month"]["cloudflare"] > 0
    assert "openai-compatible" in status["spend_usd_this_month"]
    assert status["spend_ceilings_usd"] == {"cloudflare": 1.0}
    assert not (tmp_path / "home").exists()  # nothing written outside the config folder

    # Over the ceiling the query embedding is refused and search goes keyword-only.
    (config_home / "config.yaml").write_text(
        "memobase:\n  embedder: {provider: cloudflare, dims: 4}\n"
        "spend:\n  ceilings: {cloudflare: 0.0}\n"
    )
    sent = len(fake_api.requests)
    code = main(["kb", "search", "green tea", "--db", db, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "monthly ceiling" in err and "keyword search only" in err
    assert json.loads(out)[0]["source"].endswith("note.md")
    assert len(fake_api.requests) == sent  # no paid request was made


def test_cli_ask_falls_back_to_extractive_over_the_llm_ceiling(
    tmp_path: Path,
    fake_api: FakeAPI,
    config_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _configure(
        config_home,
        "memobase:\n"
        "  embedder: {provider: hash, dims: 64}\n"
        f"  llm: {{base_url: '{fake_api.base}/v1', model: tiny, api_key_env: MEMO_LLM_API_KEY,"
        " provider: openai}\n"
        "spend:\n  ceilings: {openai: 0.0}\n",
        f"MEMO_LLM_API_KEY={GOOD}\n",
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tea.md").write_text(
        "# Tea\n\nGreen tea is steeped at a temperature of 80 degrees Celsius.\n"
    )
    db = str(tmp_path / "kb.db")
    assert main(["kb", "ingest", str(docs), "--db", db, "--root", str(docs), "--json"]) == 0
    capsys.readouterr()
    code = main(["kb", "ask", "At what temperature is green tea steeped?", "--db", db, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "answering extractively" in err
    assert "refused" in json.loads(out)
    assert fake_api.paths("POST") == []  # the LLM was never called


# -- the ceiling holds across processes ------------------------------------------


@pytest.mark.slow
def test_concurrent_charges_from_eight_processes_never_pass_the_ceiling(tmp_path: Path) -> None:
    path = str(tmp_path / "spend.db")
    SpendLedger(path).db.close()  # schema first, so the workers only race on charges
    ceiling = 0.0501  # room for exactly 25 searches at $0.002
    start_at = time.time() + 1.0
    context = multiprocessing.get_context("spawn")
    with context.Pool(8) as pool:
        accepted = pool.starmap(charge_many, [(path, ceiling, 10, start_at)] * 8)
    ledger = SpendLedger(path)
    assert sum(accepted) == 25 and len(_rows(ledger)) == 25
    assert ledger.month_spend("cohere") <= ceiling
    assert sum(1 for n in accepted if n) > 1  # several processes really took part
    ledger.db.close()
