"""Is a misspelt word a slip of OCR or typing, or another word?

The citation check forgives noise in a quote ("goverment" for "government") but
never a change of word ("convecting" for "connecting"). A frequency list tells
most substitutions apart (both sides are common words), but a rare real word may
be missing from it or sit among web misspellings. So the *shape* of the edit
decides too: noise is what scanners and fingers actually do -

* a dropped letter, a doubled one, or an added one next to its look-alike or
  keyboard neighbour (a key pressed with its neighbour);
* two neighbouring letters swapped;
* a letter read as a look-alike glyph (``e``/``c``, ``l``/``i``, ``u``/``v``...,
  and the two-for-one confusions ``rn``/``m``, ``cl``/``d``, ``vv``/``w``);
* a letter typed with a key next to the right one (QWERTY, ЙЦУКЕН).

Any other letter replaced by another is not a slip: "n" -> "v" or "du" -> "ve"
makes a different word even when no dictionary knows it. Nor does it become two
slips by being spelt as a dropped letter with an added one beside it ("converting"
-> "convecting": "r" dropped, a "c" like the "e" next to it added).
"""

from __future__ import annotations

import functools

__all__ = ["slip_distance"]

# Glyphs OCR confuses, one for one (Latin and Cyrillic).
_LOOK_ALIKE: tuple[str, ...] = (
    "ce", "eo", "co", "ao", "li", "ij", "lt", "ft", "uv", "nu", "nh", "hb", "yv", "gq",
    "ин", "пн", "шщ", "ьъ", "ьы", "зэ", "ео", "со", "ао",
)  # fmt: skip
# Two glyphs read as one (either way round).
_MERGES: tuple[tuple[str, str], ...] = (
    ("rn", "m"),
    ("cl", "d"),
    ("vv", "w"),
    ("ri", "n"),
    ("li", "h"),
    ("nn", "m"),
    ("in", "m"),
)
_KEYBOARDS: tuple[tuple[str, ...], ...] = (
    ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    ("йцукенгшщзхъ", "фывапролджэ", "ячсмитьбю"),
)


@functools.cache
def _neighbours() -> frozenset[tuple[str, str]]:
    """Letter pairs one keystroke or one glyph apart, both ways round."""
    pairs: set[tuple[str, str]] = {(p[0], p[1]) for p in _LOOK_ALIKE}
    for rows in _KEYBOARDS:
        for r, row in enumerate(rows):
            for j, key in enumerate(row):
                if j + 1 < len(row):
                    pairs.add((key, row[j + 1]))
                if r + 1 < len(rows):  # a lower row sits half a key to the right
                    below = rows[r + 1]
                    for k in (j - 1, j):
                        if 0 <= k < len(below):
                            pairs.add((key, below[k]))
    return frozenset(pairs | {(b, a) for a, b in pairs})


def slip_distance(a: str, b: str) -> float:
    """How many slips (see the module docstring) turn ``b`` into ``a``; ``inf`` if none do.

    Both words lower-cased. A restricted edit distance: a dropped letter and a swap
    of two neighbouring letters cost one each; an added letter costs one when it
    doubles or neighbours a letter beside it; a replaced letter costs one only when
    it is a look-alike or a keyboard neighbour; a two-for-one glyph merge costs one.
    A replacement is never a drop plus an addition side by side: "converting" ->
    "convecting" drops the "r" and adds a "c" that looks like the "e" beside it,
    which is "r" replaced by "c", a letter no scanner or finger takes for an "r"
    (likewise a two-for-one glyph read next to a dropped or added letter).
    """
    near = _neighbours()
    n, m = len(a), len(b)
    inf = float("inf")
    # Three tables by the last edit of the cheapest path to (i, j): ``b`` losing a
    # letter (a drop, or two glyphs of ``b`` read as one), ``a`` gaining one (an added
    # letter, or one glyph read as two), or anything else (a match, a look-alike, a
    # swap). A loss may not sit next to a gain: together they replace a letter.
    dropped = [[inf] * (m + 1) for _ in range(n + 1)]
    added = [[inf] * (m + 1) for _ in range(n + 1)]
    other = [[inf] * (m + 1) for _ in range(n + 1)]
    other[0][0] = 0.0
    for i in range(1, n + 1):
        added[i][0] = float(i)
    for j in range(1, m + 1):
        dropped[0][j] = float(j)

    def best(i: int, j: int) -> float:
        return min(dropped[i][j], added[i][j], other[i][j])

    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                continue
            ca, cb = a[i - 1], b[j - 1]
            dropped[i][j] = min(dropped[i][j - 1], other[i][j - 1]) + 1
            if _stray(a, i - 1, near):
                added[i][j] = min(added[i - 1][j], other[i - 1][j]) + 1
            for two, one in _MERGES:
                if i > 1 and a[i - 2 : i] == two and cb == one:  # "m" read as "rn"
                    gain = min(added[i - 2][j - 1], other[i - 2][j - 1]) + 1
                    added[i][j] = min(added[i][j], gain)
                if j > 1 and b[j - 2 : j] == two and ca == one:  # "rn" read as "m"
                    loss = min(dropped[i - 1][j - 2], other[i - 1][j - 2]) + 1
                    dropped[i][j] = min(dropped[i][j], loss)
            cell = inf
            if ca == cb:
                cell = best(i - 1, j - 1)
            elif (ca, cb) in near:
                cell = best(i - 1, j - 1) + 1
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cell = min(cell, best(i - 2, j - 2) + 1)
            other[i][j] = cell
    return best(n, m)


def _stray(word: str, k: int, near: frozenset[tuple[str, str]]) -> bool:
    """Can ``word[k]`` be an extra letter: the same as, or a neighbour of, a letter beside it?"""
    c = word[k]
    return any(
        0 <= n < len(word) and (word[n] == c or (word[n], c) in near) for n in (k - 1, k + 1)
    )
