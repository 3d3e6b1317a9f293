"""How frequent a word is in English or Russian: the ``wordfreq`` lists, loaded once.

Ingest (is a hyphen at a line end a broken word or a compound's?) and the answer
engine (is a spelling a real word? is "savebreaks" a term or a description?) read
the same lists. This module is their one loader, beneath both packages, so that
neither imports the other. ``wordfreq`` comes with the optional "local" extra;
without it every look-up answers ``None`` and each caller says what it assumes then.

Frequencies are on wordfreq's Zipf scale (3.0 is once per million words, 0.0 a
spelling the lists do not know). The language is read from the script: Cyrillic
is Russian, anything else English.

Nothing is paid at import, and little at the first look-up, which a one-question
process (``memo kb ask``) pays in full. Importing ``wordfreq`` costs more CPU than
reading a list (ftfy, langcodes and its tokenizer's Unicode tables: about 0.25 s
against 0.15 s for the English list), and a plain word of letters needs none of
it: wordfreq would only fold its case. So a plain word is looked up in the list
read straight from wordfreq's data file (its documented "cBpack" format) with
wordfreq's own arithmetic, and anything else (digits, apostrophes, marks, other
scripts) goes through ``wordfreq.zipf_frequency``; both give the same value, a test
compares them. Each language's list is read by the first look-up in it, so an
English question never reads the Russian list.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import math
import re
from collections.abc import Callable
from pathlib import Path

__all__ = ["dictionary_available", "frequency_language", "word_frequency"]

_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
#: Words wordfreq reads as one token whose only preprocessing is case folding.
_PLAIN = {"en": re.compile(r"[A-Za-z]+"), "ru": re.compile(r"[А-Яа-яЁё]+")}


@functools.cache
def _package_dir() -> Path | None:
    """Where ``wordfreq`` is installed (found, not imported); ``None`` without the
    optional "local" extra."""
    spec = importlib.util.find_spec("wordfreq")
    return Path(spec.origin).parent if spec is not None and spec.origin else None


@functools.cache
def _zipf_function() -> Callable[[str, str], float] | None:
    """wordfreq's ``zipf_frequency``."""
    if _package_dir() is None:
        return None
    from wordfreq import zipf_frequency

    return zipf_frequency


@functools.cache
def _centibels(language: str) -> dict[str, int] | None:
    """wordfreq's list for ``language`` as ``{word: centibels below 1}``, read from its
    data file ("large", the one wordfreq's "best" takes for English and Russian);
    ``None`` when the file is not in the format this reads (wordfreq is asked then)."""
    package = _package_dir()
    if package is None:
        return None
    try:
        import msgpack  # declared in the "local" extra beside wordfreq

        with gzip.open(package / "data" / f"large_{language}.msgpack.gz", "rb") as f:
            data = msgpack.load(f, raw=False)
    except (ImportError, OSError, ValueError):
        return None
    header = data[0] if isinstance(data, list) and data else None
    if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
        return None
    # Band i holds the words of frequency 10 ** (-i / 100); a later band wins, as in wordfreq.
    return {word: band for band, words in enumerate(data[1:]) for word in words}


def _zipf_of_band(band: int) -> float:
    """wordfreq's Zipf value of a word in ``band``: the frequency rounded to three
    significant digits, then to hundredths of a Zipf unit (its ``zipf_frequency``)."""
    frequency = 10 ** (-band / 100)
    frequency = round(frequency, math.floor(-math.log(frequency, 10)) + 3)
    return round(math.log(frequency, 10) + 9, 2)


def dictionary_available() -> bool:
    """Whether ``wordfreq`` is installed (``pip install 'memo[local]'``)."""
    return _package_dir() is not None


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
    if _package_dir() is None:
        return None
    language = language or frequency_language(word)
    plain = _PLAIN.get(language)
    bands = _centibels(language) if plain is not None and plain.fullmatch(word) else None
    if bands is not None:
        band = bands.get(word.lower())
        return 0.0 if band is None else _zipf_of_band(band)
    zipf = _zipf_function()
    return None if zipf is None else float(zipf(word, language))
