"""SUPERSEDE by topic and value: a new value of the same attribute, a change cue, a reversed
preference. Each chain must end with exactly one current version, the rest in history."""

from __future__ import annotations

import pytest

from memo_core.memory import MemoHood

from .conftest import MONDAY, day


def _say(memory: MemoHood, *turns: str, ns: str = "u1") -> list[str]:
    for i, text in enumerate(turns):
        memory.capture(text, namespace=ns, at=day(i * 3))
    return [f.statement for f in memory.list_facts(ns)]


def _one_current_with_history(memory: MemoHood, ns: str, versions: int) -> str:
    [current] = memory.list_facts(ns)
    history = memory.history(current.id, namespace=ns)
    assert len(history) == versions
    assert [v.valid_to is None for v in history] == [False] * (versions - 1) + [True]
    return current.statement


@pytest.mark.parametrize(
    ("turns", "new_value"),
    [
        # a day of the month, no cue word beyond the date
        (
            (
                "My dentist appointment is on the 4th at 16:00.",
                "Dentist appointment is on the 11th.",
            ),
            "11th",
        ),
        # an amount per month, the old one given with a currency sign
        (
            (
                "My climbing gym membership is €52 a month.",
                "The climbing gym fee went up to 58 a month.",
            ),
            "58",
        ),
        # a dose raised
        (("I take 20 mg of omeprazole daily.", "My GP upped the omeprazole to 40 mg."), "40 mg"),
        # Russian date moved (перенесли)
        (("Защита курсовой 14 апреля.", "Защиту курсовой перенесли на 21 апреля."), "21 апреля"),
        # a place, no cue
        (("I live in Porto.", "These days I live in Braga."), "Braga"),
    ],
)
def test_a_new_value_of_the_same_attribute_supersedes(
    memory: MemoHood, turns: tuple[str, str], new_value: str
) -> None:
    _say(memory, *turns)
    assert new_value in _one_current_with_history(memory, "u1", 2)


def test_a_chain_of_three_moves_ends_with_exactly_one_current_version(memory: MemoHood) -> None:
    _say(
        memory,
        "The grant renewal form is due on 6 May.",
        "The grant renewal form deadline was pushed to 13 May.",
        "It slipped again, the grant renewal form is now due 20 May.",
    )
    assert "20 May" in _one_current_with_history(memory, "u1", 3)
    as_of = memory.recall("grant renewal form", namespace="u1", as_of=day(4), use_gate=False)
    assert [("13 May" in f.statement) for f in as_of.facts] == [True]


@pytest.mark.parametrize(
    "turns",
    [
        ("I really love espresso.", "I can't stand espresso anymore, it makes me sick."),
        ("Я обожаю острую еду.", "Острую еду мне больше нельзя есть."),
    ],
)
def test_a_reversed_preference_supersedes(memory: MemoHood, turns: tuple[str, str]) -> None:
    _say(memory, *turns)
    assert _one_current_with_history(memory, "u1", 2).startswith(turns[1][:8])


def test_different_things_with_different_values_stay_apart(memory: MemoHood) -> None:
    # other entities, other people, identifiers that only look like values
    assert (
        len(
            _say(
                memory, "I have a call with Priya on Tuesday.", "I have a call with Omar on Friday."
            )
        )
        == 2
    )
    assert len(_say(memory, "My rent is 950 EUR.", "My brother's rent is 700 EUR.", ns="u2")) == 2
    memory.remember("Ticket 41 is tracked on the sprint board.", namespace="u3", at=MONDAY)
    memory.remember("Ticket 42 is tracked on the sprint board.", namespace="u3", at=day(1))
    assert len(memory.list_facts("u3")) == 2


@pytest.mark.parametrize(
    ("turns", "new_value", "gone"),
    [
        # no shared word: "flat" and "landlord" are both about home, an amount changed
        (("My flat costs 900 a month.", "The landlord put it up to 960 from June."), "960", "900"),
        # a new provider named after a change word ("switched"), although the entities differ
        (
            ("I train at Peak Fitness gym.", "Switched gyms, I train at Ironworks now."),
            "Ironworks",
            "Peak",
        ),
        # "boss" and "manager" name one attribute (no word shared, the name changed)
        (("My manager is Dana.", "My new boss is Ruairi."), "Ruairi", "Dana"),
        # a past habit given up, Russian: "бросил" plus "теперь"
        (
            ("По субботам играю в шахматы в клубе.", "Шахматы бросил, теперь по субботам бегаю."),
            "бегаю",
            None,
        ),
    ],
)
def test_a_change_said_in_other_words_supersedes(
    memory: MemoHood, turns: tuple[str, str], new_value: str, gone: str | None
) -> None:
    _say(memory, *turns)
    current = _one_current_with_history(memory, "u1", 2)
    assert new_value in current
    assert gone is None or gone not in current


