#!/usr/bin/env python3
"""How ingest reads a hyphen at a line end: a word the line broke, or a compound?

Ground truth from real text that every Python has: the Language Reference sections
(``pydoc_data.topics``) and the pydoc set's module docs (``bench/data/answer``).
Their line-end hyphens were written by their authors or by a wrapper that breaks
only at hyphens already there, so each is a compound ("left-hand") unless the
corpus spells the joined word elsewhere and never the hyphenated one. Broken words
are made from the same corpus: each sampled word split at a random inner position,
as a typesetter's hyphenation leaves it. The rendered PDFs wrap at spaces, so their
line-end hyphens are these same ones.

    python bench/hyphenation.py [--sample 1000]

prints, for ``normalize.joins_across_line`` and for the rule before it (join every
one), how many compounds keep their hyphen and how many broken words are joined,
for dictionary words (Zipf >= 3) and for the rest (mostly code identifiers).
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE / "data" / "answer")]

from memo_core.ingest.normalize import WORD_ZIPF, joins_across_line  # noqa: E402

_LINE_END = re.compile(r"([^\W\d_]+)-\n[ \t|]*([^\W\d_]+)")
_INLINE = re.compile(r"[^\W\d_]+-[^\W\d_]+")
_WORD = re.compile(r"[^\W\d_]+")


def corpus() -> str:
    from pydoc_data.topics import topics

    import build_docs  # bench/data/answer

    return "\n".join([*topics.values(), *(build_docs.render_text(m) for m in build_docs.MODULES)])


def cases(text: str, sample: int, seed: int = 0) -> list[tuple[str, str, bool, str]]:
    """``(left, right, should_join, kind)`` for every line-end hyphen and sampled breaks."""
    from wordfreq import zipf_frequency

    inline = collections.Counter(m.lower() for m in _INLINE.findall(text))
    words = collections.Counter(w.lower() for w in _WORD.findall(text))
    out = []
    for left, right in _LINE_END.findall(text):
        if right[0].islower():
            joined, hyphened = (left + right).lower(), f"{left}-{right}".lower()
            out.append((left, right, bool(words[joined]) and not inline[hyphened], "line end"))
    rnd = random.Random(seed)
    long = sorted(w for w in words if len(w) >= 7 and w.isalpha())
    common = [w for w in long if zipf_frequency(w, "en") >= WORD_ZIPF]
    rare = [w for w in long if zipf_frequency(w, "en") < WORD_ZIPF]
    for pool, kind in ((common, "broken word"), (rare, "broken identifier")):
        for w in rnd.sample(pool, min(sample, len(pool))):
            k = rnd.randint(3, len(w) - 3)
            out.append((w[:k], w[k:], True, kind))
    return out


def report(
    rule: Callable[[str, str], bool], name: str, data: list[tuple[str, str, bool, str]]
) -> None:
    right: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    wrong: dict[str, list[str]] = collections.defaultdict(list)
    for left, rest, should_join, kind in data:
        total[kind] += 1
        if rule(left, rest) == should_join:
            right[kind] += 1
        else:
            wrong[kind].append(f"{left}-{rest}")
    print(f"{name}:")
    for kind in total:
        print(
            f"  {kind}: {right[kind]} of {total[kind]} right; wrong: {', '.join(wrong[kind][:12])}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=1000, help="broken words per kind")
    args = parser.parse_args()
    data = cases(corpus(), args.sample)
    report(lambda a, b: True, "join every one (before)", data)
    report(joins_across_line, "joins_across_line (wordfreq)", data)


if __name__ == "__main__":
    main()
