"""Issue 16, item 6: a full disk stops ``memo kb ingest`` at its first failed write."""

from __future__ import annotations

from pathlib import Path

from reliability_attacks import attack_full_disk, held


def test_a_full_disk_stops_the_ingest_at_once_and_keeps_the_base(tmp_path: Path) -> None:
    tally = attack_full_disk(tmp_path, 2, seed=16)
    assert held(tally), tally.errors
