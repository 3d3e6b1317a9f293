"""Lazy package exports: a name's module is imported on first use, not with the package.

Each adapter package maps its public names to the modules that define them, so
importing the package costs nothing beyond its framework's core, and a name whose
module needs a further optional package (LangGraph for ``MemoHoodStore``) fails
only when used, with that module's :class:`~memo_core.errors.MissingDependencyError`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, modules: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose public name ``N`` lives
    in submodule ``modules[N]``; ``namespace`` is the package's ``globals()``, where
    a loaded name is cached so later look-ups skip the hook."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *modules})

    return __getattr__, __dir__
