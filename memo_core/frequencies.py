"""How frequent a word is in English or Russian: the ``wordfreq`` lists, loaded once.

Ingest (is a hyphen at a line end a broken word or a compound's?) and the answer
engine (is a spelling a real word? is "savebreaks" a term or a description?) read
the same lists. This module is their one loader, beneath both packages, so that
neither imports the other. ``wordfreq`` comes with the optional "local" extra;
without it every look-up answers ``None`` and each caller says what it assumes then.

Frequencies are on wordfreq's Zipf scale (3.0 is once per million words, 0.0 a
spelling the lists do not know). The language is read from the script: Cyrillic
is Russian, anything else English. Nothing is paid at import: ``wordfreq`` itself
(ftfy, langcodes, its tokenizer's Unicode tables) is imported by the first look-up,
and each language's list is read by the first look-up in that language, so an
English question never reads the Russian list.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

__all__ = ["dictionary_available", "frequency_language", "word_frequency"]

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")


@functools.cache
def _zipf_function() -> Callable[[str, str], float] | None:
    """wordfreq's ``zipf_frequency``; ``None`` without the optional "local" extra."""
    try:
        from wordfreq import zipf_frequency
    except ImportError:
        return None
    return zipf_frequency


def dictionary_available() -> bool:
    """Whether ``wordfreq`` is installed (``pip install 'memo[local]'``)."""
    return _zipf_function() is not None


def frequency_language(text: str) -> str:
    """The list a spelling is looked up in: ``"ru"`` for Cyrillic, else ``"en"``."""
    return "ru" if _CYRILLIC.search(text) else "en"


@functools.lru_cache(maxsize=65536)
def word_frequency(word: str, language: str | None = None) -> float | None:
    """The Zipf frequency of ``word`` (case aside) in ``language``, by default the
    language of its script (:func:`frequency_language`).

    0.0 for a spelling the lists do not know; ``None`` when no list is installed:
    the caller must then assume the worst.
    """
    zipf = _zipf_function()
    if zipf is None:
        return None
    return float(zipf(word, language or frequency_language(word)))
