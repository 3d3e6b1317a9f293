"""The public surface is declared once and pinned; the core imports with base deps only."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import memo_core

EXPECTED_CORE = [
    "Answer",
    "Citation",
    "CitationVerifier",
    "Embedder",
    "EmbedderFingerprint",
    "GuardedAnswerer",
    "HashEmbedder",
    "Hit",
    "MemoBase",
    "MemoError",
    "MemoHood",
    "Refusal",
    "SearchMode",
    "SufficiencyGate",
    "UnifiedRecall",
    "__version__",
    "recall_all",
    "rrf",
    "verify_quote",
]


def test_core_exports_are_pinned() -> None:
    assert sorted(memo_core.__all__) == sorted(EXPECTED_CORE)
    for name in memo_core.__all__:
        assert hasattr(memo_core, name), name


OPTIONAL = [
    "fastembed",
    "onnxruntime",
    "model2vec",
    "numpy",
    "langchain_core",
    "langgraph",
    "llama_index",
    "httpx",
    "cohere",
    "pypdf",
    "docx",
    "trafilatura",
    "youtube_transcript_api",
    "faster_whisper",
    "rich",
    "sqlean",
    "pysqlite3",
    "torch",
]


def test_core_imports_without_optional_dependencies(tmp_path: object) -> None:
    script = textwrap.dedent(
        f"""
        import sys, importlib.abc
        BLOCKED = {OPTIONAL!r}
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ImportError("blocked optional dependency: " + name)
        sys.meta_path.insert(0, Block())
        import memo_core, memo_core.kb, memo_core.answer, memo_core.memory, memo_core.ingest
        import memo_core.cli, memo_core.config, memo_core.ledger
        from memo_core import MemoBase, GuardedAnswerer, HashEmbedder
        kb = MemoBase(":memory:", embedder=HashEmbedder(32))
        kb.add_texts(["The term is 24 months."], ids=["a"])
        assert kb.search("term", mode="keyword")[0].document_id == "a"
        assert not [m for m in sys.modules if m.split(".")[0] in BLOCKED]
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_no_pytorch_or_agpl_in_any_extra() -> None:
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    every = [d.lower() for deps in extras.values() for d in deps] + [
        d.lower() for d in project["project"]["dependencies"]
    ]
    banned = ("torch", "pymupdf", "fitz", "sentence-transformers")
    assert not [d for d in every if d.startswith(banned)]
