"""Attacks on the search aids saved beside a knowledge base, shared by the tests and
bench/stress.py.

A hostile user (or a bad disk) controls the files beside a base: ``<db>.kwidx``
(the in-RAM keyword index) and ``<db>.hnsw`` (the HNSW vector index), each with a
JSON header. Each trial builds small bases of two owners whose chunks share one
vocabulary, so a wrong index *would* hand one owner the other's chunks, then:

* ``foreign``: copies the aids of another base (same sizes and change-log
  positions, owners in the opposite order) beside this one;
* ``restored``: makes aids after a backup, restores the backup (``memo restore``, or
  by hand with ``cp``), and lets the other owner write until the change log is
  back at the aids' position, with chunk rowids reused;
* ``bit_rot``: damages an aid and its header in one of many ways, keeping the data
  file's size and mtime, or rewriting the header to match the damage.

A trial *survived* when every search returned without an error, no hit crossed
owners (*leaked*) and the searching owner's marked chunk was found (else *lost*).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reliability_harness import WORDS, embedder, remove_db

from memo_core.backup import backup_database, restore_database
from memo_core.kb import MemoBase
from memo_core.search.hybrid import SearchSettings

AIDS = SearchSettings(keyword_index="memory", vector_index="hnsw")
SIDECARS = (".kwidx", ".hnsw")
MODES = ("keyword", "vector", "hybrid")


@dataclass
class AttackTally:
    trials: int = 0
    survived: int = 0
    leaked: int = 0
    lost: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "survived": self.survived,
            "leaked": self.leaked,
            "lost": self.lost,
            "errors": len(self.errors),
            "first_errors": self.errors[:5],
        }


def open_with_aids(path: Path) -> MemoBase:
    return MemoBase(path, embedder=embedder(), settings=AIDS)


def _text(owner: str, i: int, rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS[:8]) for _ in range(12))
    return f"{words} marker{owner}{i} {words}"


def add_docs(kb: MemoBase, owner: str, count: int, rng: random.Random, start: int = 0) -> None:
    for i in range(start, start + count):
        kb.add_texts(
            [_text(owner, i, rng)], [{"owner_tag": owner}], ids=[f"{owner}-{i}"], owner=owner
        )


def prepare_aids(kb: MemoBase) -> None:
    """Build (or load) both aids now and save them beside the file."""
    kb.searcher.prepare_keyword_index()
    kb.searcher.prepare_vector_index()


def check_searches(
    kb: MemoBase, owners: dict[str, int], rng: random.Random
) -> tuple[bool, int, bool]:
    """(raised, leaks, lost) over searches by every owner in every mode; ``owners``
    maps an owner to how many marked documents it holds."""
    leaks, lost = 0, False
    for owner, count in owners.items():
        if not count:
            continue
        target = rng.randrange(count)
        query = f"{' '.join(rng.sample(WORDS[:8], 3))} marker{owner}{target}"
        for mode in MODES:
            try:
                hits = kb.search(query, owner=owner, k=10, mode=mode)
            except Exception:
                return True, leaks, lost
            leaks += sum(h.metadata.get("owner_tag") != owner for h in hits)
            if mode == "keyword" and f"{owner}-{target}" not in {h.document_id for h in hits}:
                lost = True
    return False, leaks, lost


def _score(tally: AttackTally, outcome: tuple[bool, int, bool], label: str) -> None:
    raised, leaks, lost = outcome
    tally.trials += 1
    tally.leaked += leaks
    tally.lost += lost
    if raised:
        tally.errors.append(label)
    tally.survived += not raised and not leaks and not lost


def _trial(tally: AttackTally, label: str, run: Callable[[], tuple[bool, int, bool]]) -> None:
    try:
        outcome = run()
    except Exception as exc:
        outcome = (True, 0, False)
        label = f"{label}: {type(exc).__name__}: {exc}"
    _score(tally, outcome, label)


def copy_sidecars(src_db: Path, dst_db: Path) -> None:
    """Copy the aids beside ``src_db`` to beside ``dst_db``, mtimes kept (so their
    headers still match the data files)."""
    for suffix in SIDECARS:
        for ext in ("", ".json"):
            source = Path(f"{src_db}{suffix}{ext}")
            if source.exists():
                shutil.copy2(source, f"{dst_db}{suffix}{ext}")


# -- foreign aids -----------------------------------------------------------------


def foreign_trial(folder: Path, rng: random.Random) -> tuple[bool, int, bool]:
    """Base ``victim`` holds bob's chunks then alice's; base ``other`` the same
    amounts in the other order. ``other``'s aids are put beside ``victim``."""
    folder.mkdir(parents=True, exist_ok=True)
    n = rng.randint(3, 12)
    seed = rng.random()
    for name, order in (("victim", ("bob", "alice")), ("other", ("alice", "bob"))):
        with open_with_aids(folder / f"{name}.db") as kb:
            texts = random.Random(seed)
            for owner in order:
                add_docs(kb, owner, n, texts)
            prepare_aids(kb)
    copy_sidecars(folder / "other.db", folder / "victim.db")
    with open_with_aids(folder / "victim.db") as kb:
        return check_searches(kb, {"alice": n, "bob": n}, rng)


