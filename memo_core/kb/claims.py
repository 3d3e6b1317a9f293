"""Claims on a document being embedded, so overlapping ingests embed it once.

Several processes (or threads) ingesting overlapping folders reach the same new
document at about the same time; each would embed it (a paid embedder charges
each time) and only the last write would survive. Before embedding, a writer
*claims* the document's id in the base (``kb_ingest_claims``, one write
transaction); a writer that finds another's claim waits for it, then checks the
stored content hash again and, finding the document stored, embeds nothing.

A claim names its holder (host, process id, a random token) and carries a lease.
A crashed holder must not block the document forever: a waiter takes a claim
over as soon as its holder is a process of this host that no longer runs, and
any claim once its lease has passed (a holder on another machine, or a pid that
was reused). The lease is long (15 minutes) because a live holder embeds while
it holds the claim and a large document with a slow embedder takes minutes;
the claim is released the moment the document is stored or the embedding fails.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memo_core.kb.store import KnowledgeStore

__all__ = ["DocumentClaims", "holder_is_gone", "new_holder"]

_HOST = socket.gethostname()


def new_holder() -> str:
    """``host|pid|token``: who holds a claim (the token tells threads apart)."""
    return f"{_HOST}|{os.getpid()}|{secrets.token_hex(6)}"


def holder_is_gone(holder: str) -> bool:
    """True when ``holder`` was a process on this host that no longer runs."""
    host, _, rest = holder.partition("|")
    pid_text = rest.partition("|")[0]
    if host != _HOST or not pid_text.isdigit():
        return False  # another machine's process: only its lease can tell
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, under another user
        return False
    return False


class DocumentClaims:
    """Claim, wait for, and release documents of one knowledge store."""

    #: How long a claim holds without its holder being seen to die (seconds).
    lease_seconds: float = 900.0
    #: How often a waiter looks again (seconds).
    poll_seconds: float = 0.1

    def __init__(self, store: KnowledgeStore) -> None:
        self.store = store

    @contextmanager
    def hold(self, owner: str, document_id: str) -> Iterator[None]:
        """Hold the claim on ``(owner, document_id)`` for the block, waiting for another's.

        On entry no other live holder is embedding the document; the caller
        re-reads the stored hash before embedding, because the holder it waited
        for may just have stored the very same content.
        """
        holder = new_holder()
        while True:
            now = time.time()
            other = self.store.try_claim(
                owner, document_id, holder, expires_at=now + self.lease_seconds, now=now
            )
            if other is None:
                break
            if holder_is_gone(other):
                self.store.release_claim(owner, document_id, other)
                continue
            time.sleep(self.poll_seconds)
        try:
            yield
        finally:
            self.store.release_claim(owner, document_id, holder)
