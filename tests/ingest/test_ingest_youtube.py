"""YouTube: video ids from URLs, captions from a saved file, timecode locators. No network."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from memo_core.errors import ExtractionError, MissingDependencyError
from memo_core.ingest import (
    Captions,
    CaptionSnippet,
    ExtractedDocument,
    IngestPolicy,
    SavedCaptionFetcher,
    YouTubeCaptionFetcher,
    chunk_document,
    extract,
    youtube_video_id,
)

CAPTIONS = Path(__file__).resolve().parent / "fixtures" / "captions"


@pytest.mark.parametrize(
    ("source", "video"),
    [
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://youtube.com/watch?feature=share&v=dQw4w9WgXcQ&t=42", "dQw4w9WgXcQ"),
        ("https://m.youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://youtu.be/dQw4w9WgXcQ?si=abc", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/shorts/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/embed/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/live/dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("dQw4w9WgXcQ", "dQw4w9WgXcQ"),
        ("https://www.youtube.com/watch?v=short", None),
        ("https://evil.example/watch?v=dQw4w9WgXcQ", None),
        ("https://www.youtube.com/channel/UC123", None),
        ("not an id", None),
    ],
)
def test_youtube_video_id(source: str, video: str | None) -> None:
    assert youtube_video_id(source) == video


def test_captions_become_timecoded_sections(tmp_path: Path) -> None:
    fetcher = SavedCaptionFetcher(CAPTIONS)
    doc = extract(
        "https://youtu.be/memoDemo_01",
        policy=IngestPolicy(allowed_roots=[]),
        caption_fetcher=fetcher,
    )
    assert isinstance(doc, ExtractedDocument)
    assert doc.kind == "youtube" and doc.trust == "normal"
    assert doc.title == "How hybrid search works"
    assert doc.source == "https://www.youtube.com/watch?v=memoDemo_01"
    assert doc.metadata == {
        "video_id": "memoDemo_01",
        "language": "en",
        "generated_captions": False,
    }
    assert "which combines keyword search and vector search." in doc.text
    first, second = doc.sections[0], doc.sections[1]
    assert first.locator == {"start_time": 0.0, "end_time": 2.2}  # clipped at the next caption
    assert second.locator == {"start_time": 2.2, "end_time": 5.0}
    at = doc.text.index("sixty")
    assert next(s.locator for s in doc.sections if s.start <= at < s.end) == {
        "start_time": 21.0,
        "end_time": 23.6,
    }
    chunks = chunk_document(doc, max_chars=120, overlap_chars=0, min_chars=0)
    assert 1 < len(chunks) < len(doc.sections)
    assert chunks[0].locator["start_time"] == 0.0 and chunks[-1].locator["end_time"] == 27.0
    for chunk in chunks:
        assert chunk.locator["start_time"] < chunk.locator["end_time"]


def test_bare_id_uses_the_fetcher_and_policy_languages() -> None:
    seen: list[tuple[str, tuple[str, ...]]] = []

    class Fake:
        def fetch(self, video_id: str, languages: Sequence[str]) -> Captions:
            seen.append((video_id, tuple(languages)))
            return Captions(
                [CaptionSnippet("Привет, мир.", 1.0, 2.0)], language="ru", generated=True
            )

    policy = IngestPolicy(allowed_roots=[], youtube_languages=("ru",))
    doc = extract("abcdefghijk", policy=policy, caption_fetcher=Fake())
    assert isinstance(doc, ExtractedDocument)
    assert seen == [("abcdefghijk", ("ru",))]
    assert doc.text == "Привет, мир." and doc.metadata["generated_captions"] is True
    assert doc.sections[0].locator == {"start_time": 1.0, "end_time": 3.0}


def test_existing_file_named_like_an_id_is_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "abcdefghijk").write_text("a local file, not a video", encoding="utf-8")
    doc = extract("abcdefghijk", policy=IngestPolicy(allowed_roots=[tmp_path]))
    assert isinstance(doc, ExtractedDocument) and doc.kind == "text"


def test_missing_or_empty_captions_are_errors(tmp_path: Path) -> None:
    policy = IngestPolicy(allowed_roots=[])
    with pytest.raises(ExtractionError, match="no saved captions"):
        extract("zzzzzzzzzzz", policy=policy, caption_fetcher=SavedCaptionFetcher(CAPTIONS))
    (tmp_path / "emptyvideo1.json").write_text(
        '[{"text": "  ", "start": 0, "duration": 1}]', encoding="utf-8"
    )
    with pytest.raises(ExtractionError, match="empty"):
        extract("emptyvideo1", policy=policy, caption_fetcher=SavedCaptionFetcher(tmp_path))
    (tmp_path / "brokenvideo.json").write_text('[{"start": 0}]', encoding="utf-8")
    with pytest.raises(ExtractionError, match="malformed"):
        extract("brokenvideo", policy=policy, caption_fetcher=SavedCaptionFetcher(tmp_path))


def test_real_fetcher_maps_library_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    api = pytest.importorskip(
        "youtube_transcript_api", reason="youtube-transcript-api is not installed"
    )

    class Refusing:
        def fetch(self, video_id: str, languages: list[str]) -> None:
            raise api.TranscriptsDisabled(video_id)

    monkeypatch.setattr(api, "YouTubeTranscriptApi", Refusing)
    with pytest.raises(ExtractionError, match="no captions"):
        YouTubeCaptionFetcher().fetch("dQw4w9WgXcQ", ["en"])


def test_real_fetcher_without_the_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "youtube_transcript_api", None)
    with pytest.raises(MissingDependencyError, match=r"memo\[youtube\]"):
        YouTubeCaptionFetcher().fetch("dQw4w9WgXcQ", ["en"])
