"""The backend registry: one place maps a database URL to its engine, and an engine
to each subsystem's implementation."""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_core.errors import ConfigError
from memo_core.storage import open_database
from memo_core.storage.registry import (
    Backend,
    Implementations,
    backend_for_url,
    backend_of,
    backends,
    register_backend,
)


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("sqlite:///base.db", "sqlite"),
        ("SQLITE:///base.db", "sqlite"),
        ("base.db", "sqlite"),
        (":memory:", "sqlite"),
        (Path("some/base.db"), "sqlite"),
        ("C:\\bases\\one.db", "sqlite"),
        ("postgresql://host/db?schema=team", "postgres"),
        ("postgres://host/db", "postgres"),
    ],
)
def test_a_url_picks_its_backend(target: str | Path, name: str) -> None:
    assert backend_for_url(target).name == name


def test_an_unknown_scheme_is_a_config_error_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"'mysql'.*postgresql.*sqlite"):
        backend_for_url("mysql://host/db")


def test_every_connection_names_a_registered_backend(backend_url: str) -> None:
    with open_database(backend_url, load_vec=False) as db:
        assert backend_of(db) is backend_for_url(backend_url)
        assert db.dialect == backend_of(db).name


def test_implementations_answer_per_backend_and_name_what_is_missing(tmp_path: Path) -> None:
    table: Implementations[str] = Implementations("widget", {"postgres": "pg widget"})
    with open_database(tmp_path / "w.db", load_vec=False) as db:
        with pytest.raises(ConfigError, match=r"sqlite backend has no widget .*known: postgres"):
            table.for_database(db)
        table.register("sqlite", "file widget")
        assert table.for_database(db) == "file widget"
    assert table.names() == ("postgres", "sqlite")
    with pytest.raises(ConfigError, match="no storage backend named 'oracle'"):
        table.register("oracle", "nothing")


def test_a_backend_may_not_take_another_ones_scheme_or_the_default() -> None:
    sqlite = backend_for_url("x.db")
    with pytest.raises(ConfigError, match="clashes with 'postgres'"):
        register_backend(Backend("other", ("postgresql",), sqlite.connect))
    with pytest.raises(ConfigError, match="both are the default"):
        register_backend(Backend("other", ("other",), sqlite.connect, default=True))
    assert [b.name for b in backends()] == ["sqlite", "postgres"]
