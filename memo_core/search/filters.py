"""Metadata filters: parse once (``filter_tree``), render for the engine that runs them.

The language, its operators and what they mean on every backend are described in
:mod:`memo_core.search.filter_tree`; ``sqlite_filters`` and ``pg_filters`` render a
tree for their engine, with every value a bound parameter. This module is the one
place that maps an engine's SQL dialect (``SQLDatabase.dialect``) to its renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from memo_core.errors import ConfigError
from memo_core.search.filter_tree import Filter, parse_filter
from memo_core.search.pg_filters import render_postgres
from memo_core.search.sqlite_filters import render_sqlite

__all__ = ["RENDERERS", "Renderer", "compile_filter"]


class Renderer(Protocol):
    """Renders a tree as SQL text, appending its parameters in placeholder order."""

    def __call__(self, node: Filter, params: list[Any], *, column: str) -> str: ...


#: The renderer of each SQL dialect, keyed as ``SQLDatabase.dialect`` names them.
RENDERERS: Mapping[str, Renderer] = {"sqlite": render_sqlite, "postgres": render_postgres}


def compile_filter(
    spec: Mapping[str, Any] | Filter | None,
    params: list[Any],
    *,
    column: str = "c.metadata",
    dialect: str = "sqlite",
) -> str:
    """``spec`` (a filter dict or an already parsed tree) as a boolean SQL expression.

    Its parameters are appended to ``params``. ``column`` is a trusted identifier
    chosen by the caller, never user input. An empty or ``None`` filter selects
    every row. Raises :class:`~memo_core.errors.InvalidInputError` for a filter the
    language does not define, :class:`~memo_core.errors.ConfigError` for a dialect
    with no renderer.
    """
    renderer = RENDERERS.get(dialect)
    if renderer is None:
        raise ConfigError(f"no metadata filter renderer for SQL dialect {dialect!r}")
    return renderer(parse_filter(spec), params, column=column)
