"""Attacks on the search aids saved beside a knowledge base (``<db>.kwidx``, ``<db>.hnsw``).

Issue 16, items 1 and 5: a restored backup, a copied-in foreign aid and bit rot
must never hand one owner another's chunks, never lose a chunk and never make a
search fail. The aids are bound to their base's random id and change-log
position, every hit is re-checked in the table, and a damaged aid is rebuilt.
``bench/stress.py`` runs the same attacks with more trials.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from reliability_sidecars import (
    DAMAGES,
    KWIDX_DAMAGES,
    add_docs,
    open_with_aids,
    prepare_aids,
    run_bit_rot,
    run_foreign,
    run_restored,
)

from memo_core.backup import backup_database, restore_database
from memo_core.search.ann_graphs import pick_engine

if pick_engine("auto") is None:
    pytest.skip("the HNSW aid needs faiss-cpu or usearch (memo[local])", allow_module_level=True)


def test_a_foreign_aid_copied_beside_a_base_is_refused(tmp_path: Path) -> None:
    tally = run_foreign(tmp_path, trials=4, seed=3)
    assert tally.errors == []
    assert (tally.trials, tally.survived, tally.leaked, tally.lost) == (4, 4, 0, 0)


def test_aids_made_after_a_backup_do_not_serve_the_restored_base(tmp_path: Path) -> None:
    """Both ``memo restore`` and a backup copied back by hand (``cp``)."""
    tally = run_restored(tmp_path, trials=4, seed=5)
    assert tally.errors == []
    assert (tally.trials, tally.survived, tally.leaked, tally.lost) == (4, 4, 0, 0)


def test_a_damaged_aid_is_rebuilt_never_raised(tmp_path: Path) -> None:
    trials = 2 * (len(DAMAGES) + len(KWIDX_DAMAGES))  # every damage on each aid
    tally = run_bit_rot(tmp_path, trials=trials, seed=7)
    assert tally.errors == []
    assert (tally.survived, tally.leaked, tally.lost) == (trials, 0, 0)


def test_restore_deletes_the_aids_beside_the_file(tmp_path: Path) -> None:
    path = tmp_path / "kb.db"
    with open_with_aids(path) as kb:
        add_docs(kb, "alice", 3, random.Random(1))
        prepare_aids(kb)
    backup = backup_database(path, tmp_path / "backups")
    assert Path(f"{path}.kwidx").exists() and Path(f"{path}.hnsw.json").exists()
    restore_database(path, backup)
    assert not [
        p
        for p in tmp_path.iterdir()
        if p.name.startswith("kb.db.") and ("kwidx" in p.name or "hnsw" in p.name)
    ]
