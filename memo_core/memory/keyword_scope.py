"""Memory's keyword index scoped by namespace: one user's query reads one user's postings.

One memory file holds many namespaces (users, agents, sessions). In a single FTS5
index a word's posting list holds every namespace's rows, and FTS5 reads all of it
for a query (BM25 counts the rows each phrase matches) before the namespace filter
drops the other users' rows: recall got slower with every user added, however few
facts the asking user had.

So every token in ``mem_facts_fts`` / ``mem_turns_fts`` carries its namespace's code
glued to its front (``nsq4kz7m2p`` + ``locker``): each namespace has its own terms,
the posting list of a query term holds only that namespace's rows, and a recall
costs what the asking user's rows cost. BM25's document frequency of a word is
counted within the namespace (its pool), the row count and average length over the
file. The code is 40 bits of BLAKE2b of the namespace: two namespaces sharing a code
only share postings; the store still filters every hit by its namespace.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memo_core.memory.backend import Kind, tables
from memo_core.search.text import detect_language, fts_match_expression, stem_token, tokenize

if TYPE_CHECKING:
    from memo_core.storage.base import SQLDatabase

__all__ = ["namespace_code", "scope_index", "scoped_match", "scoped_row"]

_BATCH = 1000


def namespace_code(ns: str) -> str:
    """``ns`` plus 8 base-32 letters and digits: the prefix of its tokens."""
    digest = hashlib.blake2b(ns.encode("utf-8"), digest_size=5).digest()
    return "ns" + base64.b32encode(digest).decode("ascii").lower()


def scoped_row(ns: str, text: str) -> tuple[str, str]:
    """The ``(raw, stemmed)`` columns of ``text`` in namespace ``ns``: its tokens and
    their stems, each with the namespace's code in front."""
    code = namespace_code(ns)
    tokens = tokenize(text)
    lang = detect_language(text)
    raw = " ".join(code + t for t in tokens)
    return raw, " ".join(code + stem_token(t, lang) for t in tokens)


def scoped_match(query: str, namespaces: Sequence[str]) -> str | None:
    """The FTS5 expression for ``query`` in ``namespaces`` (None: no searchable word)."""
    return fts_match_expression(query, prefixes=[namespace_code(ns) for ns in namespaces])


def scope_index(db: SQLDatabase, kind: Kind) -> None:
    """Rewrite the FTS5 rows of ``kind`` with scoped tokens, the same rows as before
    (the ``scope_keyword_index_by_namespace`` migration): only the index changes."""
    names = tables(kind)
    rows = [
        (int(r[0]), str(r[1]), str(r[2]))
        for r in db.query(
            f"SELECT b.rowid, b.ns, b.{names.text} FROM {names.base} b"
            f" WHERE b.rowid IN (SELECT rowid FROM {names.fts})"
        )
    ]
    db.execute(f"DELETE FROM {names.fts}")
    for start in range(0, len(rows), _BATCH):
        db.executemany(
            f"INSERT INTO {names.fts} (rowid, raw, stemmed) VALUES (?, ?, ?)",
            [(rowid, *scoped_row(ns, text)) for rowid, ns, text in rows[start : start + _BATCH]],
        )
