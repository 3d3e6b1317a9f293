"""The word-frequency lists: one loader, wordfreq's values, and what a first look-up pays."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from memo_core import frequencies
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase

needs_wordfreq = pytest.mark.skipif(
    importlib.util.find_spec("wordfreq") is None, reason="wordfreq (the local extra) is missing"
)

_ENGLISH = (
    "the harbour bakery opens at six and sells rye bread until noon while ferns grow in "
    "shade retry savebreaks memoize tidewater shall shell lease least goverment xqzv"
)
_RUSSIAN = "договор подписание срок уведомления аренда арендатор ёлка щщщ чтото кроме"


@needs_wordfreq
def test_a_plain_word_reads_the_value_wordfreq_gives() -> None:
    from wordfreq import zipf_frequency

    rng = random.Random(7)

    def noise(alphabet: str) -> list[str]:  # short ones are often words, long ones seldom
        return ["".join(rng.choices(alphabet, k=rng.randint(1, 7))) for _ in range(200)]

    english = [*_ENGLISH.split(), *noise("abcdefghijklmnopqrstuvwxyz")]
    russian = [*_RUSSIAN.split(), *noise("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")]
    for words, language in ((english, "en"), (russian, "ru")):
        for word in [*words, *(w.capitalize() for w in words), *(w.upper() for w in words)]:
            assert frequencies.word_frequency(word) == zipf_frequency(word, language), word
    # Not plain words: wordfreq itself reads them (apostrophes, digits, marks).
    for word in ("don't", "mp3", "naïve", "co-op"):
        assert frequencies.word_frequency(word) == zipf_frequency(word, "en"), word


_FIRST_LOOKUP = """
import json, sys
from memo_core import frequencies
value = frequencies.word_frequency("retry")
print(json.dumps({
    "value": value,
    "wordfreq_imported": "wordfreq" in sys.modules,
    "lists_read": frequencies._centibels.cache_info().currsize,
}))
"""


def _run(code: str, *args: str) -> dict[str, object]:
    root = Path(frequencies.__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@needs_wordfreq
def test_a_first_english_look_up_reads_one_list_and_imports_no_wordfreq() -> None:
    result = _run(_FIRST_LOOKUP)
    assert isinstance(result["value"], float) and result["value"] > 0
    assert result["wordfreq_imported"] is False  # ftfy, langcodes, its tokenizer: not needed
    assert result["lists_read"] == 1  # English only


_COLD_ASK = """
import json, sys
from memo_core.cli import main
code = main(["kb", "ask", "When does the harbour bakery open?", "--db", sys.argv[1], "--json"])
heavy = ("memo_core.memory", "memo_core.unified", "wordfreq")
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}))
"""


def test_a_cold_knowledge_base_question_imports_only_what_it_uses(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    with MemoBase(db, embedder=HashEmbedder(64)) as base:
        base.add_document("The harbour bakery opens at six and sells rye bread until noon.")
        base.add_document("Ferns grow best in shade, in soil that stays damp but never wet.")
    result = _run(_COLD_ASK, str(db))
    assert result["code"] == 0
    # MemoHood's capture models and patterns, and the word lists (this question names
    # no term a list must judge), stay out of a `memo kb ask` process.
    assert result["imported"] == []


def test_without_wordfreq_every_look_up_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(frequencies, "_package_dir", lambda: None)
    frequencies.word_frequency.cache_clear()
    try:
        assert not frequencies.dictionary_available()
        assert frequencies.word_frequency("harbour") is None
        assert frequencies.word_frequency("договор") is None
    finally:
        frequencies.word_frequency.cache_clear()