def run_foreign(folder: Path, trials: int, seed: int) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        _trial(tally, f"foreign {t}", lambda t=t: foreign_trial(folder / f"foreign-{t}", rng))
    return tally


# -- aids from another point of the base's history --------------------------------


def restored_trial(folder: Path, rng: random.Random, *, by_hand: bool) -> tuple[bool, int, bool]:
    """Aids made after a backup, then the backup restored and the change log brought
    back to the aids' position by the other owner's writes (rowids reused)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "kb.db"
    first, later = rng.randint(2, 8), rng.randint(2, 8)
    texts = random.Random(rng.random())
    with open_with_aids(path) as kb:
        add_docs(kb, "bob", first, texts)
        add_docs(kb, "alice", first, texts)
        prepare_aids(kb)
    backup = backup_database(path, folder / "backups")
    with open_with_aids(path) as kb:
        add_docs(kb, "alice", later, texts, start=first)
    for suffix in SIDECARS:  # aids made now, after the backup, hold alice's new rowids
        for ext in ("", ".json"):
            Path(f"{path}{suffix}{ext}").unlink(missing_ok=True)
    with open_with_aids(path) as kb:
        prepare_aids(kb)
    if by_hand:
        remove_db(path)
        shutil.copyfile(backup, path)
    else:
        restore_database(path, backup)
    with MemoBase(path, embedder=embedder()) as plain:  # bob's writes take alice's rowids
        add_docs(plain, "bob", later, texts, start=first)
    with open_with_aids(path) as kb:
        return check_searches(kb, {"alice": first, "bob": first + later}, rng)


def run_restored(folder: Path, trials: int, seed: int) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        by_hand = bool(t % 2)
        _trial(
            tally,
            f"restored {t} ({'cp' if by_hand else 'memo restore'})",
            lambda t=t, by_hand=by_hand: restored_trial(
                folder / f"restored-{t}", rng, by_hand=by_hand
            ),
        )
    return tally


# -- damaged aids -----------------------------------------------------------------


def _keep_stat(path: Path, damage: Callable[[bytes], bytes]) -> None:
    """Damage ``path``'s bytes, keeping its size and mtime (bit rot)."""
    stat = path.stat()
    data = damage(path.read_bytes())
    path.write_bytes(data[: stat.st_size].ljust(stat.st_size, b"\0"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _vouch(path: Path) -> None:
    """Rewrite ``path``'s header to match its (damaged) data: size, mtime, CRC-32."""
    header_path = Path(f"{path}.json")
    header = json.loads(header_path.read_text(encoding="utf-8"))
    stat = path.stat()
    header["file"] = [stat.st_size, stat.st_mtime_ns]
    header["crc32"] = zlib.crc32(path.read_bytes())
    header_path.write_text(json.dumps(header), encoding="utf-8")


def _flip(rng: random.Random) -> Callable[[bytes], bytes]:
    def damage(data: bytes) -> bytes:
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(out))
            out[at] ^= 1 << rng.randrange(8)
        return bytes(out)

    return damage


def _wrong_shapes(path: Path, rng: random.Random) -> None:
    """A well-formed ``.kwidx`` whose arrays disagree with one another."""
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    name = rng.choice(sorted(arrays))
    array = arrays[name]
    top = np.iinfo(array.dtype).max
    arrays[name] = rng.choice(
        (
            array[: max(0, len(array) - 1)],  # one short
            np.concatenate([array, np.full(1, top, dtype=array.dtype)]),  # one long
            array.reshape(1, -1),  # two-dimensional
            np.full_like(array, top),  # every value out of range
        )
    )
    with path.open("wb") as out:
        np.savez(out, **arrays)


def _header_garbage(path: Path, rng: random.Random) -> None:
    header_path = Path(f"{path}.json")
    header = json.loads(header_path.read_text(encoding="utf-8"))
    key = rng.choice(["seq", "count", "owners", "collections", "index", "file", "crc32"])
    header[key] = rng.choice([None, "x", [1, 2], {"a": 1}, -5, 10**30, 1.5, True])
    text = json.dumps(header)
    if rng.random() < 0.3:
        text = text[: rng.randrange(len(text))]  # not even JSON
    header_path.write_text(text, encoding="utf-8")


def _truncate(path: Path, rng: random.Random) -> None:
    path.write_bytes(path.read_bytes()[: rng.randrange(1, max(2, path.stat().st_size))])


def _vouching(
    damage: Callable[[Path, random.Random], None],
) -> Callable[[Path, random.Random], None]:
    """``damage``, then the header rewritten to match the damaged data."""

    def run(path: Path, rng: random.Random) -> None:
        damage(path, rng)
        _vouch(path)

    return run


#: Ways to damage one aid: (name, damage(path, rng)).
DAMAGES: tuple[tuple[str, Callable[[Path, random.Random], None]], ...] = (
    ("bits flipped, size and mtime kept", lambda p, r: _keep_stat(p, _flip(r))),
    ("zeroed, size and mtime kept", lambda p, r: _keep_stat(p, lambda d: b"\0" * len(d))),
    ("truncated, header vouching", _vouching(_truncate)),
    ("random bytes, header vouching", _vouching(lambda p, r: p.write_bytes(r.randbytes(4096)))),
    ("bits flipped, header vouching", _vouching(lambda p, r: _keep_stat(p, _flip(r)))),
    ("header fields of the wrong type", _header_garbage),
)
#: For ``.kwidx`` only (a NumPy archive).
KWIDX_DAMAGES = (("arrays of the wrong shapes, header vouching", _vouching(_wrong_shapes)),)


def bit_rot_trial(folder: Path, rng: random.Random, t: int) -> tuple[str, tuple[bool, int, bool]]:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "kb.db"
    n = rng.randint(3, 10)
    texts = random.Random(rng.random())
    with open_with_aids(path) as kb:
        add_docs(kb, "bob", n, texts)
        add_docs(kb, "alice", n, texts)
        prepare_aids(kb)
    suffix = SIDECARS[t % 2]
    choices = DAMAGES + (KWIDX_DAMAGES if suffix == ".kwidx" else ())
    name, damage = choices[(t // 2) % len(choices)]
    damage(Path(f"{path}{suffix}"), rng)
    with open_with_aids(path) as kb:
        return f"{suffix}: {name}", check_searches(kb, {"alice": n, "bob": n}, rng)


def run_bit_rot(folder: Path, trials: int, seed: int) -> AttackTally:
    rng, tally = random.Random(seed), AttackTally()
    for t in range(trials):
        label = f"bit rot {t}"
        try:
            label, outcome = bit_rot_trial(folder / f"rot-{t}", rng, t)
            label = f"bit rot {t} ({label})"
        except Exception as exc:
            outcome, label = (True, 0, False), f"{label}: {type(exc).__name__}: {exc}"
        _score(tally, outcome, label)
    return tally
