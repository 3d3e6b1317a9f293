"""Speech-to-text back ends: local faster-whisper, or an OpenAI-compatible endpoint.

:class:`LocalWhisperTranscriber` runs faster-whisper (CTranslate2, no PyTorch; the
``audio`` extra). A model name is fetched by faster-whisper on first use, a folder
path is used as is; tests inject a ``model_factory`` instead.
:class:`HTTPWhisperTranscriber` posts each piece to ``{base}/audio/transcriptions``
(OpenAI, Groq and compatible servers) and reports the audio seconds it paid for
through ``usage`` so the spend ledger can record them. The endpoint is operator
configuration, not document content, so it is not subject to the SSRF guard.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memo_core.errors import MissingDependencyError, ProviderError
from memo_core.ingest.audio import AudioPiece, Transcriber, Transcript, TranscriptSegment
from memo_core.ingest.deps import require

__all__ = [
    "HTTPWhisperTranscriber",
    "LocalWhisperTranscriber",
    "UsageCallback",
    "estimate_segments",
    "select_transcriber",
    "transcriber_from_env",
]

#: Called after each paid piece with (provider, model, audio seconds).
UsageCallback = Callable[[str, str, float], None]

_SENTENCE = re.compile(r"[^.!?…]+(?:[.!?…]+|$)")
#: Upload limit of the common hosted endpoints is 25 MB; stay under it.
DEFAULT_MAX_PIECE_BYTES = 24 * 1024 * 1024

#: Known hosted endpoints: key variable -> (base URL, default model, provider name).
HOSTED_ENDPOINTS = {
    "GROQ_API_KEY": ("https://api.groq.com/openai/v1", "whisper-large-v3-turbo", "groq"),
    "OPENAI_API_KEY": ("https://api.openai.com/v1", "whisper-1", "openai"),
}


def estimate_segments(text: str, duration: float) -> list[TranscriptSegment]:
    """Spread ``text`` over ``duration`` seconds, sentence by sentence, by length."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    total = sum(len(s) for s in sentences)
    segments: list[TranscriptSegment] = []
    elapsed = 0.0
    for sentence in sentences:
        length = duration * len(sentence) / total if total else 0.0
        segments.append(TranscriptSegment(round(elapsed, 3), round(elapsed + length, 3), sentence))
        elapsed += length
    return segments


class LocalWhisperTranscriber:
    """faster-whisper on the CPU, int8 by default."""

    name = "faster-whisper"
    max_piece_bytes: int | None = None

    def __init__(
        self,
        model: str | Path = "base",
        *,
        device: str = "cpu",
        compute_type: str = "int8",
        language: str | None = None,
        beam_size: int = 1,
        model_factory: Callable[[], Any] | None = None,
    ) -> None:
        self.model = model
        self.device = device
        self.compute_type = compute_type
        self.language = language
        self.beam_size = beam_size
        self._factory = model_factory
        self._loaded: Any = None

    @staticmethod
    def model_available(model: str | Path) -> bool:
        """True when ``model`` is a local folder or already in faster-whisper's cache."""
        if Path(model).is_dir():
            return True
        try:
            utils = require("faster_whisper.utils", package="faster-whisper", extra="audio")
            utils.download_model(str(model), local_files_only=True)
        except Exception:  # not installed, or not cached: it would need a download
            return False
        return True

    def _model(self) -> Any:
        if self._loaded is None:
            if self._factory is not None:
                self._loaded = self._factory()
            else:
                module = require(
                    "faster_whisper",
                    package="faster-whisper",
                    extra="audio",
                    feature="local transcription",
                )
                try:
                    self._loaded = module.WhisperModel(
                        str(self.model), device=self.device, compute_type=self.compute_type
                    )
                except Exception as exc:  # download refused, corrupt model folder...
                    raise ProviderError(f"cannot load whisper model {self.model}: {exc}") from None
        return self._loaded

    def transcribe_piece(self, piece: AudioPiece) -> Transcript:
        try:
            segments, info = self._model().transcribe(
                io.BytesIO(piece.wav), language=self.language, beam_size=self.beam_size
            )
            found = [
                TranscriptSegment(float(s.start), float(s.end), str(s.text).strip())
                for s in segments
            ]
        except ProviderError:
            raise
        except Exception as exc:
            raise ProviderError(f"local transcription failed: {exc}") from None
        return Transcript([s for s in found if s.text], language=getattr(info, "language", None))


