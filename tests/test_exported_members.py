"""Every package's ``__all__`` is exactly its public names: one that appears or goes by
accident fails here (the httpx habit, ``tests/test_exported_members.py`` there).

Public names are what ``dir(package)`` lists without a leading underscore (a lazy
package's ``__dir__`` adds the names it loads on first use), less submodules and
``from __future__`` directives. Packages are found by walking the source tree, so
a new package is pinned from its first commit.
"""

from __future__ import annotations
import __future__

import importlib
import types
from pathlib import Path

import pytest

import memo_core
import memo_integrations

#: Dunder names a package may export on purpose.
EXPORTED_DUNDERS = {"__version__"}


def _packages() -> list[str]:
    names = []
    for root in (memo_core, memo_integrations):
        base = Path(root.__file__).parent
        for init in sorted(base.rglob("__init__.py")):
            rel = init.parent.relative_to(base.parent)
            names.append(".".join(rel.parts))
    return names


def _public_names(module: types.ModuleType) -> set[str]:
    loaded = vars(module)
    names = set()
    for name in dir(module):
        if name.startswith("_") and name not in EXPORTED_DUNDERS:
            continue
        value = loaded.get(name)
        if isinstance(value, types.ModuleType | __future__._Feature):
            continue
        names.add(name)
    return names


def test_every_package_is_found() -> None:
    assert {"memo_core", "memo_core.search", "memo_integrations.langchain"} <= set(_packages())


@pytest.mark.parametrize("name", _packages())
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} declares no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ repeats a name"
    assert sorted(exported) == sorted(_public_names(module))
