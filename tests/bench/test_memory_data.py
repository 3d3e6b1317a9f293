"""The committed memory dev data: rebuilt exactly by its script, the shape the classifier and the
benchmark rely on, and a held-out split that shares no template with training."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "memory"
SHARED = DATA.parents[3] / "shared" / "eval" / "memory" / "scenarios.jsonl"


@pytest.fixture(scope="module")
def labels() -> list[dict[str, object]]:
    sys.path.insert(0, str(DATA))
    try:
        import make_capture_labels
    finally:
        sys.path.remove(str(DATA))
    rows = make_capture_labels.build()
    committed = (DATA / "capture_labels.jsonl").read_text(encoding="utf-8")
    assert make_capture_labels.dumps(rows) == committed, "capture_labels.jsonl is stale"
    return rows


def test_size_languages_and_labels(labels: list[dict[str, object]]) -> None:
    assert len(labels) >= 3000
    langs = Counter(r["lang"] for r in labels)
    assert set(langs) == {"en", "ru"}
    assert 0.4 < langs["en"] / len(labels) < 0.6
    for lang in ("en", "ru"):
        for split in ("train", "test"):
            got = Counter(r["label"] for r in labels if r["lang"] == lang and r["split"] == split)
            assert got["keep"] > 0 and got["drop"] > 0, (lang, split, got)
    assert len({r["id"] for r in labels}) == len(labels)
    assert len({" ".join(str(r["text"]).casefold().split()) for r in labels}) == len(labels)


def test_keeps_have_a_category_and_drops_none(labels: list[dict[str, object]]) -> None:
    categories = {
        "health", "food", "family", "home", "work", "travel", "schedule", "money", "vehicle",
        "pet", "preference", "identity", "other",
    }  # fmt: skip
    keeps = [r for r in labels if r["label"] == "keep"]
    assert {r["category"] for r in keeps} == categories
    assert {r["category"] for r in keeps if r["split"] == "test"} == categories
    assert all(r["category"] is None for r in labels if r["label"] == "drop")
    assert "{" not in "".join(str(r["text"]) for r in labels)  # every slot was filled


def test_held_out_split_shares_no_template(labels: list[dict[str, object]]) -> None:
    def used(split: str) -> set[str]:
        return {t for r in labels if r["split"] == split for t in str(r["template"]).split("+")}

    train, test = used("train"), used("test")
    assert train and test
    assert not train & test
    assert 0.1 < len(test) / (len(train) + len(test)) < 0.3


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/eval/memory is absent")
def test_no_turn_is_taken_from_the_evaluation(labels: list[dict[str, object]]) -> None:
    def norm(text: str) -> str:
        return " ".join(text.casefold().split())

    theirs = set()
    for line in SHARED.read_text(encoding="utf-8").splitlines():
        if line.strip():
            scenario = json.loads(line)
            theirs |= {norm(t["text"]) for t in scenario["turns"]}
            theirs |= {norm(p["text"]) for p in scenario["probes"]}
    ours = {norm(str(r["text"])) for r in labels}
    assert not ours & theirs
    for line in (DATA / "dev_scenarios.jsonl").read_text(encoding="utf-8").splitlines():
        scenario = json.loads(line)
        said = {norm(t["text"]) for t in scenario["turns"] if t["role"] == "user"}
        said |= {norm(p["text"]) for p in scenario["probes"]}
        assert not said & theirs, scenario["id"]


def _scenarios_module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(DATA))
    try:
        import make_dev_scenarios
    finally:
        sys.path.remove(str(DATA))
    return make_dev_scenarios


def test_dev_scenarios_are_rebuilt_and_cover_every_category() -> None:
    mod = _scenarios_module()
    rows = mod.build((DATA / "dev_scenarios.txt").read_text(encoding="utf-8"))
    assert mod.dumps(rows) == (DATA / "dev_scenarios.jsonl").read_text(encoding="utf-8")
    assert len(rows) >= 200
    assert {(r["category"], r["lang"]) for r in rows} == {
        (c, lang) for c in mod.CATEGORIES for lang in ("en", "ru")
    }
    assert len({r["user"] for r in rows}) >= 10
    assert any("as_of" in p for r in rows for p in r["probes"])
    ids = {r["id"] for r in rows}
    assert all(r["isolation_of"] in ids for r in rows if "isolation_of" in r)


_SOURCE = """@user en-t1
== single_session
u: My daughter Wilhelmina plays the oboe.
? {probe} || Wilhelmina || ||
"""


def test_the_paraphrase_check_refuses_a_shared_stem() -> None:
    mod = _scenarios_module()
    assert mod.build(_SOURCE.format(probe="What is my kid called?"))
    with pytest.raises(mod.ScenarioError, match="shares stem"):
        mod.build(_SOURCE.format(probe="What instrument do my daughters play?"))
    with pytest.raises(mod.ScenarioError, match="no user turn"):
        mod.build(_SOURCE.replace("|| Wilhelmina ||", "|| Ottoline ||").format(probe="Who?"))


class _Recorder:
    """A stand-in memory that records what the benchmark's replay asks of it."""

    def __init__(self) -> None:
        self.recalls: list[dict[str, object]] = []

    def capture(self, text: str, **kwargs: object) -> None:
        return None

    def recall(self, message: str, **kwargs: object) -> object:
        from types import SimpleNamespace

        self.recalls.append({"message": message, **kwargs})
        facts = [SimpleNamespace(statement="the fact mentions Wilhelmina")]
        gate = SimpleNamespace(action="recall")
        return SimpleNamespace(
            gate=gate, facts=facts, unmatched=[], history=[], block="", as_of=kwargs.get("as_of")
        )