class HTTPWhisperTranscriber:
    """An OpenAI-compatible ``/audio/transcriptions`` endpoint."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str = "whisper-1",
        *,
        provider: str = "openai-compatible",
        timeout: float = 300.0,
        max_piece_bytes: int = DEFAULT_MAX_PIECE_BYTES,
        usage: UsageCallback | None = None,
        transport: Any = None,
    ) -> None:
        if not api_key:
            raise ProviderError("a transcription API key is required")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = provider
        self.max_piece_bytes: int | None = max_piece_bytes
        self._key = api_key
        self._timeout = timeout
        self._usage = usage
        self._transport = transport

    def __repr__(self) -> str:  # never show the key
        return f"HTTPWhisperTranscriber({self.base_url!r}, model={self.model!r})"

    def transcribe_piece(self, piece: AudioPiece) -> Transcript:
        httpx = require("httpx", package="httpx", extra="audio", feature="hosted transcription")
        try:
            with httpx.Client(timeout=self._timeout, transport=self._transport) as client:
                response = client.post(
                    f"{self.base_url}/audio/transcriptions",
                    headers={"Authorization": f"Bearer {self._key}"},
                    data={
                        "model": self.model,
                        "response_format": "verbose_json",
                        "timestamp_granularities[]": "segment",
                    },
                    files={"file": ("piece.wav", piece.wav, "audio/wav")},
                )
        except httpx.HTTPError as exc:
            raise ProviderError(
                f"transcription request failed: {exc.__class__.__name__}: {exc}"
            ) from None
        if response.status_code >= 400:
            raise ProviderError(
                f"transcription endpoint answered HTTP {response.status_code}: {response.text[:200]}"
            )
        try:
            payload = response.json()
        except ValueError:
            raise ProviderError(
                "transcription endpoint returned something other than JSON"
            ) from None
        if self._usage is not None:
            self._usage(self.name, self.model, piece.duration)
        return _parse_response(payload, piece.duration)


def _parse_response(payload: Any, duration: float) -> Transcript:
    if not isinstance(payload, dict):
        raise ProviderError("unexpected transcription response")
    language = payload.get("language")
    raw_segments = payload.get("segments")
    if isinstance(raw_segments, list) and raw_segments:
        try:
            segments = [
                TranscriptSegment(float(s["start"]), float(s["end"]), str(s["text"]).strip())
                for s in raw_segments
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"malformed transcription segment: {exc}") from None
        return Transcript([s for s in segments if s.text], language=language)
    text = str(payload.get("text") or "")
    return Transcript(estimate_segments(text, duration), language=language, estimated=True)


def select_transcriber(
    *,
    local_model: str | Path = "base",
    api_key: str | None = None,
    api_base: str | None = None,
    api_model: str = "whisper-1",
    provider: str = "openai-compatible",
    usage: UsageCallback | None = None,
) -> Transcriber:
    """Local when its model is at hand, else the API when a key is set, else local anyway.

    The last case lets faster-whisper download its model on first use; without
    faster-whisper and without a key, MissingDependencyError names the extra.
    """
    if LocalWhisperTranscriber.model_available(local_model):
        return LocalWhisperTranscriber(local_model)
    if api_key and api_base:
        return HTTPWhisperTranscriber(api_base, api_key, api_model, provider=provider, usage=usage)
    try:
        require("faster_whisper", package="faster-whisper", extra="audio")
    except MissingDependencyError:
        raise MissingDependencyError(
            "faster-whisper", "audio", "transcription (or set a transcription API key)"
        ) from None
    return LocalWhisperTranscriber(local_model)


def transcriber_from_env(
    env: Mapping[str, str], *, usage: UsageCallback | None = None
) -> Transcriber:
    """:func:`select_transcriber` configured from environment variables.

    ``MEMO_WHISPER_MODEL`` (local model name or folder, default ``base``);
    ``MEMO_WHISPER_API_KEY`` with ``MEMO_WHISPER_API_BASE`` and ``MEMO_WHISPER_API_MODEL``
    for any compatible server, else ``GROQ_API_KEY`` or ``OPENAI_API_KEY``.
    """
    local = env.get("MEMO_WHISPER_MODEL") or "base"
    if env.get("MEMO_WHISPER_API_KEY") and env.get("MEMO_WHISPER_API_BASE"):
        return select_transcriber(
            local_model=local,
            api_key=env["MEMO_WHISPER_API_KEY"],
            api_base=env["MEMO_WHISPER_API_BASE"],
            api_model=env.get("MEMO_WHISPER_API_MODEL") or "whisper-1",
            usage=usage,
        )
    for variable, (base, model, provider) in HOSTED_ENDPOINTS.items():
        if env.get(variable):
            return select_transcriber(
                local_model=local,
                api_key=env[variable],
                api_base=base,
                api_model=env.get("MEMO_WHISPER_API_MODEL") or model,
                provider=provider,
                usage=usage,
            )
    return select_transcriber(local_model=local, usage=usage)
