"""Flags set on a chunk at ingest, stored with it (``chunks.flags``).

``instructions``: the text addresses an AI assistant with instructions of its own
("ignore previous instructions", "you are now", "system note", "tell the user to",
"email your private key to", and their Russian forms). A document may legitimately
talk *about* prompt injection, so the flag does not hide the chunk from search: it
keeps it from ever being quoted as an extractive answer, fences it in a marked
quarantine when an LLM reads it, and lets the engine drop a claim that relays it.

Flags are stored as one comma-separated text column (``""`` for none), so a new
kind of flag needs no migration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memo_core.search.text import tokenize

if TYPE_CHECKING:
    from memo_core.storage.base import SQLDatabase

__all__ = [
    "INSTRUCTIONS",
    "backfill_chunk_flags",
    "chunk_flags",
    "decode_flags",
    "encode_flags",
    "instruction_spans",
]

#: The flag of a chunk holding instructions addressed to an AI assistant.
INSTRUCTIONS = "instructions"

_EN = [
    # "ignore / disregard / forget (all) (the) previous instructions"
    r"\b(?:ignore|disregard|forget|override|bypass)\b(?:\s+\w+){0,3}?\s+"
    r"(?:previous|prior|above|earlier|preceding|all|any|your|system|original)\s+"
    r"(?:instructions?|prompts?|rules|directions|messages|guidelines|context)\b",
    r"\byou\s+are\s+now\b",
    r"\bfrom\s+now\s+on,?\s+you\b",
    r"\b(?:pretend|act)\s+(?:to\s+be|as\s+if|as)\s+(?:an?\s+)?(?:ai|assistant|different|unrestricted)",
    r"\bsystem\s+(?:note|prompt|message|instruction|override)s?\s*[:\-]",
    r"[\[<]\s*/?\s*(?:system|assistant|inst)\s*[\]>]",
    r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?"
    r"(?:ai|assistant|llm|language\s+model|chatbot|model)s?\b",
    r"\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|chatbot)\b",
    r"\b(?:tell|inform|advise|instruct|convince)\s+the\s+(?:user|reader|human)\s+"
    r"(?:to|that)\b",
    # "email your private key to ...": the reader's own secret, sent somewhere
    r"\b(?:send|e-?mail|forward|paste|upload|reveal)\b[^.!?\n]{0,40}?\b(?:your|the\s+user'?s)\s+"
    r"(?:\w+\s+)?(?:private\s+keys?|passwords?|credentials|api\s+keys?|secret\s+keys?|"
    r"access\s+tokens?|seed\s+phrases?|ssh\s+keys?|one-time\s+codes?)\b",
]
_RU = [
    r"(?:игнорируй|игнорируйте|забудь|забудьте|не\s+обращай(?:те)?\s+внимания\s+на)"
    r"(?:\s+\w+){0,2}?\s+(?:все\s+)?(?:предыдущие|прежние|вышеуказанные|прошлые|свои|системные)\s+"
    r"(?:инструкции|указания|правила|сообщения)",
    r"\b(?:теперь\s+ты|ты\s+теперь|отныне\s+ты)\b",
    r"\bсистемн(?:ое|ая|ые)\s+(?:сообщение|примечание|заметка|указание|инструкция)\s*[:\-]",
    r"\b(?:скажи|скажите|сообщи|сообщите|передай|передайте|убеди|убедите)\s+пользователю\b",
    r"\bесли\s+ты\s+(?:ии|ассистент|бот|языковая\s+модель|нейросеть)\b",
    r"\b(?:отправь|отправьте|пришли|пришлите|перешли|перешлите|сообщи|сообщите)\s+"
    r"(?:\w+\s+){0,2}?(?:свой\s+|свои\s+|ваш\s+|ваши\s+)?(?:парол\w*|ключ\w*|"
    r"учётные\s+данные|учетные\s+данные|токен\w*|код\w*\s+из\s+смс)",
]
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in _EN + _RU), re.IGNORECASE)
_CYRILLIC_LETTER = re.compile("[а-яё]", re.IGNORECASE)
_RU_RULE = re.compile("|".join(f"(?:{p})" for p in _RU), re.IGNORECASE)
# Letters that re.IGNORECASE equates with an ASCII letter although their lower case
# is another: "ſ" (s), "ı" (i), and "İ", whose lower case is "i" and a combining dot.
_IGNORECASE_ASCII = str.maketrans({"ſ": "s", "ı": "i", "\u0307": None})
# The letters whose lower case holds one of those (İ: "i" and a dot): a text with
# none of them needs no folding.
_IGNORECASE_LETTERS = ("ſ", "ı", "\u0307", "İ")
# Each English pattern needs some of a few words, whole (one of each set, in the
# order of _EN; "[" and "<" stand for the bracketed role tag): a chunk is searched
# only with the patterns whose words it holds, as one alternation over a few hundred
# positions cost 0.1 to 0.2 ms per chunk, a fifth of storing one with a given vector.
_SECRETS = {"private", "password", "passwords", "credentials", "api", "secret", "access"}
_EN_WORDS: tuple[tuple[set[str], ...], ...] = (
    (
        {"ignore", "disregard", "forget", "override", "bypass"},
        {"instruction", "instructions", "prompt", "prompts", "rules", "directions"}
        | {"messages", "guidelines", "context"},
    ),
    ({"you"}, {"are"}, {"now"}),
    ({"from"}, {"now"}, {"on"}, {"you"}),
    ({"pretend", "act"}, {"ai", "assistant", "different", "unrestricted"}),
    (
        {"system"},
        {"note", "prompt", "message", "instruction", "override"}
        | {"notes", "prompts", "messages", "instructions", "overrides"},
    ),
    ({"[", "<"}, {"system", "assistant", "inst"}),
    (
        {"note", "message", "instruction", "instructions"},
        {"to", "for"},
        {"ai", "assistant", "llm", "language", "chatbot", "model"}
        | {"ais", "assistants", "llms", "chatbots", "models"},
    ),
    ({"if"}, {"you"}, {"are"}, {"ai", "llm", "language", "assistant", "chatbot"}),
    (
        {"tell", "inform", "advise", "instruct", "convince"},
        {"the"},
        {"user", "reader", "human"},
        {"to", "that"},
    ),
    (
        {"send", "email", "mail", "forward", "paste", "upload", "reveal"},
        {"your", "user", "users"},
        _SECRETS | {"seed", "ssh", "one"},
    ),
)
_EN_GATED = tuple(
    (tuple(frozenset(w) for w in words), re.compile(pattern, re.IGNORECASE))
    for words, pattern in zip(_EN_WORDS, _EN, strict=True)
)


#: Every word some gate asks for: a text's other words cannot open one.
_GATE_WORDS = frozenset().union(*(need for gate, _ in _EN_GATED for need in gate))


def instruction_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that address an AI assistant with an instruction."""
    return [m.span() for m in _INSTRUCTION.finditer(text)]


