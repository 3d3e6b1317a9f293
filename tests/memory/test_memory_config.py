"""MemoryConfig: one place for every knob, readable from config.yaml's memohood: section."""

from __future__ import annotations

import pytest

from memo_core.errors import ConfigError
from memo_core.memory import MemoryConfig


def test_from_dict_merges_half_lives_and_rejects_unknown_keys() -> None:
    cfg = MemoryConfig.from_dict(
        {"half_lives": {"event": 7}, "gate_margin": 0.05, "embedder": {"provider": "local"}}
    )
    assert cfg.half_life("event") == 7.0
    assert cfg.half_life("fact") == 365.0  # defaults kept for the rest
    assert cfg.gate_margin == 0.05
    assert MemoryConfig.from_dict(None) == MemoryConfig()
    with pytest.raises(ConfigError, match="unknown memohood settings"):
        MemoryConfig.from_dict({"half_life": 3})


@pytest.mark.parametrize(
    "changes",
    [
        {"half_lives": {"event": 0}},
        {"archive_threshold": 1.5},
        {"recall_k": -1},
        {"keep_threshold": 0.2, "borderline_threshold": 0.5},
    ],
)
def test_invalid_values_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        MemoryConfig(**changes)  # type: ignore[arg-type]


def test_config_is_frozen() -> None:
    cfg = MemoryConfig()
    with pytest.raises(AttributeError):
        cfg.recall_k = 3  # type: ignore[misc]
    assert cfg.with_(recall_k=3).recall_k == 3
