"""Fixtures for the reliability suite: process contexts and small, CI-sized counts.

The counts here keep the whole folder to a few minutes on two busy cores;
``python bench/stress.py`` runs the same workloads with larger ones.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context

import pytest

#: Preloaded by the fork server so each forked child starts with memo already imported.
#: (Python 3.11's fork server ignores the parent's sys.path while preloading, so only
#: installed modules are listed; the children import the small harness modules themselves.)
PRELOAD = [
    "memo_core.embedders.hash",
    "memo_core.ingest",
    "memo_core.kb",
    "memo_core.kb.ingest",
    "memo_core.memory",
]


@pytest.fixture(scope="session")
def spawn() -> multiprocessing.context.SpawnContext:
    """Fresh interpreters: nothing inherited from the test process but sys.path."""
    return multiprocessing.get_context("spawn")


@pytest.fixture(scope="session")
def forkserver() -> multiprocessing.context.ForkServerContext:
    """Cheap children for many kill trials, forked from a clean server, not from pytest."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx
