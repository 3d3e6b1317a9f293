"""Build MemoHood's dev scenarios from ``dev_scenarios.txt`` and check that every probe is a
paraphrase: it shares no word stem with the turns that hold its facts.

    python bench/data/memory/make_dev_scenarios.py           # check, then write dev_scenarios.jsonl
    python bench/data/memory/make_dev_scenarios.py --check   # check, and fail if the file is stale

The output follows ``../shared/eval/memory/README.md`` (one scenario a line: id, lang, user,
turns, probes with expect_recall / must_include / must_not_include / history_must_include), plus:

- ``category`` on every scenario, in the categories of LongMemEval: single_session,
  multi_session, knowledge_update (chains included), temporal, abstention, preference,
  third_party (third parties, hypotheticals and assistant suggestions: never the user's facts),
  isolation (another user asks the same questions), credential (a key or token said in chat must
  not come back verbatim) and smalltalk (probes the gate should skip);
- ``as_of`` on a probe (optional, ISO time): a temporal question, recalled with the versions that
  were current then (``MemoHood.recall(as_of=...)``); without it, recall is "now" at the probe;
- ``split`` on every scenario: ``heldout`` for every user whose number is a multiple of
  :data:`HELDOUT_EVERY` (``en-u03``, ``ru-u06``...: a third of the users, both languages, every
  category), else ``dev``. Rules and knobs are tuned on the dev part only; ``bench/memory_eval.py``
  reports both parts and prints the misses of the dev part alone, so nobody reads a held-out miss
  and patches it. A whole user goes to one side, so a held-out probe never asks about something a
  dev scenario taught.

Several scenarios share one user, in order, so a probe is asked against everything that user said
before it, and many users share one file (isolation). Before each scenario the user also says four
haystack turns in a session of their own (``"filler": true``, two keeps and two drops drawn with a
fixed seed from ``capture_labels.jsonl``, none holding a string any probe of that user looks for),
so recall has to rank a realistic pile of other facts and chatter.

The source format, one item a line (``#`` starts a comment):

    @user en-u01                   following scenarios belong to this user (language from prefix)
    == knowledge_update [name=x] [of=y]    a new scenario; ``of``: the isolation_of scenario's name
    u: text / a: text              a user / assistant turn (two minutes after the previous line)
    +3d / +5h / +20m               the clock moves on
    ? text || include; ... || must_not; ... || history; ... [|| asof=-10d]   a memory probe
    ! text                         a small-talk probe (expect_recall false)

A scenario's first turn opens a new session a day after the user's previous line; a probe not
preceded by a ``+`` line comes a day after the last turn.

The checks (``check``) fail loudly: a probe that shares a content-word stem (PyStemmer, the
scenario's language; function words aside) with any user turn holding one of its strings; an
include/history string that no user turn of its scenario holds; a must_not_include string said by
the same user in another scenario (it would not be stale there); a string the probe itself contains.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import Stemmer

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "dev_scenarios.txt"
LABELS = HERE / "capture_labels.jsonl"
SEED = 17
FILLER_PER_SCENARIO = 4  # haystack turns before each scenario: 2 keeps, 2 drops
_ACK = {"en": "Okay.", "ru": "Хорошо."}
OUT = HERE / "dev_scenarios.jsonl"
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
#: Users whose number is a multiple of this are held out (see ``split`` above).
HELDOUT_EVERY = 3
CATEGORIES = (
    "single_session",
    "multi_session",
    "knowledge_update",
    "temporal",
    "abstention",
    "preference",
    "third_party",
    "isolation",
    "credential",
    "smalltalk",
)


def _words(text: str) -> set[str]:
    return set(text.split())


# Function words (and a few verbs every sentence uses) are not a shared stem worth refusing.
STOP = {
    "en": _words(
        """a an the and or but so if then than of to in on at for from with by about as into over
        after before up down out off is am are was were be been being do does did done have has had
        will would shall should can could may might must not no yes this that these those there here
        what which who whom whose when where why how all any some just also again still now i me my
        mine myself we us our you your he him his she her it its they them their im ive id dont
        doesnt didnt isnt cant wont get got go going gone make made need want think know tell remind
        say said anything something else thing things ok okay please thanks much many very really
        too one ones s t ll re ve d m"""
    ),
    "ru": _words(
        """я меня мне мной мой моя моё мое мои моего моей моему моим моих моими мы нас нам нами наш
        наша наше наши нашего нашей ты тебя тебе тобой твой твоя он она оно они его её ее их ему ей
        им ими нём ней в во на с со к ко по о об обо от до из у за для при про над под и а но или да
        нет не ни же ли бы то что чтобы как где когда какой какая какое какие какую каком кто чем
        чём это этот эта эти этого там тут вот уже ещё еще так был была было были есть буду будет
        можно нужно надо себя свой своя свои своего сколько почему зачем всё все весь вся очень
        только тоже ну напомни скажи подскажи знаешь нем"""
    ),
}
_STEMMERS = {"en": Stemmer.Stemmer("english"), "ru": Stemmer.Stemmer("russian")}
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SHIFT = re.compile(r"^\+(\d+)([dhm])$")


class ScenarioError(ValueError):
    """The source has a malformed line or a check failed."""


def stems(text: str, lang: str) -> set[str]:
    words = [w for w in _WORD.findall(text.casefold().replace("ё", "е")) if w not in STOP[lang]]
    return {s for s in _STEMMERS[lang].stemWords(words) if s not in STOP[lang]}


@dataclass
class Scenario:
    user: str
    lang: str
    category: str
    name: str | None
    of: str | None
    line: int
    turns: list[dict[str, str]] = field(default_factory=list)
    probes: list[dict[str, Any]] = field(default_factory=list)


def _iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _shift(token: str) -> timedelta:
    m = _SHIFT.match(token)
    if not m:
        raise ScenarioError(f"bad time shift {token!r}")
    n, unit = int(m.group(1)), m.group(2)
    return {"d": timedelta(days=n), "h": timedelta(hours=n), "m": timedelta(minutes=n)}[unit]


def _strings(field_text: str) -> list[str]:
    return [s.strip() for s in field_text.split(";") if s.strip()]


Filler = Callable[[str, int], list[str]]


def parse(text: str, filler: Filler | None = None) -> list[Scenario]:
    """The source lines as scenarios with their timestamps; ``filler(user, n)`` gives the
    haystack turns said in a session of their own before that user's n-th scenario."""
    counts: Counter[str] = Counter()
    scenarios: list[Scenario] = []
    clocks: dict[str, datetime] = {}
    user: str | None = None
    current: Scenario | None = None
    shifted = False  # a "+" line since the last turn
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{SOURCE.name}:{number}"
        if line.startswith("@user "):
            user = line.split()[1]
            if user[:3] not in ("en-", "ru-"):
                raise ScenarioError(f"{where}: a user name starts with en- or ru-")
            clocks.setdefault(user, START + timedelta(hours=len(clocks)))
            continue
        if user is None:
            raise ScenarioError(f"{where}: no @user before this line")
        if line.startswith("=="):
            words = line[2:].split()
            if not words or words[0] not in CATEGORIES:
                raise ScenarioError(f"{where}: unknown category in {line!r}")
            opts = dict(w.split("=", 1) for w in words[1:])
            current = Scenario(user, user[:2], words[0], opts.get("name"), opts.get("of"), number)
            scenarios.append(current)
            clocks[user] = clocks[user].replace(hour=9, minute=0) + timedelta(days=1)
            for said in filler(user, counts[user]) if filler else []:
                for role, text_ in (("user", said), ("assistant", _ACK[user[:2]])):
                    clocks[user] += timedelta(minutes=2)
                    turn = {"t": _iso(clocks[user]), "role": role, "text": text_, "filler": True}
                    current.turns.append(turn)
            if filler:
                clocks[user] = clocks[user].replace(hour=9, minute=0) + timedelta(days=1)
            counts[user] += 1
            shifted = True
            continue
        if current is None:
            raise ScenarioError(f"{where}: no == scenario before this line")
        if line.startswith("+"):
            clocks[user] += _shift(line)
            shifted = True
        elif line[:2] in ("u:", "a:"):
            clocks[user] += timedelta(minutes=2)
            role = "user" if line[0] == "u" else "assistant"
            current.turns.append({"t": _iso(clocks[user]), "role": role, "text": line[2:].strip()})
            shifted = False
        elif line[0] in "?!":
            clocks[user] += timedelta(minutes=1) if shifted else timedelta(days=1)
            shifted = True
            probe: dict[str, Any] = {"t": _iso(clocks[user])}
            if line[0] == "!":
                probe.update(text=line[1:].strip(), expect_recall=False)
                probe.update(must_include=[], must_not_include=[], history_must_include=[])
            else:
                parts = [p.strip() for p in line[1:].split("||")]
                if len(parts) < 4 or len(parts) > 5:
                    raise ScenarioError(f"{where}: want ? text || inc || not || hist [|| asof=-Nd]")
                probe.update(text=parts[0], expect_recall=True, must_include=_strings(parts[1]))
                probe.update(must_not_include=_strings(parts[2]))
                probe.update(history_must_include=_strings(parts[3]))
                if len(parts) == 5:
                    if not parts[4].startswith("asof=-"):
                        raise ScenarioError(f"{where}: the 5th field is asof=-Nd")
                    probe["as_of"] = _iso(clocks[user] - _shift("+" + parts[4][6:]))
            probe["_line"] = number
            current.probes.append(probe)
        else:
            raise ScenarioError(f"{where}: cannot read {line!r}")
    return scenarios


