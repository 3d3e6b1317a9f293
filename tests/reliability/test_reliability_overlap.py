"""Overlapping ingests embed each new document once, and a crashed claimer blocks nothing.

Four real processes ingest overlapping folders (the whole tree, a subfolder, two
subfolders...) of new documents at the same moment; a shared log records every
text any of them embedded: each chunk of each document is embedded exactly once.
Then a process is SIGKILLed while it holds its claim (inside the embedder), and
another process ingests the same folder: it takes the dead holder's claim over
and stores everything. The claim rules themselves (wait for a live holder, then
find its document stored; take over an expired or dead holder's claim) are
checked on both backends.
"""

from __future__ import annotations

import multiprocessing
import socket
import threading
import time
from pathlib import Path

from reliability_attacks import (
    CountingEmbedder,
    attack_crashed_claimer,
    attack_overlapping_ingest,
    held,
)

from memo_core.kb import MemoBase

TEXT = "The harbour lantern is lit at dusk and put out at dawn by the keeper."


def test_overlapping_processes_embed_each_new_document_once(tmp_path: Path) -> None:
    tally = attack_overlapping_ingest(tmp_path, 16, seed=4, processes=4, docs=16)
    assert held(tally), tally.as_dict()


def test_a_killed_claimer_does_not_block_the_next_ingest(tmp_path: Path) -> None:
    tally = attack_crashed_claimer(tmp_path, 1, seed=5)
    assert held(tally), tally.as_dict()


def _claims(kb: MemoBase) -> list[tuple[str, str]]:
    return [
        (str(r[0]), str(r[1]))
        for r in kb.db.query("SELECT document_id, holder FROM kb_ingest_claims")
    ]


def test_a_live_holders_document_is_waited_for_then_found_stored(backend_url: str) -> None:
    mine, theirs = CountingEmbedder(), CountingEmbedder()
    with (
        MemoBase(backend_url, embedder=mine) as kb,
        MemoBase(backend_url, embedder=theirs) as other,
    ):  # type: ignore[arg-type]
        now = time.time()
        assert (
            kb.store.try_claim("default", "note", "elsewhere|1|t", expires_at=now + 60, now=now)
            is None
        )

        def finish() -> None:  # the other holder stores the document, then releases
            time.sleep(0.5)
            other._put_document(
                TEXT, doc_id="note", chunks=None, source="", title="", kind="text",
                metadata=None, collection="default", owner="default", shared_id=False,
            )  # fmt: skip
            other.store.release_claim("default", "note", "elsewhere|1|t")

        helper = threading.Thread(target=finish)
        helper.start()
        info = kb.add_document(TEXT, document_id="note")
        helper.join()
        assert info.id == "note" and theirs.texts == 1
        assert mine.texts == 0  # waited, re-checked, and found the same content stored
        assert _claims(kb) == []


def test_an_expired_or_dead_holders_claim_is_taken_over(backend_url: str) -> None:
    gone = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(0,))
    gone.start()
    gone.join()
    counting = CountingEmbedder()
    with MemoBase(backend_url, embedder=counting) as kb:  # type: ignore[arg-type]
        now = time.time()
        # another machine's claim whose lease has passed, and a dead local process's
        kb.store.try_claim("default", "a", "elsewhere|1|t", expires_at=now - 1, now=now - 2)
        dead = f"{socket.gethostname()}|{gone.pid}|t"
        kb.store.try_claim("default", "b", dead, expires_at=now + 3600, now=now)
        assert len(_claims(kb)) == 2
        kb.add_document(TEXT + " One.", document_id="a")
        kb.add_document(TEXT + " Two.", document_id="b")
        assert counting.texts == 2 and _claims(kb) == []
