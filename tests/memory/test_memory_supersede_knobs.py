"""The supersede weights live in MemoryConfig and decide: turning one off changes a decision.

Pure :func:`match_fact` calls on hand-built views, so each case isolates one knob."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memo_core.errors import ConfigError
from memo_core.memory.config import SUPERSEDE_WEIGHTS, MemoryConfig
from memo_core.memory.versions import Existing, NewFact, _shares_a_word, match_fact

DEFAULT = MemoryConfig()


def _correction(stems: set[str], *, dated: bool, category: str = "plan") -> NewFact:
    return NewFact(None, "self", category, frozenset(stems), dated, correction=True)


def _old(stems: set[str], *, dated: bool, category: str, age_days: float) -> Existing:
    return Existing("f1", "k1", "self", category, frozenset(stems), dated, age_days=age_days)


def test_the_dated_bonus_lets_a_moved_appointment_supersede() -> None:
    # one shared word out of six: the word share alone (1/6) is below correction_min_score
    new = _correction({"osteopath", "wednesday"}, dated=True)
    old = _old(
        {"osteopath", "thursday", "clinic", "harrow", "road"},
        dated=True,
        category="health",
        age_days=20,
    )
    assert match_fact(new, [old], DEFAULT).action == "supersede"
    assert match_fact(new, [old], DEFAULT.with_(correction_dated_bonus=0.0)).action == "new"


def test_the_recency_bonus_lets_a_correction_fix_what_was_just_said() -> None:
    new = _correction({"kayak", "green"}, dated=False)
    fresh = _old({"kayak", "rental", "blue", "lake"}, dated=False, category="health", age_days=0.01)
    stale = replace(fresh, age_days=30)
    assert match_fact(new, [fresh], DEFAULT).action == "supersede"
    assert match_fact(new, [stale], DEFAULT).action == "new"
    quiet = DEFAULT.with_(correction_recency_bonuses=((1 / 24, 0.0), (7.0, 0.0)))
    assert match_fact(new, [fresh], quiet).action == "new"


def test_the_category_bonus_and_the_minimum_score_meet() -> None:
    new = _correction({"choir", "rehearsal", "friday"}, dated=False)
    old = _old({"choir", "rehearsal", "tuesday", "hall"}, dated=False, category="plan", age_days=30)
    assert match_fact(new, [old], DEFAULT).action == "supersede"
    strict = DEFAULT.with_(correction_category_bonus=0.0, correction_min_score=0.45)
    assert match_fact(new, [old], strict).action != "supersede"


def test_the_root_length_decides_which_words_share_a_root() -> None:
    tutor, tutoring = frozenset({"tutor"}), frozenset({"tutoring"})
    assert _shares_a_word(tutor, tutoring, DEFAULT)
    assert not _shares_a_word(tutor, tutoring, DEFAULT.with_(root_prefix_latin=6))
    # Cyrillic roots are shorter: "плаван" / "плавательн" share four letters
    assert _shares_a_word(frozenset({"плаван"}), frozenset({"плавательн"}), DEFAULT)


@pytest.mark.parametrize(
    "changes",
    [
        {"correction_dated_bonus": -0.1},
        {"topic_close_cosine": 1.5},
        {"correction_recency_bonuses": ((7.0, 0.1), (1.0, 0.2))},
        {"correction_recency_bonuses": ((1.0, 2.0),)},
        {"root_prefix_cyrillic": 1},
        {"cued_bare_amount_min": -1},
    ],
)
def test_bad_supersede_knobs_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        MemoryConfig(**changes)  # type: ignore[arg-type]


def test_every_supersede_knob_is_a_documented_field_read_from_yaml() -> None:
    import inspect

    source = inspect.getsource(MemoryConfig)
    for name in SUPERSEDE_WEIGHTS:
        assert f"    {name}: float" in source
        assert (
            source.split(f"    {name}: float")[0]
            .rstrip()
            .splitlines()[-1]
            .lstrip()
            .startswith(("#:", "correction_value_bonus"))
        ), name
    cfg = MemoryConfig.from_dict({"correction_recency_bonuses": [[0.5, 0.3]]})
    assert cfg.correction_recency_bonuses == ((0.5, 0.3),)


def test_a_tie_between_two_targets_goes_to_the_closer_meaning_then_the_later() -> None:
    new = replace(_correction({"swim", "thursday"}, dated=False), vector=[1.0, 0.0, 0.0])
    pool = _old({"swim", "monday", "pool"}, dated=False, category="plan", age_days=30)
    lake = replace(pool, id="f2", stems=frozenset({"swim", "monday", "lake"}))
    near, far = [0.45, 0.89, 0.0], [0.2, 0.98, 0.0]  # both below similarity_bonus_from
    for first, second in ((pool, lake), (lake, pool)):
        pair = [replace(first, vector=near), replace(second, vector=far)]
        for order in (pair, pair[::-1]):
            assert match_fact(new, order, DEFAULT).target.id == first.id  # type: ignore[union-attr]
    blind = replace(new, vector=None)
    later = [pool, replace(lake, age_days=20)]  # both past the recency bonuses
    assert match_fact(blind, later, DEFAULT).target.id == "f2"  # type: ignore[union-attr]