def check(scenarios: list[Scenario]) -> list[str]:
    """Every violation, one message each (empty: all good)."""
    problems: list[str] = []
    by_user: dict[str, list[Scenario]] = {}
    names: dict[str, Scenario] = {}
    for s in scenarios:
        by_user.setdefault(s.user, []).append(s)
        if s.name:
            if s.name in names:
                problems.append(f"line {s.line}: name {s.name!r} used twice")
            names[s.name] = s
    for s in scenarios:
        if not s.probes:
            problems.append(f"line {s.line}: a scenario without probes")
        if s.of and (s.of not in names or names[s.of].user == s.user):
            problems.append(f"line {s.line}: of={s.of} names no other user's scenario")
        if s.category == "isolation" and not s.of:
            problems.append(f"line {s.line}: an isolation scenario needs of=")
        user_turns = [t["text"] for t in s.turns if t["role"] == "user"]
        others = [t["text"].casefold() for o in by_user[s.user] if o is not s for t in o.turns]
        for p in s.probes:
            where = f"line {p['_line']}"
            probe_stems = stems(p["text"], s.lang)
            if s.category == "smalltalk" and p["expect_recall"] and not p["must_include"]:
                problems.append(f"{where}: a memory probe in a small-talk scenario checks nothing")
            wanted = p["must_include"] + p["history_must_include"]
            for string in wanted + p["must_not_include"]:
                if string.casefold() in p["text"].casefold():
                    problems.append(f"{where}: the probe itself contains {string!r}")
            for string in wanted:
                if not any(string.casefold() in t.casefold() for t in user_turns):
                    problems.append(f"{where}: no user turn of the scenario holds {string!r}")
            for string in p["must_not_include"]:
                if any(string.casefold() in t for t in others):
                    problems.append(f"{where}: {string!r} is said in another scenario of {s.user}")
            holders = [
                t
                for t in user_turns
                if any(x.casefold() in t.casefold() for x in wanted + p["must_not_include"])
            ]
            for turn in holders:
                shared = probe_stems & stems(turn, s.lang)
                if shared:
                    problems.append(
                        f"{where}: probe shares stem(s) {sorted(shared)} with the turn {turn!r}"
                    )
            if "as_of" in p and not (s.turns[0]["t"] <= p["as_of"] <= p["t"]):
                problems.append(f"{where}: as_of falls outside the scenario")
    return problems


