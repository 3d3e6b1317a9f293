"""Words that carry meaning the answer engine must not lose (English and Russian).

Shared by the citation check (a quote must not stop right before one of them), the
faithfulness check (a claim must keep them) and ingest (instruction-like text):

* :data:`NEGATIONS` and :data:`CONDITIONS` (``unless``, ``provided that``, ``если не``...);
* :data:`MODALS` (must / may / shall / should / can ...);
* :data:`NUMBER_WORDS` (spelled-out numbers, English and Russian);
* :func:`is_dictionary_word`: is this spelling a real word of the language? A
  fuzzy match forgives a typo ("goverment") but not an edit that turns one real
  word into another ("shall" -> "shell"). Told apart with the ``wordfreq``
  library's frequency lists (its Zipf scale: 3.0 is a word seen once per million
  words), not a hand-made list, read through :mod:`memo_core.frequencies` (the
  one loader, shared with ingest).
"""

from __future__ import annotations

from memo_core.frequencies import dictionary_available, word_frequency

__all__ = [
    "COMMON_ZIPF",
    "CONDITIONS",
    "DICTIONARY_ZIPF",
    "MODALS",
    "NEGATIONS",
    "NUMBER_WORDS",
    "dictionary_available",
    "is_dictionary_word",
    "marker_at",
    "word_frequency",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that negate (compared after lower-casing; "n't" endings count as "not").
NEGATIONS: frozenset[str] = _words(
    "not no never none nobody nothing neither nor without cannot nowhere noone "
    "не нет ни никогда без никто ничто ничего нигде никуда никак нельзя"
)

#: Spelled-out numbers: protected like digits by the citation check, and counted like
#: digits by the faithfulness check ("two machines" is a number of machines).
NUMBER_WORDS: frozenset[str] = _words(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred thousand million billion trillion dozen half first second third fourth fifth
    sixth seventh eighth ninth tenth twice thrice once
    ноль один одна одно два две три четыре пять шесть семь восемь девять десять одиннадцать
    двенадцать двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто
    сто двести триста тысяча тысячи тысяч миллион миллиона миллионов миллиард первый второй
    третий половина"""
)

#: Openings of a condition or an exception, as word sequences (lower-cased).
CONDITIONS: tuple[tuple[str, ...], ...] = tuple(
    tuple(phrase.split())
    for phrase in (
        "unless",
        "except",
        "excepting",
        "excluding",
        "save for",
        "other than",
        "provided that",
        "provided",
        "providing that",
        "subject to",
        "only if",
        "if",
        "until",
        "but only",
        "but not",
        "and not",
        "or not",
        "если не",
        "если",
        "кроме",
        "за исключением",
        "при условии",
        "только если",
        "пока не",
        "разве что",
        "но не",
        "а не",
    )
)

#: Modal verbs: "may" and "must" are different obligations (Russian forms included).
MODALS: frozenset[str] = _words(
    "must may might shall should can could will would need ought "
    "должен должна должно должны обязан обязана обязаны может могут можно вправе нужно надо"
)

#: Zipf frequency from which a spelling counts as a real word. Chosen with
#: ``python bench/verifier.py``: random slips of long words seldom land on a word this
#: common (web misspellings such as "accross" do, at 2.0-3.0), and substitutions such
#: as "lease" -> "least" score well above it.
DICTIONARY_ZIPF = 2.0
#: From here a spelling is plainly a word (few misspellings are this common).
COMMON_ZIPF = 3.0


def is_dictionary_word(word: str) -> bool | None:
    """True when ``word`` is common enough to be a real word (``None``: no list installed)."""
    frequency = word_frequency(word)
    return None if frequency is None else frequency >= DICTIONARY_ZIPF


def marker_at(words: list[str], i: int) -> str | None:
    """The negation or condition that starts at ``words[i]`` (lower-cased words), if any."""
    if i >= len(words):
        return None
    word = words[i]
    if word in NEGATIONS or word.endswith("n't"):
        return word
    for phrase in CONDITIONS:
        if tuple(words[i : i + len(phrase)]) == phrase:
            return " ".join(phrase)
    return None
