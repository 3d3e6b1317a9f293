"""Lazy package exports: a name's module is imported on first use, not with the package.

``memo_core`` and each adapter package map their public names to the modules that
define them, so importing a package costs nothing beyond what it must have:
``memo kb ask`` does not pay for MemoHood's capture models, an adapter package
costs its framework's core only, and a name whose module needs a further optional
package (LangGraph for ``MemoHoodStore``) fails only when used, with that module's
:class:`~memo_core.errors.MissingDependencyError`.
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
