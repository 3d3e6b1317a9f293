"""Work ahead in a background thread, a bounded number of items ahead.

The ingest pipeline reads and chunks the next sources here while the calling thread
embeds and stores the current one: ONNX Runtime releases the GIL while it runs, so
extraction (files, PDFs, pages fetched over the network) overlaps the embedder
instead of adding to it. At most ``depth`` results wait, so a slow embedder never
has a whole folder read into memory ahead of it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Sequence
from typing import TypeVar

from memo_core.errors import InvalidInputError

__all__ = ["DEPTH", "prefetched"]

T = TypeVar("T")
R = TypeVar("R")

_DONE = object()
_POLL_SECONDS = 0.1
#: How many results may wait, read ahead of the one being stored.
DEPTH = 4


def prefetched(
    items: Sequence[T], work: Callable[[T], R], *, depth: int = DEPTH
) -> Generator[tuple[T, R | BaseException], None, None]:
    """``(item, work(item))`` for each item in order, computed in a thread up to ``depth`` ahead.

    An exception raised by ``work`` is yielded in place of its result (the caller
    decides what it means). When the caller stops iterating (an abort), no further
    item is started and the item being worked on is waited for, so nothing runs on
    behind the caller's back (a paid transcription, for one).
    """
    if depth < 1:
        raise InvalidInputError("depth must be at least 1")
    ready: queue.Queue[object] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(entry: object) -> None:
        while not stop.is_set():
            try:
                ready.put(entry, timeout=_POLL_SECONDS)
                return
            except queue.Full:
                continue

    def run() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                try:
                    result: R | BaseException = work(item)
                except BaseException as exc:  # handed to the caller, which re-raises or reports
                    result = exc
                offer((item, result))
        finally:
            offer(_DONE)

    thread = threading.Thread(target=run, name="memo-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            entry = ready.get()
            if entry is _DONE:
                return
            yield entry  # type: ignore[misc]
    finally:
        stop.set()
        thread.join()