def test_the_clause_naming_the_old_value_is_left_to_history(memory: MemoHood) -> None:
    _say(memory, "My line manager is Colette.", "Colette left, my new boss is Ruairi.")
    [current] = memory.list_facts("u1")
    assert "Colette" not in current.statement
    [old, _] = memory.history(current.id, namespace="u1")
    assert "Colette" in old.statement


def test_again_follows_the_chain_with_bare_amounts(memory: MemoHood) -> None:
    _say(
        memory,
        "Our water bill is 40 a month.",
        "The water company raised it to 44.",
        "And it went up again, 47 now.",
    )
    assert "47" in _one_current_with_history(memory, "u1", 3)


def test_a_moved_date_never_lands_on_an_unrelated_dated_fact(memory: MemoHood) -> None:
    # "1 June" and "1 February" share a number, not a word; a past operation is no plan
    _say(
        memory,
        "I had knee surgery on 1 February.",
        "The grant report is due 1 May.",
        "They moved the grant report to 15 May.",
        "Slipped again, finally 1 June.",
    )
    facts = [f.statement for f in memory.list_facts("u1")]
    assert any("knee surgery" in f for f in facts)
    assert sum("grant" in f or "June" in f for f in facts) == 1
    assert any("1 June" in f for f in facts)


@pytest.mark.parametrize(
    ("turns", "new_value", "relation"),
    [
        (
            ("My daughter's violin lesson is on Wednesdays at 4.", "Violin moved to Fridays at 4."),
            "Fridays",
            "daughter",
        ),
        (
            (
                "My son Rafe swims on Sunday mornings.",
                "Rafe quit swimming, he rows on Sundays now.",
            ),
            "rows",
            "son",
        ),
    ],
)
def test_a_change_naming_nobody_continues_whoever_the_fact_was_about(
    memory: MemoHood, turns: tuple[str, str], new_value: str, relation: str
) -> None:
    _say(memory, *turns)
    current = _one_current_with_history(memory, "u1", 2)
    assert new_value in current
    [fact] = memory.list_facts("u1")
    assert fact.subject_kind == "person" and fact.about.startswith(relation)


def test_a_russian_move_said_as_a_noun_supersedes_the_home(keyword_memory: MemoHood) -> None:
    _say(keyword_memory, "Живу в Твери.", "Переехали в Калугу.", "Снова переезд, теперь мы в Туле.")
    assert "Туле" in _one_current_with_history(keyword_memory, "u1", 3)


@pytest.mark.parametrize(
    ("before", "after", "question", "old_name"),
    [
        (
            "My fiance is Benedikt.",
            "Benedikt and I broke up last month; I'm seeing Oriol now.",
            "Who am I dating these days?",
            "Benedikt",
        ),
        (
            "Моя девушка — Злата.",
            "Со Златой мы расстались, теперь я встречаюсь с Миленой.",
            "С кем я сейчас встречаюсь?",
            "Злата",
        ),
    ],
)
def test_a_breakup_naming_the_partner_supersedes_the_partners_fact(
    keyword_memory: MemoHood, before: str, after: str, question: str, old_name: str
) -> None:
    keyword_memory.capture(before, namespace="u1", at=MONDAY)
    result = keyword_memory.capture(after, namespace="u1", at=day(30))
    assert [f.statement for f in result.superseded] == [before]
    now = keyword_memory.recall(question, namespace="u1", use_gate=False, at=day(31))
    assert [f.statement for f in now.facts] == [after]  # the ex is no current partner
    assert [f.statement for f in now.history] == [before]
    then = keyword_memory.recall(
        question, namespace="u1", use_gate=False, at=day(31), as_of=day(10)
    )
    assert old_name in " ".join(f.statement for f in then.facts)


def test_a_russian_price_rise_in_other_words_supersedes(keyword_memory: MemoHood) -> None:
    keyword_memory.capture("Бассейн обходится мне в 3 100 рублей.", namespace="u1", at=MONDAY)
    result = keyword_memory.capture("Клуб поднял тариф до 3 400.", namespace="u1", at=day(40))
    assert [f.statement for f in result.superseded] == ["Бассейн обходится мне в 3 100 рублей."]


def test_a_provider_chain_ends_with_one_current_version(keyword_memory: MemoHood) -> None:
    said = [
        "Домашний интернет стоит 520 рублей.",
        "Провайдер поднял до 640.",
        "Опять подорожало, теперь 715.",
    ]
    for i, text in enumerate(said):
        keyword_memory.capture(text, namespace="u1", at=day(30 * i))
    current = [f.statement for f in keyword_memory.list_facts("u1")]
    assert current == [said[-1]]
    [fact] = keyword_memory.list_facts("u1")
    history = keyword_memory.history(fact.id, namespace="u1")
    assert [f.statement for f in history] == said  # oldest first, every version kept


def test_russian_cost_words_name_the_price() -> None:
    from memo_core.values import extract_values

    [cost] = extract_values("Каршеринг обходится в 900 рублей в неделю.")
    [raised] = extract_values("Поставщик поднял тариф до 1 050.", bare_numbers=True)
    assert cost.attribute == raised.attribute == "price"