def chunk_flags(text: str, tokens: Sequence[str] | None = None) -> tuple[str, ...]:
    """The ingest-time flags of one chunk's text (``tokens``: ``tokenize(text)``, when
    the caller has it).

    An English pattern runs only when the text holds one of each of its gate's words
    (:func:`_gate_words`); the Russian ones only on a text with a Cyrillic letter.
    """
    words = _gate_words(text, tokenize(text) if tokens is None else tokens)
    for gate, rule in _EN_GATED:  # loops, not any()/all(): no generator per gate
        for need in gate:
            if need.isdisjoint(words):
                break
        else:
            if rule.search(text):
                return (INSTRUCTIONS,)
    if not text.isascii() and _CYRILLIC_LETTER.search(text) and _RU_RULE.search(text):
        return (INSTRUCTIONS,)
    return ()


def _gate_words(text: str, tokens: Sequence[str]) -> frozenset[str]:
    """The words the gates look for: the text's tokens that some gate asks for (a
    handful, not a set of all ~90), and "[" or "<" when it has one.

    A pattern matches a word only between non-word characters, where ``tokenize``
    also cuts, so the matched word is a whole token; lower-cased, it is the
    pattern's word, but for the few letters IGNORECASE also takes for an ASCII one
    (long s, dotless i, the dotted capital I that lower-cases to "i" and a dot):
    those are folded here, so a gate never skips a text its pattern matches.
    """
    if text.isascii() or not any(letter in text for letter in _IGNORECASE_LETTERS):
        words = _GATE_WORDS.intersection(tokens)
    else:
        words = _GATE_WORDS.intersection(t.translate(_IGNORECASE_ASCII) for t in tokens)
    marks = [mark for mark in "[<" if mark in text]
    return words.union(marks) if marks else words


def encode_flags(flags: tuple[str, ...] | list[str]) -> str:
    return ",".join(sorted(set(flags)))


def decode_flags(value: str | None) -> tuple[str, ...]:
    return tuple(f for f in (value or "").split(",") if f)


def backfill_chunk_flags(db: SQLDatabase) -> None:
    """Set the flags of every stored chunk (the ``add_chunk_flags`` migrations run it)."""
    last = 0
    while True:
        rows = db.query(
            "SELECT rowid, text FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT 1000", [last]
        )
        if not rows:
            return
        for rowid, text in rows:
            flags = encode_flags(chunk_flags(text))
            if flags:
                db.execute("UPDATE chunks SET flags = ? WHERE rowid = ?", [flags, rowid])
        last = int(rows[-1][0])
