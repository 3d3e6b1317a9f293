"""Lazy imports of optional dependencies, failing with the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from memo_core.errors import MissingDependencyError

__all__ = ["require"]


def require(module: str, *, package: str, extra: str, feature: str = "") -> ModuleType:
    """Import ``module`` or raise MissingDependencyError naming ``memo[extra]``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # the package, or one of its own dependencies, is missing
        raise MissingDependencyError(package, extra, feature) from exc
