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
for dictionary words (Zipf >= 3) and for the rest (mostly code identifiers). Then
chains of line-end hyphens, read by ``normalize_text`` and by the reading before
it (break by break, each on its two fragments, passes until none changes): the
corpus's dictionary words broken twice, and its compounds with one part broken too
("self-\nevi-\ndent"), which must keep the compound's hyphen and join the other.
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

from memo_core.ingest.normalize import WORD_ZIPF, joins_across_line, normalize_text  # noqa: E402

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


_BREAK = re.compile(r"([^\W\d_]+)-\n([^\W\d_]+)")


def break_by_break(text: str) -> str:
    """The chain reading before: each break judged on its two fragments, passes until
    none changes (a kept break hid the next one of its chain from the pass)."""

    def join(m: re.Match[str]) -> str:
        keep = not (m[2][0].islower() and joins_across_line(m[1], m[2]))
        return m[0] if keep else m[1] + m[2]

    while True:
        joined = _BREAK.sub(join, text)
        if joined == text:
            return text
        text = joined


def chains(text: str, sample: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """``(chain as written, reading expected, kind)``: words broken twice, compounds
    with a broken part."""
    from wordfreq import zipf_frequency

    rnd = random.Random(seed)
    words = collections.Counter(w.lower() for w in _WORD.findall(text))
    long = sorted(w for w in words if len(w) >= 10 and zipf_frequency(w, "en") >= WORD_ZIPF)
    out = []
    for w in rnd.sample(long, min(sample, len(long))):
        i = rnd.randint(3, len(w) - 6)
        j = rnd.randint(i + 3, len(w) - 3)
        out.append((f"{w[:i]}-\n{w[i:j]}-\n{w[j:]}", w, "word broken twice"))
    compounds = sorted(
        {
            c.lower()
            for c in _INLINE.findall(text)
            if all(len(p) >= 3 and p.isalpha() for p in c.split("-"))
            and not words[c.lower().replace("-", "")]
            and max(len(p) for p in c.split("-")) >= 6
        }
    )
    for c in rnd.sample(compounds, min(sample, len(compounds))):
        a, b = c.split("-")
        if len(b) >= 6:
            k = rnd.randint(3, len(b) - 3)
            written = f"{a}-\n{b[:k]}-\n{b[k:]}"
        else:
            k = rnd.randint(3, len(a) - 3)
            written = f"{a[:k]}-\n{a[k:]}-\n{b}"
        out.append((written, f"{a}-\n{b}", "compound with a broken part"))
    return out


def report_chains(read: Callable[[str], str], name: str, data: list[tuple[str, str, str]]) -> None:
    right: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    wrong: dict[str, list[str]] = collections.defaultdict(list)
    for written, expected, kind in data:
        total[kind] += 1
        got = read(written)
        if got == expected:
            right[kind] += 1
        else:
            wrong[kind].append(got.replace("\n", ""))
    print(f"{name}:")
    for kind in total:
        print(
            f"  {kind}: {right[kind]} of {total[kind]} right; wrong: {', '.join(wrong[kind][:12])}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=1000, help="broken words per kind")
    args = parser.parse_args()
    text = corpus()
    data = cases(text, args.sample)
    report(lambda a, b: True, "join every one (before)", data)
    report(joins_across_line, "joins_across_line (wordfreq)", data)
    chained = chains(text, args.sample)
    report_chains(break_by_break, "chains, break by break (before)", chained)
    report_chains(normalize_text, "chains, every reading weighed (normalize_text)", chained)


if __name__ == "__main__":
    main()
