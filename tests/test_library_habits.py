"""Library habits that a reviewer would otherwise have to re-check by hand.

* No ``assert`` guards state in library code: ``python -O`` strips them.
* No plain ``ValueError``/``KeyError`` is raised: memo's errors root at ``MemoError``
  (``InvalidInputError`` is also a ``ValueError``, ``NotFoundError`` a ``KeyError``,
  so callers catching the builtins keep working).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import memo_core
import memo_integrations
from memo_core import HashEmbedder, rrf
from memo_core.embedders.base import batched
from memo_core.errors import InvalidInputError, MemoError
from memo_core.memory.decay import decayed_strength

PLAIN = {"ValueError", "KeyError"}
_NOW = datetime(2026, 3, 2, tzinfo=UTC)


def _library() -> list[tuple[str, ast.Module]]:
    out = []
    for package in (memo_core, memo_integrations):
        base = Path(package.__file__).parent
        for path in sorted(base.rglob("*.py")):
            out.append(
                (
                    path.relative_to(base.parent).as_posix(),
                    ast.parse(path.read_text(encoding="utf-8")),
                )
            )
    return out


def test_no_assert_in_library_code() -> None:
    found = [
        f"{rel}:{node.lineno}"
        for rel, tree in _library()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert)
    ]
    assert found == []


def test_no_plain_value_or_key_error_is_raised() -> None:
    found = []
    for rel, tree in _library():
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(target, ast.Name) and target.id in PLAIN:
                    found.append(f"{rel}:{node.lineno}")
    assert found == []


@pytest.mark.parametrize(
    "call",
    [
        lambda: rrf([["a"]], k=-1),
        lambda: rrf([["a"], ["b"]], weights=[1.0]),
        lambda: HashEmbedder(4),
        lambda: batched(["x"], 0),
        lambda: decayed_strength(1.0, _NOW, _NOW, half_life_days=0),
    ],
)
def test_exported_functions_raise_typed_errors_that_are_still_value_errors(
    call: Callable[[], Any],
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        call()
    assert isinstance(caught.value, MemoError)
    assert isinstance(caught.value, ValueError)
