"""Typographic normalisation with an offset map back to the original text.

The citation check compares a quote with its source after both went through
:func:`normalize_text`, then reports the match as a character span of the
*original* source. So normalisation keeps, for every character it emits, the
span of original characters it came from.

What normalisation forgives (and nothing else):

* Unicode compatibility forms (NFKC: ligatures, full-width letters, ``…`` -> ``...``,
  no-break spaces);
* typographic quote marks (``‘ ’ “ ” « » ‹ ›``...) -> ``'`` or ``"``;
* dashes and the minus sign (``‐ ‑ – — − ...``) -> ``-``;
* soft hyphens and zero-width characters (removed);
* runs of whitespace (one space; none at either end);
* spaces that tokenisers put around apostrophes of contractions (``it ’ s`` -> ``it's``),
  around hyphens between words (``Italo - Normans`` -> ``Italo-Normans``), before
  closing punctuation and after opening brackets;
* letter case, in the ``folded`` form (``text`` keeps the case, because names matter).

Both forms have the same length, so one offset map serves both.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["NormalizedText", "normalize", "normalize_quote", "normalize_text"]

_REMOVED = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff\u180e")
_SINGLE_QUOTES = frozenset("‘’‚‛′‵`´ʼʻ‹›")
_DOUBLE_QUOTES = frozenset("“”„‟«»″‶〝〞〟＂")
_DASHES = frozenset("‐‑‒–—―−⁃﹘﹣－⸺⸻")

# Spaces the normaliser deletes (the groups named ``sp`` are removed).
_SPACE_RULES: tuple[re.Pattern[str], ...] = (
    # it ' s / aren ' t / we ' ll -> it's / aren't / we'll
    re.compile(r"(?<=\w)(?P<sp> ?)'(?P<sp2> ?)(?=(?:s|t|re|ve|ll|d|m)(?!\w))", re.IGNORECASE),
    # Italo - Normans -> Italo-Normans
    re.compile(r"(?<=\w)(?P<sp> ?)-(?P<sp2> ?)(?=\w)"),
    # word , next / word ) -> word, next / word)   (but "3 .5" keeps its space)
    re.compile(r"(?P<sp> )(?=[,.;:!?](?!\d)|[)\]}])"),
    # ( 1990 -> (1990
    re.compile(r"(?<=[(\[{])(?P<sp> )"),
)

_WRAPPING = "\"' "
_TRAILING = ".,;:!? "


@dataclass(frozen=True)
class NormalizedText:
    """A normalised text, its lower-cased twin and the map back to the original.

    ``text[i]`` (and ``folded[i]``) came from ``original[starts[i]:ends[i]]``.
    """

    text: str
    folded: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def original_span(self, i: int, j: int) -> tuple[int, int]:
        """The span of the original text that produced ``text[i:j]`` (``i < j``)."""
        return self.starts[i], self.ends[j - 1]

    def slice(self, i: int, j: int) -> NormalizedText:
        """The normalised characters ``[i, j)`` with their map."""
        return NormalizedText(self.text[i:j], self.folded[i:j], self.starts[i:j], self.ends[i:j])

    def __len__(self) -> int:
        return len(self.text)


def _map_char(ch: str) -> str:
    if ch in _REMOVED:
        return ""
    if ch in _SINGLE_QUOTES:
        return "'"
    if ch in _DOUBLE_QUOTES:
        return '"'
    if ch in _DASHES:
        return "-"
    if ch.isspace():
        return " "
    return ch


def _fold(ch: str) -> str:
    low = ch.lower()
    return low if len(low) == 1 else ch


def normalize_text(text: str) -> NormalizedText:
    """Normalise ``text`` (see the module docstring) keeping the offset map."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        j = i + 1
        if ch.isascii() and (j == n or text[j].isascii()):
            mapped = " " if ch.isspace() else ("'" if ch == "`" else ch)
        else:
            # A base character and the combining marks that follow it are one unit.
            while j < n and unicodedata.combining(text[j]):
                j += 1
            mapped = "".join(_map_char(c) for c in unicodedata.normalize("NFKC", text[i:j]))
        for c in mapped:
            if c == " ":
                if not chars:
                    continue  # no leading space
                if chars[-1] == " ":
                    ends[-1] = j  # a run of whitespace is one space
                    continue
            chars.append(c)
            starts.append(i)
            ends.append(j)
        i = j
    if chars and chars[-1] == " ":
        chars.pop()
        starts.pop()
        ends.pop()
    joined = "".join(chars)
    drop = _spaces_to_drop(joined)
    if drop:
        keep = [k for k in range(len(chars)) if k not in drop]
        joined = "".join(chars[k] for k in keep)
        starts = [starts[k] for k in keep]
        ends = [ends[k] for k in keep]
    folded = joined.lower()
    if len(folded) != len(joined):  # a few letters lower-case to two characters
        folded = "".join(_fold(c) for c in joined)
    return NormalizedText(joined, folded, tuple(starts), tuple(ends))


def _spaces_to_drop(text: str) -> set[int]:
    drop: set[int] = set()
    for rule in _SPACE_RULES:
        for m in rule.finditer(text):
            for name, value in m.groupdict().items():
                if value:
                    drop.add(m.start(name))
    return drop


def normalize(text: str) -> str:
    """The lower-cased normal form used to compare a quote with its source."""
    return normalize_text(text).folded


def normalize_quote(quote: str) -> NormalizedText:
    """Normalise a quote and trim what quoting adds around it.

    Wrapping quote marks, leading/trailing ellipses and trailing sentence
    punctuation are not part of what is claimed, so they are trimmed; the rest
    must be found in the source.
    """
    norm = normalize_text(quote)
    i, j = 0, len(norm)
    changed = True
    while changed and i < j:
        changed = False
        if norm.text.startswith("...", i, j):
            i += 3
            changed = True
        elif norm.text.endswith("...", i, j):
            j -= 3
            changed = True
        elif norm.text[i] in _WRAPPING:
            i += 1
            changed = True
        elif norm.text[j - 1] in _WRAPPING or norm.text[j - 1] in _TRAILING:
            j -= 1
            changed = True
    return norm.slice(i, j)
