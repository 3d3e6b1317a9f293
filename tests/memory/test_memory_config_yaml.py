"""The memo memory CLI reads the memohood: section of config.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memo_core.cli import main
from memo_core.storage import open_database


def _config(tmp_path: Path, body: str) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(body, encoding="utf-8")
    return str(path)


def test_memohood_embedder_and_knobs_come_from_config(
    tmp_path: Path, backend_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(
        tmp_path,
        "memobase:\n  embedder: {provider: hash, dims: 64}\n"
        "memohood:\n  embedder: same\n  token_budget: 400\n",
    )
    db = backend_url
    argv = [
        "memory",
        "capture",
        "Remember that I prefer window seats on long flights.",
        "--db",
        db,
        "--user",
        "u1",
        "--config",
        config,
        "--json",
    ]
    assert main(argv) == 0
    with open_database(db, load_vec=False) as base:
        stored = base.query_one("SELECT value FROM mem_meta WHERE key = 'embedder'")
    assert stored is not None and json.loads(stored[0])["dimensions"] == 64
    capsys.readouterr()
    assert (
        main(
            [
                "memory",
                "recall",
                "Which seat should I book on my flight?",
                "--db",
                db,
                "--user",
                "u1",
                "--config",
                config,
                "--json",
            ]
        )
        == 0
    )
    assert "window" in json.dumps(json.loads(capsys.readouterr().out).get("facts", []))


def test_unknown_memohood_setting_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, "memohood:\n  half_life_typo: 3\n")
    code = main(
        [
            "memory",
            "capture",  # a writing command: a read one would stop first, at the missing base
            "hi",
            "--db",
            str(tmp_path / "m.db"),
            "--user",
            "u",
            "--config",
            config,
            "--embedder",
            "none",
        ]
    )
    assert code == 2 and "half_life_typo" in capsys.readouterr().err
