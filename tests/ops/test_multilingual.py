"""The multilingual path, tested up to the network boundary (fastembed's download call).

The article's configuration must work as written in config.yaml: the model is
asked of fastembed by its name, into memo's lasting cache folder, with the e5
prefixes on queries and passages; a failed download is one clear line that names
the fallback.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("fastembed", reason="the local extra is not installed")

import fastembed

from memo_core.config import build_embedder, load_settings
from memo_core.kb import MemoBase

ARTICLE_CONFIG = """\
memobase:
  embedder: {provider: local, model: intfloat/multilingual-e5-large, dims: 1024}
"""


class FakeTextEmbedding:
    """Stands in for fastembed.TextEmbedding: records the call, embeds by text length."""

    calls: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    seen: ClassVar[list[str]] = []
    fail = False

    def __init__(self, model_name: str, **kwargs: Any) -> None:
        FakeTextEmbedding.calls.append((model_name, kwargs))
        if FakeTextEmbedding.fail:
            raise ConnectionError("hub.invalid: Name or service not known")

    def embed(self, texts: list[str], **kwargs: Any) -> Any:
        for text in texts:
            FakeTextEmbedding.seen.append(text)
            yield [float(len(text) % 7 + 1)] + [0.5] * 1023


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    config = tmp_path / "config.yaml"
    config.write_text(ARTICLE_CONFIG, encoding="utf-8")
    FakeTextEmbedding.calls, FakeTextEmbedding.seen, FakeTextEmbedding.fail = [], [], False
    real = fastembed.TextEmbedding

    class Dispatch(real):  # type: ignore[misc, valid-type]
        def __new__(cls, model_name: str, **kwargs: Any) -> Any:
            if model_name.startswith("intfloat/"):
                return FakeTextEmbedding(model_name, **kwargs)
            return real(model_name, **kwargs)  # the shipped English default loads for real

    monkeypatch.setattr(fastembed, "TextEmbedding", Dispatch)
    return load_settings(config, env={"HOME": str(tmp_path / "home")})


def test_the_articles_config_downloads_once_into_memos_cache_with_e5_prefixes(
    settings: Any, tmp_path: Path
) -> None:
    embedder = build_embedder(settings.kb_embedder, settings)
    assert embedder is not None
    [(name, kwargs)] = FakeTextEmbedding.calls
    assert name == "intfloat/multilingual-e5-large"
    assert kwargs["cache_dir"] == str(tmp_path / "home" / ".cache" / "memo" / "models")
    assert embedder.fingerprint.model == name and embedder.dimensions == 1024
    FakeTextEmbedding.seen.clear()
    with MemoBase(tmp_path / "kb.db", embedder=embedder) as kb:
        kb.add_texts(["Паром отходит в семь утра."])
        kb.search("Когда отходит паром?", k=1)
    assert "passage: Паром отходит в семь утра." in FakeTextEmbedding.seen
    assert "query: Когда отходит паром?" in FakeTextEmbedding.seen


def test_a_failed_download_is_one_line_naming_the_fallback(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    FakeTextEmbedding.fail = True
    with caplog.at_level(logging.WARNING):
        embedder = build_embedder(settings.kb_embedder, settings)
    assert embedder is not None
    assert embedder.fingerprint.model == "memo/all-MiniLM-L6-v2-int8"  # no download needed
    [record] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    line = record.getMessage()
    assert "\n" not in line and "intfloat/multilingual-e5-large" in line
    assert "Name or service not known" in line
    assert "falling back to the English default fastembed:memo/all-MiniLM-L6-v2-int8" in line
