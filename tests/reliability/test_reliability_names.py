"""File names with newlines, escapes and bidi overrides cannot forge output or log lines.

Names carry a newline followed by a fake ``memo: error:`` line, a carriage
return with an erase-line escape, a clear-screen escape, U+2028, NEL and a
right-to-left override. ``memo kb ingest``, ``list`` and ``search`` (and the
log lines of ``-v``) show them escaped; ``--json`` output stays exact JSON.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from reliability_attacks import (
    attack_control_names,
    forged_lines,
    held,
    hostile_names,
    run_cli,
)

from memo_core.display import printable

REPO = Path(__file__).resolve().parents[2]


def test_printable_escapes_what_could_forge_a_line() -> None:
    assert printable("a\nb\r\x1b[2J\u202ec\u2028d\x85") == "a\\nb\\r\\x1b[2J\\u202ec\\u2028d\\x85"
    assert printable("Résumé 日本 C:\\Users tab-free") == "Résumé 日本 C:\\Users tab-free"


def test_the_cli_and_its_logs_show_hostile_names_escaped(tmp_path: Path) -> None:
    files = hostile_names(tmp_path / "docs", random.Random(4), "x")
    common = ["--db", str(tmp_path / "kb.db"), "--embedder", "hash"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "memo_core", "-v", "kb", "ingest", str(tmp_path / "docs"), *common],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    both = done.stdout + "\n" + done.stderr
    assert "FORGED" in both and "skipped" in done.stderr  # the names and the log lines are shown
    assert forged_lines(both) == []
    code, listing = run_cli(["kb", "list", *common])
    assert code == 0 and "FORGED" in listing and forged_lines(listing) == []
    code, found = run_cli(["kb", "search", "harbour lantern", *common])
    assert code == 0 and "FORGED" in found and forged_lines(found) == []
    code, raw = run_cli(["kb", "list", "--json", *common])
    assert [d["source"] for d in json.loads(raw)] == [str(files[0])]  # JSON: exact names


def test_control_name_attack_holds(tmp_path: Path) -> None:
    tally = attack_control_names(tmp_path, 4, seed=6)
    assert held(tally), tally.as_dict()
