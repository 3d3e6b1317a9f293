"""A private PostgreSQL + pgvector for tests, benchmarks and trying the backend.

``MEMO_TEST_POSTGRES_URL`` names an existing server; otherwise the PyPI package
``pgserver`` (PostgreSQL 16 with pgvector, a Unix socket, no TCP) starts one in a
data folder. Production deployments point memo at their own server instead.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memo_core.errors import MissingDependencyError

__all__ = ["ENV_URL", "LocalPostgres", "start_local_postgres"]

ENV_URL = "MEMO_TEST_POSTGRES_URL"


class LocalPostgres:
    """A running server: ``url(schema)`` names a base in it, ``stop()`` ends it."""

    def __init__(self, base_url: str, server: Any | None) -> None:
        self.base_url = base_url
        self._server = server

    def url(self, schema: str | None = None) -> str:
        if schema is None:
            return self.base_url
        joiner = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{joiner}schema={schema}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def start_local_postgres(data_dir: str | Path) -> LocalPostgres:
    """The server named by ``MEMO_TEST_POSTGRES_URL``, or a private one in ``data_dir``."""
    given = os.environ.get(ENV_URL)
    if given:
        return LocalPostgres(given, None)
    try:
        import pgserver
    except ImportError as exc:
        raise MissingDependencyError(
            "pgserver", "dev", f"a local PostgreSQL (or set {ENV_URL})"
        ) from exc
    server = pgserver.get_server(Path(data_dir), cleanup_mode="stop")  # type: ignore[attr-defined]
    return LocalPostgres(server.get_uri(), server)
