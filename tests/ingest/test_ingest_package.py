"""The package surface, imports without optional dependencies, and the README samples."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from types import ModuleType

import memo_core.ingest as ingest
from memo_core.ingest import ExtractedDocument, IngestPolicy, chunk_document, extract, iter_sources

REPO = Path(__file__).resolve().parents[2]

EXPORTED = {
    "KINDS",
    "SUPPORTED_SUFFIXES",
    "AudioPiece",
    "CaptionFetcher",
    "CaptionSnippet",
    "Captions",
    "ChunkDraft",
    "DocumentBuilder",
    "ExtractedDocument",
    "HTTPWhisperTranscriber",
    "IngestPolicy",
    "LocalWhisperTranscriber",
    "ObsidianVault",
    "ProgressCallback",
    "RedactedText",
    "SavedCaptionFetcher",
    "SecretFinding",
    "Section",
    "Transcriber",
    "Transcript",
    "TranscriptSegment",
    "UsageCallback",
    "YouTubeCaptionFetcher",
    "apply_secret_policy",
    "check_path",
    "check_url",
    "chunk_document",
    "extract",
    "fetch_url",
    "is_public_address",
    "iter_sources",
    "normalize_text",
    "redact_secrets",
    "redact_text",
    "scan_secrets",
    "select_transcriber",
    "transcriber_from_env",
    "youtube_video_id",
}


def test_public_names_are_pinned_and_sorted() -> None:
    assert set(ingest.__all__) == EXPORTED
    assert ingest.__all__ == sorted(
        ingest.__all__, key=lambda n: (not n.isupper(), n[0].islower(), n)
    )
    for name in ingest.__all__:
        assert getattr(ingest, name) is not None


def test_imports_and_fails_clearly_without_optional_dependencies(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    with zipfile.ZipFile(tmp_path / "b.docx", "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    (tmp_path / "c.html").write_text(
        "<html><body><h1>Hi</h1><p>Fallback parser text.</p></body></html>"
    )
    script = textwrap.dedent(
        f"""
        import sys
        BLOCKED = ("pypdf", "docx", "trafilatura", "httpx", "youtube_transcript_api",
                   "faster_whisper", "av", "lxml")
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ImportError(f"blocked {{name}}", name=name)
        sys.meta_path.insert(0, Block())
        from memo_core.ingest import IngestPolicy, extract
        from memo_core.errors import MissingDependencyError
        assert not [m for m in sys.modules if m.split(".")[0] in BLOCKED]
        policy = IngestPolicy(allowed_roots=[{str(tmp_path)!r}], allow_hosts=frozenset({{"127.0.0.1"}}))
        for source, extra in [("a.pdf", "pdf"), ("b.docx", "docx"), ("http://127.0.0.1:9/x", "web")]:
            target = source if "://" in source else {str(tmp_path)!r} + "/" + source
            try:
                extract(target, policy=policy)
            except MissingDependencyError as exc:
                assert f"memo[{{extra}}]" in str(exc), exc
            else:
                raise AssertionError(source)
        doc = extract({str(tmp_path)!r} + "/c.html", policy=policy)
        assert "Fallback parser text." in doc.text, doc.text
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_samples_are_reproducible(tmp_path: Path, samples_module: ModuleType) -> None:
    written = samples_module.write_samples(tmp_path)
    for path in written:
        committed = REPO / "samples" / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), (
            f"{committed} is stale: run tests/ingest/make_samples.py"
        )
    total = sum(p.stat().st_size for p in (REPO / "samples").rglob("*") if p.is_file())
    assert total < 200_000


def test_samples_ingest_with_their_locators() -> None:
    samples = REPO / "samples"
    policy = IngestPolicy(allowed_roots=[samples])
    docs: list[ExtractedDocument] = []
    for source in iter_sources([samples], policy):
        result = extract(source, policy=policy)
        docs.extend(result if isinstance(result, list) else [result])
    kinds = sorted(d.kind for d in docs)
    assert kinds == ["csv", "markdown", "markdown", "obsidian", "obsidian", "obsidian", "pdf"]
    contract = next(d for d in docs if d.kind == "pdf")
    assert contract.title == "Sample contract" and contract.metadata["pages"] == 3
    term = [c for c in chunk_document(contract) if "initial term of 24 months" in c.text]
    assert [c.locator for c in term] == [{"page": 2}]
    alpha = next(d for d in docs if d.title == "Project Alpha")
    assert "See our vendors and the notes in Weekly sync." in " ".join(alpha.text.split())
