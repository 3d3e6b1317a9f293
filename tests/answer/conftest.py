"""Helpers shared by the answer tests: loading a benchmark script as a module, and an
answer engine with no sufficiency gate over a few documents."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.kb import MemoBase

BENCH = Path(__file__).resolve().parents[2] / "bench"


@contextlib.contextmanager
def bench_module(script: str) -> Iterator[ModuleType]:
    """``bench/<script>.py`` imported as a module for the duration of the block."""
    spec = importlib.util.spec_from_file_location(f"memo_bench_{script}", BENCH / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.fixture(scope="session")
def load_bench() -> Callable[[str], contextlib.AbstractContextManager[ModuleType]]:
    """:func:`bench_module`, for tests: ``with load_bench("verifier") as bench: ...``."""
    return bench_module


@pytest.fixture
def ungated(tmp_path: Path) -> Iterator[Callable[[Mapping[str, str]], GuardedAnswerer]]:
    """An answer engine with no sufficiency gate over the given documents (id -> text),
    in a fresh base: what the checks after the pick do is what such a test reads.
    ``engine.kb`` takes more documents; the bases are closed after the test."""
    bases: list[MemoBase] = []

    def make(documents: Mapping[str, str]) -> GuardedAnswerer:
        base = MemoBase(tmp_path / f"kb{len(bases)}.db", embedder=None)
        bases.append(base)
        for document_id, text in documents.items():
            base.add_document(text, document_id=document_id)
        return GuardedAnswerer(base, gate=SufficiencyGate(threshold=0.0))

    yield make
    for base in bases:
        base.close()