def test_benchmark_replay_asks_temporal_probes_as_of_their_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(DATA.parents[1]))
    import memory_eval

    rows = _scenarios_module().build(
        _SOURCE.format(probe="Who is my kid?")
        + "? Who was my kid back then? || Wilhelmina || Ottoline || || asof=-2h\n! thanks\n"
    )
    memory = _Recorder()
    replayed = list(memory_eval.replay(memory, rows))  # type: ignore[arg-type]
    assert [r["as_of"] for r in memory.recalls] == [None, memory.recalls[1]["as_of"], None]
    assert memory.recalls[1]["as_of"] is not None
    assert memory.recalls[1]["as_of"] < memory.recalls[1]["at"]
    result = memory_eval.score(rows, replayed)
    assert set(result["by_category"]) == {"single_session", "smalltalk"}
    assert result["by_category"]["smalltalk"]["smalltalk_skipped"] == 0.0  # it recalled
    assert result["by_category"]["single_session"]["must_include_probe_share"] == 1.0
    assert "| all |" in memory_eval.category_table(result)


def test_a_credential_leaks_from_anywhere_in_the_prompt_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(DATA.parents[1]))
    import memory_eval

    token = "tok_Zq81Lm0Pv27Xs"
    rows = _scenarios_module().build(
        f"@user en-t2\n== credential\nu: the staging password is {token}\n"
        "? How do I log into the test box? || || " + token + " ||\n",
        filler_per_scenario=0,
    )
    scenario, probe = rows[0], rows[0]["probes"][0]
    row = {"id": scenario["id"], "probe": 0, "gate": "recall", "facts": [], "history": []}
    assert memory_eval.score(rows, [{**row, "block": "nothing"}])["leak_probes"] == 0
    leaked = memory_eval.score(rows, [{**row, "block": f"past turn: {token}"}])
    assert leaked["leak_probes"] == 1
    assert probe["must_not_include"] == [token]


def test_a_third_of_the_users_are_held_out_whole_in_both_languages() -> None:
    mod = _scenarios_module()
    text = (DATA / "dev_scenarios.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    sides: dict[str, set[str]] = {}
    for r in rows:
        sides.setdefault(r["user"], set()).add(r["split"])
    assert all(len(s) == 1 for s in sides.values())  # a user is on one side only
    held = [r for r in rows if r["split"] == "heldout"]
    assert 0.2 < len(held) / len(rows) < 0.45
    memory_categories = set(mod.CATEGORIES) - {"isolation", "credential"}
    for lang in ("en", "ru"):
        assert {r["category"] for r in held if r["lang"] == lang} >= memory_categories
    assert mod.split_of("en-u09") == "heldout" and mod.split_of("ru-u10") == "dev"


def test_the_held_out_part_reports_figures_but_no_probe_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(DATA.parents[1]))
    import memory_eval

    source = (
        "@user en-t1\n== single_session\nu: My goddaughter is named Philippa.\n"
        "? Whom did I promise to sponsor at the christening? || Philippa || ||\n"
        "@user en-t3\n== single_session\nu: My cockatoo is named Bartholomew.\n"
        "? Which bird shares my flat? || Bartholomew || ||\n"
    )
    rows = _scenarios_module().build(source, filler_per_scenario=0)
    assert [r["split"] for r in rows] == ["dev", "heldout"]
    nothing = [
        {"id": r["id"], "probe": 0, "gate": "recall", "facts": [], "history": []} for r in rows
    ]
    result = memory_eval.score(rows, nothing)
    dev, held = result["splits"]["dev"], result["splits"]["heldout"]
    assert dev["must_include_probe_share"] == held["must_include_probe_share"] == 0.0
    assert [m["text"] for m in dev["misses"]] == [
        "Whom did I promise to sponsor at the christening?"
    ]
    assert held["misses"] == [] and result["misses"] == dev["misses"]
    assert "Bartholomew" not in json.dumps(result["splits"]["heldout"])
