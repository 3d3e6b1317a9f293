"""Build the labelled user turns for MemoHood's capture keep/drop classifier.

    python bench/data/memory/make_capture_labels.py           # writes capture_labels.jsonl
    python bench/data/memory/make_capture_labels.py --check   # fails if the file is stale

Every turn is invented for this project (no real person's data). Two sources:

- templates x slot values x register transforms (``capture_slots.py``, and ``capture_passing.py``
  for durable facts said in passing and the junk that looks like them), with a fixed seed;
- a hand-written portion (``capture_handwritten.txt``, one ``lang|label|category|text`` a line)
  for phrasings no template produces.

Labels: ``keep`` is a durable statement about the user or the user's own people, pets and things
(a value, a state, a preference incl. a negative one, a relation, a health fact, a plan or
commitment), with a ``category``; ``drop`` is everything else (small talk, questions,
noncommittal replies, hypotheticals, facts about strangers or public figures, requests, weather,
quoting the assistant), with the drop reason in ``kind`` and ``category`` null. A turn that mixes a
durable statement with a question or request ("I'm vegetarian, what should I cook?") is a keep.

The held-out split is by TEMPLATE: about a fifth of the templates of every (language, label,
category) group, and a fifth of the hand-written lines, are ``test``; every row made from them
(lists and combinations included) is ``test`` too, so a classifier is scored on phrasings it never
saw. Fields: id, lang, text, label, category, kind, template, split, register, source.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import capture_passing as passing  # noqa: E402
from capture_slots import EN_DROP, EN_KEEP, EN_SLOTS, RU_DROP, RU_KEEP, RU_SLOTS, Slots  # noqa: E402

SEED = 17
OUT = HERE / "capture_labels.jsonl"
HANDWRITTEN = HERE / "capture_handwritten.txt"
CATEGORIES = (
    "health",
    "food",
    "family",
    "home",
    "work",
    "travel",
    "schedule",
    "money",
    "vehicle",
    "pet",
    "preference",
    "identity",
    "other",
)
DROP_KINDS = (
    "question",
    "request",
    "smalltalk",
    "noncommittal",
    "hypothetical",
    "third_party",
    "weather",
    "assistant_quote",
)
TEST_SHARE = 0.2
# Renderings per template: drops get more, so that about a third of the turns are drops.
PER_SLOTTED_TEMPLATE = {"keep": 12, "drop": 16}  # a template with slots
PER_PLAIN_TEMPLATE = {"keep": 4, "drop": 6}  # register variants of a template without slots
LISTS_PER_LANG = 200
COMBOS_PER_LANG = 240

_SLOT = re.compile(r"\{(\w+?)(?:\.(\w+))?\}")
_GENDER = {"l": ("", "а"), "sya": ("ся", "ась")}


@dataclass(frozen=True)
class Template:
    id: str
    lang: str
    text: str
    label: str
    category: str | None
    kind: str
    split: str = "train"


@dataclass
class Row:
    lang: str
    text: str
    label: str
    category: str | None
    kind: str
    template: str
    split: str
    register: str
    source: str


# -- rendering ---------------------------------------------------------------------


def render(text: str, slots: Slots, rng: random.Random) -> str:
    """Fill every slot of ``text``; ``{x2}`` is a value of ``x`` different from ``{x}``'s."""
    chosen: dict[str, Any] = {}
    female = rng.random() < 0.5

    def value(name: str) -> Any:
        if name in chosen:
            return chosen[name]
        if name in slots:
            pool = slots[name]
        elif name.endswith("2") and name[:-1] in slots:
            first = value(name[:-1])
            pool = [v for v in slots[name[:-1]] if v != first]
        else:
            raise KeyError(f"unknown slot {{{name}}} in {text!r}")
        chosen[name] = rng.choice(pool)
        return chosen[name]

    def fill(match: re.Match[str]) -> str:
        name, form = match.group(1), match.group(2)
        if name in _GENDER:
            return _GENDER[name][female]
        got = value(name)
        if isinstance(got, dict):
            return str(got[form or "text"])
        if form:
            raise KeyError(f"slot {{{name}}} has no forms, {text!r} asks for .{form}")
        return str(got)

    out = _SLOT.sub(fill, text)
    return out[:1].upper() + out[1:] if text.startswith("{") else out


