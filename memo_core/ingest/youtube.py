"""YouTube videos by URL or id: captions with their timecodes as locators.

Captions come from a :class:`CaptionFetcher`: the default one asks YouTube through
youtube-transcript-api (the ``youtube`` extra); :class:`SavedCaptionFetcher` reads
caption files saved as JSON (``[{"text", "start", "duration"}, ...]``), for offline
use and tests. Caption timecodes are YouTube's own, so the document has full trust.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from memo_core.errors import ExtractionError
from memo_core.ingest.deps import require
from memo_core.ingest.normalize import DocumentBuilder
from memo_core.ingest.types import ExtractedDocument

__all__ = [
    "CaptionFetcher",
    "CaptionSnippet",
    "Captions",
    "SavedCaptionFetcher",
    "YouTubeCaptionFetcher",
    "extract_youtube",
    "youtube_video_id",
]

_VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_YOUTUBE_HOSTS = frozenset(
    {
        "youtube.com",
        "www.youtube.com",
        "m.youtube.com",
        "music.youtube.com",
        "youtube-nocookie.com",
        "www.youtube-nocookie.com",
    }
)


def youtube_video_id(source: str) -> str | None:
    """The video id of a YouTube URL (watch, youtu.be, shorts, embed, live) or a bare id."""
    source = source.strip()
    if _VIDEO_ID.match(source):
        return source
    try:
        parts = urlsplit(source)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    candidate: str | None = None
    if host in ("youtu.be", "www.youtu.be"):
        candidate = parts.path.strip("/").split("/")[0]
    elif host in _YOUTUBE_HOSTS:
        if parts.path.rstrip("/") == "/watch":
            candidate = (parse_qs(parts.query).get("v") or [""])[0]
        else:
            segments = parts.path.strip("/").split("/")
            if len(segments) >= 2 and segments[0] in ("shorts", "embed", "live", "v"):
                candidate = segments[1]
    return candidate if candidate and _VIDEO_ID.match(candidate) else None


@dataclass(frozen=True)
class CaptionSnippet:
    """One caption: its text, when it appears and how long it stays (seconds)."""

    text: str
    start: float
    duration: float


@dataclass(frozen=True)
class Captions:
    """A video's captions in one language."""

    snippets: list[CaptionSnippet]
    language: str | None = None
    generated: bool = False
    title: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class CaptionFetcher(Protocol):
    """Anything that returns a video's captions (the real API, saved files, a fake)."""

    def fetch(self, video_id: str, languages: Sequence[str]) -> Captions: ...


class YouTubeCaptionFetcher:
    """Captions from YouTube itself, through youtube-transcript-api."""

    def fetch(self, video_id: str, languages: Sequence[str]) -> Captions:
        module = require(
            "youtube_transcript_api",
            package="youtube-transcript-api",
            extra="youtube",
            feature="YouTube captions",
        )
        try:
            fetched = module.YouTubeTranscriptApi().fetch(video_id, languages=list(languages))
        except module.CouldNotRetrieveTranscript as exc:
            raise ExtractionError(
                f"no captions for YouTube video {video_id}: {exc.__class__.__name__}"
            ) from None
        except Exception as exc:  # network failures surface as requests' exceptions
            raise ExtractionError(f"cannot fetch captions for {video_id}: {exc}") from None
        snippets = [
            CaptionSnippet(s.text, float(s.start), float(s.duration)) for s in fetched.snippets
        ]
        return Captions(
            snippets, language=fetched.language_code, generated=bool(fetched.is_generated)
        )


class SavedCaptionFetcher:
    """Captions saved as ``<video id>.json`` files in a folder (offline, tests)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def fetch(self, video_id: str, languages: Sequence[str]) -> Captions:
        path = self.folder / f"{video_id}.json"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ExtractionError(f"no saved captions for YouTube video {video_id}") from None
        except (OSError, ValueError) as exc:
            raise ExtractionError(f"unreadable caption file {path}: {exc}") from None
        meta: dict[str, Any] = raw if isinstance(raw, dict) else {}
        items = meta.get("snippets", raw)
        if not isinstance(items, list):
            raise ExtractionError(f"caption file {path} holds no list of captions")
        try:
            snippets = [
                CaptionSnippet(
                    str(item["text"]), float(item["start"]), float(item.get("duration", 0.0))
                )
                for item in items
            ]
        except (KeyError, TypeError, ValueError) as exc:
            raise ExtractionError(f"malformed caption in {path}: {exc}") from None
        return Captions(
            snippets,
            language=meta.get("language"),
            generated=bool(meta.get("generated", False)),
            title=meta.get("title"),
        )


def extract_youtube(
    video_id: str, *, languages: Sequence[str], fetcher: CaptionFetcher | None = None
) -> ExtractedDocument:
    """One section per caption, located by ``start_time``/``end_time`` in seconds."""
    captions = (fetcher or YouTubeCaptionFetcher()).fetch(video_id, languages)
    snippets = sorted(captions.snippets, key=lambda s: s.start)
    builder = DocumentBuilder(separator="\n")
    for index, snippet in enumerate(snippets):
        end = snippet.start + max(snippet.duration, 0.0)
        if index + 1 < len(snippets) and snippets[index + 1].start > snippet.start:
            # YouTube's duration is time on screen; captions overlap, speech does not.
            end = min(end, snippets[index + 1].start)
        builder.add(
            snippet.text.replace("\n", " "),
            {"start_time": round(snippet.start, 3), "end_time": round(end, 3)},
        )
    if builder.is_empty:
        raise ExtractionError(f"the captions of YouTube video {video_id} are empty")
    metadata: dict[str, Any] = {
        "video_id": video_id,
        "language": captions.language,
        "generated_captions": captions.generated,
    }
    return builder.build(
        source=f"https://www.youtube.com/watch?v={video_id}",
        title=captions.title or f"YouTube video {video_id}",
        kind="youtube",
        metadata=metadata,
    )
