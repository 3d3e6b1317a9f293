"""Helpers shared by the answer tests: loading a benchmark script as a module."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

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
