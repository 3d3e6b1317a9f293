"""The cyclic garbage collector paused while a batch of rows is built and written.

A bulk write allocates a few tuples, lists and strings per row (tens of thousands
per batch), none of them in a reference cycle. Each 700 allocations start a
collection, and every tenth of those, then every tenth of *those*, scans older
objects: at last the whole heap, the caller's own data included (the vectors it
hands over: one list per chunk). On 20,000 chunks given as Python lists that was
70 µs of a chunk's 500 (``bench/write_path.py``), for nothing to collect. Reference
counting still frees every row as soon as it is written; only cycles wait, and the
collector runs again as usual once the last write in any thread is done.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["collector_paused"]

_lock = threading.Lock()
_writes = 0  # writes inside a pause, in every thread
_resume = False  # the collector was running when the first of them began


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (nested and threaded pauses
    resume it once, after the last); a collector the process had disabled stays so."""
    global _writes, _resume
    with _lock:
        if _writes == 0:
            _resume = gc.isenabled()
            gc.disable()
        _writes += 1
    try:
        yield
    finally:
        with _lock:
            _writes -= 1
            if _writes == 0 and _resume:
                gc.enable()