def _user_strings(scenarios: list[Scenario]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for s in scenarios:
        for p in s.probes:
            strings = p["must_include"] + p["must_not_include"] + p["history_must_include"]
            out.setdefault(s.user, set()).update(x.casefold() for x in strings)
    return out


def haystack(scenarios: list[Scenario], per_scenario: int = FILLER_PER_SCENARIO) -> Filler:
    """Turns from the capture dataset (half keeps, half drops, the user's language), none of
    which holds any string a probe of that user looks for; each user gets its own, seeded."""
    pool = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines()]
    pool = [r for r in pool if r["register"] != "list" and "\n" not in r["text"]]
    strings = _user_strings(scenarios)
    queues: dict[str, list[str]] = {}
    for user, wanted in strings.items():
        rng = random.Random(f"{SEED}:{user}")
        mine = [r for r in pool if r["lang"] == user[:2]]
        mine = [r for r in mine if not any(w in r["text"].casefold() for w in wanted)]
        keeps = [r["text"] for r in mine if r["label"] == "keep"]
        drops = [r["text"] for r in mine if r["label"] == "drop"]
        rng.shuffle(keeps)
        rng.shuffle(drops)
        queue: list[str] = []
        for k, d in zip(keeps, drops, strict=False):
            queue += [k, d]
        queues[user] = queue

    def filler(user: str, n: int) -> list[str]:
        return queues[user][n * per_scenario : (n + 1) * per_scenario]

    return filler