_EN_PREFIX = [
    "btw ",
    "oh and ",
    "fyi ",
    "hey so ",
    "quick note: ",
    "just so you know, ",
    "ok so ",
    "random but ",
    "also ",
    "right, ",
]
_EN_SUFFIX = [" lol", " haha", "!!", " :)", " tbh", " fwiw", " anyway", "..."]
_RU_PREFIX = [
    "кстати, ",
    "короче, ",
    "слушай, ",
    "ну вот, ",
    "к слову, ",
    "да, и ещё: ",
    "так, ",
    "в общем, ",
    "блин, ",
]
_RU_SUFFIX = [")))", " )", "!!", " вот", " кстати", " если что", " короче", "..."]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    spots = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
    for i in rng.sample(spots, min(len(spots), rng.choice((1, 1, 2)))):
        w = words[i]
        j = rng.randrange(1, len(w) - 1)
        op = rng.choice(("swap", "drop", "double"))
        if op == "swap":
            w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        elif op == "drop":
            w = w[:j] + w[j + 1 :]
        else:
            w = w[:j] + w[j] + w[j:]
        words[i] = w
    return " ".join(words)


def _mixed_case(text: str, rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        return text.upper()
    words = text.split(" ")
    if roll < 0.6:
        i = rng.randrange(len(words))
        words[i] = words[i].upper()
        return " ".join(words)
    return " ".join(w[:1].upper() + w[1:] for w in words)  # Title Case Typing


def transform(text: str, lang: str, rng: random.Random) -> tuple[str, str]:
    """One register: plain, lower, nopunct, typo, chatty or mixed case."""
    register = rng.choices(
        ("plain", "lower", "nopunct", "typo", "chatty", "mixed"), (34, 15, 13, 13, 17, 8)
    )[0]
    if register == "lower":
        text = text.lower()
    elif register == "nopunct":
        text = re.sub(r"[.,!?;:«»—]+", "", text)
        text = re.sub(r"\s+", " ", text).strip()
        if rng.random() < 0.7:
            text = _lower_first(text)
    elif register == "typo":
        text = _typo(text, rng)
    elif register == "chatty":
        prefix, suffix = (_EN_PREFIX, _EN_SUFFIX) if lang == "en" else (_RU_PREFIX, _RU_SUFFIX)
        if rng.random() < 0.6:
            text = rng.choice(prefix) + _lower_first(text)
        if rng.random() < 0.6 or not text.startswith(tuple(prefix)):
            text = text.rstrip(".") + rng.choice(suffix)
    elif register == "mixed":
        text = _mixed_case(text, rng)
    return text, register


# -- templates and split --------------------------------------------------------------


def templates() -> list[Template]:
    out: list[Template] = []
    sources = (
        ("en", EN_KEEP + passing.EN_KEEP, EN_DROP + passing.EN_DROP),
        ("ru", RU_KEEP + passing.RU_KEEP, RU_DROP + passing.RU_DROP),
    )
    for lang, keeps, drops in sources:
        counter: Counter[str] = Counter()
        for text, category in keeps:
            if category not in CATEGORIES:
                raise ValueError(f"unknown category {category!r}: {text!r}")
            counter[category] += 1
            tid = f"{lang}-keep-{category}-{counter[category]:02d}"
            out.append(Template(tid, lang, text, "keep", category, "statement"))
        for text, kind in drops:
            if kind not in DROP_KINDS:
                raise ValueError(f"unknown drop kind {kind!r}: {text!r}")
            counter[kind] += 1
            out.append(
                Template(f"{lang}-drop-{kind}-{counter[kind]:02d}", lang, text, "drop", None, kind)
            )
    return out


def handwritten() -> list[Template]:
    out: list[Template] = []
    counter: Counter[str] = Counter()
    for number, line in enumerate(HANDWRITTEN.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            lang, label, category, text = line.split("|", 3)
        except ValueError:
            raise ValueError(
                f"{HANDWRITTEN.name}:{number}: want lang|label|category|text"
            ) from None
        text = text.replace("\\n", "\n").strip()
        if lang not in ("en", "ru") or label not in ("keep", "drop") or not text:
            raise ValueError(f"{HANDWRITTEN.name}:{number}: bad line {line!r}")
        if label == "keep" and category not in CATEGORIES:
            raise ValueError(f"{HANDWRITTEN.name}:{number}: unknown category {category!r}")
        if label == "drop" and category not in DROP_KINDS:
            raise ValueError(f"{HANDWRITTEN.name}:{number}: unknown drop kind {category!r}")
        counter[lang] += 1
        out.append(
            Template(
                f"hw-{lang}-{counter[lang]:04d}",
                lang,
                text,
                label,
                category if label == "keep" else None,
                "statement" if label == "keep" else category,
            )
        )
    return out


def assign_splits(items: list[Template], rng: random.Random) -> list[Template]:
    """A fifth of each (lang, label, category-or-kind) group is held out, whole templates."""
    groups: dict[tuple[str, str, str], list[Template]] = defaultdict(list)
    for t in items:
        groups[(t.lang, t.label, t.category or t.kind)].append(t)
    test: set[str] = set()
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda t: t.id)
        rng.shuffle(members)
        n = round(len(members) * TEST_SHARE)
        if n == 0 and len(members) >= 3:
            n = 1
        test.update(t.id for t in members[:n])
    return [
        Template(
            t.id, t.lang, t.text, t.label, t.category, t.kind, "test" if t.id in test else "train"
        )
        for t in items
    ]


# -- rows -------------------------------------------------------------------------------


def expand(t: Template, rng: random.Random) -> list[Row]:
    slots = EN_SLOTS if t.lang == "en" else RU_SLOTS
    has_slots = any(m.group(1) not in _GENDER for m in _SLOT.finditer(t.text))
    times = (PER_SLOTTED_TEMPLATE if has_slots else PER_PLAIN_TEMPLATE)[t.label]
    rows = []
    for _ in range(times):
        text, register = transform(render(t.text, slots, rng), t.lang, rng)
        rows.append(
            Row(t.lang, text, t.label, t.category, t.kind, t.id, t.split, register, "template")
        )
    return rows


def _clause(text: str) -> str:
    return _lower_first(text.strip().rstrip(".!"))


_LIST_SHAPES = {
    "en": [
        "- {a}\n- {b}",
        "- {a}\n- {b}\n- {c}",
        "1) {a} 2) {b}",
        "{a}; {b}; {c}",
        "a few things about me: {a}, {b}",
        "for the record:\n* {a}\n* {b}\n* {c}",
    ],
    "ru": [
        "- {a}\n- {b}",
        "- {a}\n- {b}\n- {c}",
        "1) {a} 2) {b}",
        "{a}; {b}; {c}",
        "пара фактов обо мне: {a}, {b}",
        "для справки:\n* {a}\n* {b}\n* {c}",
    ],
}
_DROP_LIST_SHAPES = {
    "en": ["two quick ones: 1) {a} 2) {b}", "- {a}\n- {b}", "{a} also {b}"],
    "ru": ["два вопроса: 1) {a} 2) {b}", "- {a}\n- {b}", "{a} и ещё {b}"],
}
_COMBO_SHAPES = {
    "en": ["{k} {d}", "{k}, so {d}", "{d} ({k})", "{k}. anyway, {d}"],
    "ru": ["{k} {d}", "{k}, поэтому {d}", "{d} ({k})", "{k}. и вот ещё: {d}"],
}


def compose(items: list[Template], rng: random.Random) -> list[Row]:
    """Lists of statements, lists of questions, and a statement joined to a question or request,
    each made of templates of ONE split so the held-out split stays unseen."""
    rows: list[Row] = []
    for lang in ("en", "ru"):
        slots = EN_SLOTS if lang == "en" else RU_SLOTS
        for split in ("train", "test"):
            pool = [t for t in items if t.lang == lang and t.split == split and t.id[:3] != "hw-"]
            keeps = [t for t in pool if t.label == "keep"]
            asks = [t for t in pool if t.kind in ("question", "request")]
            share = TEST_SHARE if split == "test" else 1 - TEST_SHARE
            for _ in range(round(LISTS_PER_LANG * share)):
                shape = rng.choice(_LIST_SHAPES[lang])
                parts = rng.sample(keeps, 3)
                text = shape.format(
                    **{
                        k: _clause(render(p.text, slots, rng))
                        for k, p in zip("abc", parts, strict=True)
                    }
                )
                used = parts[: shape.count("{")]
                rows.append(
                    Row(
                        lang,
                        text,
                        "keep",
                        used[0].category,
                        "list",
                        "+".join(p.id for p in used),
                        split,
                        "list",
                        "composed",
                    )
                )
            for _ in range(round(LISTS_PER_LANG * share / 3)):
                shape = rng.choice(_DROP_LIST_SHAPES[lang])
                parts = rng.sample(asks, 2)
                text = shape.format(
                    **{
                        k: _clause(render(p.text, slots, rng))
                        for k, p in zip("ab", parts, strict=True)
                    }
                )
                rows.append(
                    Row(
                        lang,
                        text,
                        "drop",
                        None,
                        "question",
                        "+".join(p.id for p in parts),
                        split,
                        "list",
                        "composed",
                    )
                )
            for _ in range(round(COMBOS_PER_LANG * share)):
                keep, ask = rng.choice(keeps), rng.choice(asks)
                shape = rng.choice(_COMBO_SHAPES[lang])
                k = render(keep.text, slots, rng)
                d = render(ask.text, slots, rng)
                text = shape.format(
                    k=k if shape.startswith("{k} {d}") else _clause(k),
                    d=d if shape.startswith("{k} {d}") else _clause(d),
                )
                text, register = transform(text, lang, rng)
                rows.append(
                    Row(
                        lang,
                        text,
                        "keep",
                        keep.category,
                        "statement+ask",
                        f"{keep.id}+{ask.id}",
                        split,
                        register,
                        "composed",
                    )
                )
    return rows


def build() -> list[dict[str, Any]]:
    rng = random.Random(SEED)
    items = assign_splits(templates() + handwritten(), rng)
    rows: list[Row] = []
    for t in items:
        if t.id.startswith("hw-"):
            rows.append(
                Row(
                    t.lang,
                    t.text,
                    t.label,
                    t.category,
                    t.kind,
                    t.id,
                    t.split,
                    "handwritten",
                    "handwritten",
                )
            )
        else:
            rows.extend(expand(t, rng))
    rows.extend(compose(items, rng))

    seen: dict[str, Row] = {}
    unique: list[Row] = []
    for row in rows:
        key = " ".join(row.text.casefold().split())
        if key in seen:
            if seen[key].label != row.label:
                raise ValueError(
                    f"one text, two labels: {row.text!r} ({row.template}, {seen[key].template})"
                )
            continue
        seen[key] = row
        unique.append(row)
    rng.shuffle(unique)
    return [
        {
            "id": f"cap-{i:05d}",
            "lang": r.lang,
            "text": r.text,
            "label": r.label,
            "category": r.category,
            "kind": r.kind,
            "template": r.template,
            "split": r.split,
            "register": r.register,
            "source": r.source,
        }
        for i, r in enumerate(unique, 1)
    ]


def dumps(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def summary(rows: list[dict[str, Any]]) -> str:
    by = Counter((r["lang"], r["label"], r["split"]) for r in rows)
    lines = [f"{len(rows)} turns"]
    for lang in ("en", "ru"):
        cells = ", ".join(
            f"{label} {split} {by[(lang, label, split)]}"
            for label in ("keep", "drop")
            for split in ("train", "test")
        )
        lines.append(f"  {lang}: {cells}")
    cats = Counter(r["category"] for r in rows if r["label"] == "keep")
    lines.append("  keep categories: " + ", ".join(f"{c} {cats[c]}" for c in CATEGORIES))
    kinds = Counter(r["kind"] for r in rows if r["label"] == "drop")
    lines.append("  drop kinds: " + ", ".join(f"{k} {kinds[k]}" for k in DROP_KINDS))
    regs = Counter(r["register"] for r in rows)
    lines.append("  registers: " + ", ".join(f"{k} {v}" for k, v in regs.most_common()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="fail if --out differs from a rebuild")
    args = parser.parse_args(argv)
    rows = build()
    text = dumps(rows)
    if args.check:
        if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} is stale: run {Path(__file__).name}", file=sys.stderr)
            return 1
        print(summary(rows))
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(summary(rows))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
