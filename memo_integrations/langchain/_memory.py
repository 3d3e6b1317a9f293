"""Opening the MemoHood an adapter works on: an open one, or a path with its providers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError
from memo_core.llm.base import LLM
from memo_core.memory import MemoHood, MemoryConfig, RecallGate

__all__ = ["open_memory"]


def open_memory(
    memory: MemoHood | str | Path,
    *,
    embedder: Embedder | None = None,
    llm: LLM | None = None,
    gate: RecallGate | None = None,
    config: MemoryConfig | None = None,
) -> tuple[MemoHood, bool]:
    """The memory and whether the caller opened it (and so must close it).

    An open :class:`MemoHood` already has its providers: passing them again is an
    error rather than a silent choice between the two.
    """
    if isinstance(memory, MemoHood):
        if any(x is not None for x in (embedder, llm, gate, config)):
            raise InvalidInputError(
                "an open MemoHood already has its providers; pass them only with a path"
            )
        return memory, False
    if not isinstance(memory, (str, Path)):
        raise InvalidInputError(
            f"memory must be a MemoHood or a file path, not {type(memory).__name__}"
        )
    # Only what was given: MemoHood's own defaults (its local embedder) apply otherwise.
    given: dict[str, Any] = {
        name: value
        for name, value in (
            ("embedder", embedder),
            ("llm", llm),
            ("gate", gate),
            ("config", config),
        )
        if value is not None
    }
    return MemoHood(memory, **given), True