def split_of(user: str) -> str:
    """``heldout`` or ``dev``: a user's scenarios are all on one side."""
    number = int(re.sub(r"\D", "", user.split("-", 1)[1]) or 0)
    return "heldout" if number % HELDOUT_EVERY == 0 else "dev"


def build(text: str, filler_per_scenario: int = FILLER_PER_SCENARIO) -> list[dict[str, Any]]:
    scenarios = parse(text)
    if filler_per_scenario:
        scenarios = parse(text, haystack(scenarios, filler_per_scenario))
    problems = check(scenarios)
    if problems:
        raise ScenarioError(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))
    ids: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for number, s in enumerate(scenarios, 1):
        sid = f"dev-{number:03d}"
        if s.name:
            ids[s.name] = sid
        row: dict[str, Any] = {"id": sid, "lang": s.lang, "user": s.user, "category": s.category}
        row["split"] = split_of(s.user)
        if s.of:
            row["isolation_of"] = s.of  # a name for now, an id below
        row["turns"] = s.turns
        row["probes"] = [{k: v for k, v in p.items() if k != "_line"} for p in s.probes]
        out.append(row)
    for row in out:
        if "isolation_of" in row:
            row["isolation_of"] = ids[row["isolation_of"]]
    return out


def dumps(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def summary(rows: list[dict[str, Any]]) -> str:
    cats = Counter((r["category"], r["lang"], r["split"]) for r in rows)
    probes = sum(len(r["probes"]) for r in rows)
    users = len({r["user"] for r in rows})
    held = [r for r in rows if r["split"] == "heldout"]
    lines = [
        f"{len(rows)} scenarios, {probes} probes, {users} users; held out: {len(held)} scenarios, "
        f"{sum(len(r['probes']) for r in held)} probes, {len({r['user'] for r in held})} users",
        "  (scenarios)        dev en / ru   held-out en / ru",
    ]
    for c in CATEGORIES:
        dev = f"{cats[(c, 'en', 'dev')]:3d} / {cats[(c, 'ru', 'dev')]:3d}"
        out = f"{cats[(c, 'en', 'heldout')]:3d} / {cats[(c, 'ru', 'heldout')]:3d}"
        lines.append(f"  {c:17s} {dev}     {out}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="fail if --out differs from a rebuild")
    args = parser.parse_args(argv)
    try:
        rows = build(SOURCE.read_text(encoding="utf-8"))
    except ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    text = dumps(rows)
    if args.check:
        if not args.out.exists() or args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} is stale: run {Path(__file__).name}", file=sys.stderr)
            return 1
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
