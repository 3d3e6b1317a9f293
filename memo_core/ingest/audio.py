"""Audio and video files: transcribed in pieces, with segment timecodes as locators.

A long recording is cut into pieces of ``policy.audio_piece_seconds`` (PCM WAV with
the standard library, anything else through PyAV, which faster-whisper brings);
each piece is transcribed on its own, its segment times shifted by the piece's
offset, and a progress callback hears ``(seconds done, total seconds)`` after each.
Segments with real timecodes give a normal-trust document; a transcriber that
returned only text gets evenly spread, estimated timecodes and ``trust="low"``.
"""

from __future__ import annotations

import io
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memo_core.errors import ExtractionError, MissingDependencyError
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.types import ExtractedDocument

__all__ = [
    "AUDIO_SUFFIXES",
    "AudioPiece",
    "ProgressCallback",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "audio_duration",
    "extract_audio",
    "split_audio",
    "transcribe_file",
]

AUDIO_SUFFIXES = frozenset(
    {
        ".wav",
        ".mp3",
        ".m4a",
        ".ogg",
        ".oga",
        ".opus",
        ".flac",
        ".aac",
        ".wma",
        ".webm",
        ".mp4",
        ".m4v",
        ".mkv",
        ".mov",
        ".avi",
    }
)
_SAMPLE_RATE = 16_000

#: Called after each piece with (seconds transcribed so far, total seconds or 0 if unknown).
ProgressCallback = Callable[[float, float], None]


@dataclass(frozen=True)
class TranscriptSegment:
    """Speech from ``start`` to ``end`` seconds."""

    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Transcript:
    """Segments in time order; ``estimated`` when their times are guesses."""

    segments: list[TranscriptSegment]
    language: str | None = None
    estimated: bool = False


@dataclass(frozen=True)
class AudioPiece:
    """A WAV-encoded piece of a recording, starting ``offset`` seconds in."""

    offset: float
    duration: float
    wav: bytes


class Transcriber(Protocol):
    """Turns one audio piece into segments timed from the piece's own start."""

    name: str
    #: The largest WAV piece the transcriber accepts (an API's upload limit), or None.
    max_piece_bytes: int | None

    def transcribe_piece(self, piece: AudioPiece) -> Transcript: ...


def _wav_bytes(frames: bytes, channels: int, width: int, rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(width)
        out.setframerate(rate)
        out.writeframes(frames)
    return buffer.getvalue()


def _frames_per_piece(seconds: float, rate: int, frame_bytes: int, max_bytes: int | None) -> int:
    frames = max(int(seconds * rate), 1)
    if max_bytes:
        frames = min(frames, max((max_bytes - 1024) // frame_bytes, 1))
    return frames


def _split_wav(path: Path, seconds: float, max_bytes: int | None) -> Iterator[AudioPiece]:
    with wave.open(str(path), "rb") as source:
        channels, width, rate = source.getnchannels(), source.getsampwidth(), source.getframerate()
        step = _frames_per_piece(seconds, rate, channels * width, max_bytes)
        done = 0
        while True:
            frames = source.readframes(step)
            count = len(frames) // (channels * width)
            if count == 0:
                return
            yield AudioPiece(done / rate, count / rate, _wav_bytes(frames, channels, width, rate))
            done += count


def _split_av(path: Path, seconds: float, max_bytes: int | None) -> Iterator[AudioPiece]:
    try:
        import av
    except ImportError:
        raise MissingDependencyError(
            "av", "audio", f"decoding {path.suffix or 'this'} audio"
        ) from None
    step = _frames_per_piece(seconds, _SAMPLE_RATE, 2, max_bytes) * 2
    resampler = av.AudioResampler(format="s16", layout="mono", rate=_SAMPLE_RATE)
    buffer = bytearray()
    done = 0
    try:
        with av.open(str(path)) as container:
            if not container.streams.audio:
                raise ExtractionError(f"{path} has no audio track")
            for frame in container.decode(audio=0):
                for out in resampler.resample(frame):
                    buffer += bytes(out.planes[0])[: out.samples * 2]
                while len(buffer) >= step:
                    chunk = bytes(buffer[:step])
                    del buffer[:step]
                    yield AudioPiece(
                        done / _SAMPLE_RATE,
                        step / 2 / _SAMPLE_RATE,
                        _wav_bytes(chunk, 1, 2, _SAMPLE_RATE),
                    )
                    done += step // 2
            for out in resampler.resample(None):
                buffer += bytes(out.planes[0])[: out.samples * 2]
    except ExtractionError:
        raise
    except Exception as exc:  # PyAV raises its own error types for unreadable media
        raise ExtractionError(f"cannot decode audio in {path}: {exc}") from None
    if buffer:
        yield AudioPiece(
            done / _SAMPLE_RATE,
            len(buffer) / 2 / _SAMPLE_RATE,
            _wav_bytes(bytes(buffer), 1, 2, _SAMPLE_RATE),
        )


def split_audio(
    path: Path, *, piece_seconds: float, max_piece_bytes: int | None = None
) -> Iterator[AudioPiece]:
    """Cut a recording into WAV pieces of at most ``piece_seconds`` (and ``max_piece_bytes``)."""
    if path.suffix.lower() == ".wav":
        try:
            with wave.open(str(path), "rb"):
                pass
        except (wave.Error, EOFError):
            pass  # not plain PCM (e.g. float WAV): let PyAV decode it
        else:
            yield from _split_wav(path, piece_seconds, max_piece_bytes)
            return
    yield from _split_av(path, piece_seconds, max_piece_bytes)


def audio_duration(path: Path) -> float | None:
    """The recording's length in seconds, when it can be read cheaply."""
    try:
        with wave.open(str(path), "rb") as source:
            return source.getnframes() / source.getframerate()
    except (wave.Error, EOFError, OSError):
        pass
    try:
        import av

        with av.open(str(path)) as container:
            return float(container.duration) / 1_000_000 if container.duration else None
    except Exception:  # no PyAV, or a file it cannot read: progress without a total
        return None


def transcribe_file(
    path: Path,
    transcriber: Transcriber,
    *,
    piece_seconds: float,
    progress: ProgressCallback | None = None,
) -> tuple[Transcript, float]:
    """Transcribe ``path`` piece by piece; return the transcript and its duration."""
    total = audio_duration(path) or 0.0
    segments: list[TranscriptSegment] = []
    estimated = False
    language: str | None = None
    done = 0.0
    for piece in split_audio(
        path, piece_seconds=piece_seconds, max_piece_bytes=transcriber.max_piece_bytes
    ):
        result = transcriber.transcribe_piece(piece)
        estimated = estimated or result.estimated
        language = language or result.language
        for segment in result.segments:
            start = piece.offset + max(segment.start, 0.0)
            end = piece.offset + min(max(segment.end, segment.start), piece.duration)
            segments.append(
                TranscriptSegment(round(start, 3), round(max(end, start), 3), segment.text)
            )
        done = piece.offset + piece.duration
        if progress is not None:
            progress(done, max(total, done))
    return Transcript(segments, language, estimated), max(total, done)


def extract_audio(
    path: Path,
    *,
    source: str,
    title: str,
    transcriber: Transcriber,
    piece_seconds: float,
    progress: ProgressCallback | None = None,
) -> ExtractedDocument:
    """A transcript document: one section per speech segment, located by its timecodes."""
    transcript, duration = transcribe_file(
        path, transcriber, piece_seconds=piece_seconds, progress=progress
    )
    builder = DocumentBuilder(separator="\n")
    for segment in transcript.segments:
        builder.add(segment.text, {"start_time": segment.start, "end_time": segment.end})
    if builder.is_empty:
        raise ExtractionError(f"no speech was recognised in {path}")
    metadata: dict[str, Any] = {
        "transcriber": transcriber.name,
        "language": transcript.language,
        "duration": round(duration, 3),
        "estimated_timecodes": transcript.estimated,
    }
    return builder.build(
        source=source,
        title=title,
        kind="audio",
        metadata=metadata,
        trust="low" if transcript.estimated else "normal",
    )
