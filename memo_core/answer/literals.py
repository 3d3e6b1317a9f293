"""The literals a question names verbatim, and whether a passage names them too.

The keyword index splits text into words and drops punctuation, so to it
``--no-restart`` is "no restart", ``!j`` and ``>>>`` are nothing, and "the async
while statement" is two words the base holds, just never together. A question
about such a thing is then answered with its real sibling (the ``-m`` option, the
``!r`` conversion, the ``async for`` statement), since every *word* of it matched.
A thing a question names is only answered by a passage that names it the same
way, so :func:`question_literals` takes these names out of the question as
written, and :func:`missing_literals` lists those a passage does not contain:

* ``code`` - a span in backticks or quotes (``"async while"``, «--dry-run»);
* ``flag`` - a command-line option (``-x``, ``--no-restart``, ``--level=3``);
* ``symbol`` - an operator or a token mixing punctuation with letters (``>>>``,
  ``?=``, ``!j``, ``\\q``, ``%d``, ``@cached``, ``$HOME``);
* ``call`` - a name written as a call or a keyword argument (``frozendict()``,
  ``doc=``);
* ``setting`` - a name given a value (``compact=True``, ``flag='a'``,
  ``--level=3``): the passage must give the name that value, written so
  (``level=3``) or with the value near the name ("if *level* is 3", "level:
  1-9" for a number the range holds, :data:`SETTING_REACH`); a name the base
  documents with other values does not answer a question about a value it
  never takes;
* the module ``python -m NAME`` runs, as a ``code`` literal: the program a
  question asks about, whose help the answer must come from;
* ``name`` - the words between a determiner and a kind of thing a reference
  documents ("the async while *statement*", "the retry *clause*", "its
  savebreaks *command*") when they are a term rather than common English (by the
  ``wordfreq`` lists: "the last *element*" describes, it does not name); in a
  Russian question, a run of Latin-script words (Russian technical text names
  code in Latin letters: "оператор async while").

Letters-and-words literals (``name``, a ``code`` span of plain words) match by
stemmed words standing together, case aside, so "soft keyword" is in "soft
keywords" and ``do-while`` is in "do while"; the others match character for
character at token edges, so ``-m`` is not in ``-mx`` and ``>>`` not in ``>>=``.
Numbers, versions, capitalised names and ``snake_case`` identifiers are
:mod:`~memo_core.answer.salience`'s, which reports the missing literals with its
own terms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from memo_core.answer.lexicon import COMMON_ZIPF, word_frequency
from memo_core.answer.numbers import StatedNumbers
from memo_core.search.text import detect_language, stem_token, tokenize

__all__ = ["Literal", "LiteralKind", "missing_literals", "question_literals"]

LiteralKind = TypingLiteral["code", "flag", "symbol", "call", "name", "setting"]

#: The kinds of thing a technical reference documents by name. A phrase such as
#: "the X statement" names X, and X must be in the passage that answers.
_KIND_NOUNS_TEXT = """
    statement statements clause clauses keyword keywords operator operators option
    options flag flags switch switches command commands subcommand subcommands method
    methods function functions builtin builtins attribute attributes parameter
    parameters argument arguments field fields property properties directive
    directives setting settings variable variables decorator decorators prefix
    prefixes suffix suffixes loop loops literal literals escape escapes
    conversion conversions specifier specifiers exception exceptions module modules
    endpoint endpoints header headers tag tags element elements extra extras
    """
KIND_NOUNS: frozenset[str] = frozenset(_KIND_NOUNS_TEXT.split())

#: Words that end a name run when walking back from its kind noun: what comes
#: before them is the question's, not the name's.
_DETERMINERS_TEXT = (
    "the a an this that these those its their his her my your our whose any each every some"
)
DETERMINERS: frozenset[str] = frozenset(_DETERMINERS_TEXT.split())

#: English function words that join two phrases ("the text *of* exception
#: messages", "which method *does* the loader call"): a run of several words with
#: one of them is two phrases, not one name. A run of one such word is still a
#: name ("the *with* statement").
_JOINING_WORDS_TEXT = """
    of to in on at by with from into onto about than as between through over under
    after before during against without within per via is are was were be been being
    do does did has have had can could will would should may might must shall and or
    but nor not
    """
JOINING_WORDS: frozenset[str] = frozenset(_JOINING_WORDS_TEXT.split())

#: A name run is this many words at most ("the async while statement").
MAX_NAME_WORDS = 2

_OPERATOR_CHARS = frozenset("!#$%&*+-./:<=>?@\\^|~")
# Punctuation of prose: a token of only these is no literal ("-", "--", "...");
# "??" or "!!" inside a question is (the question's own mark was taken off).
_PROSE_ONLY = re.compile(r"[-\u2010-\u2015.,;'\"()\[\]«»“”‘’…]+")
# A quoted or backticked span, opened and closed at token edges (not "don't").
# Quotes hug what they quote: ' t have ' is two apostrophes of split words, and
# \ "term \ " an escaped quote mangled by the text's source, not a literal.
_QUOTED = re.compile(
    r"`([^`\n]{1,60})`"
    r"|(?<![\w\\])\"([^\"\s\\](?:[^\"\n\\]{0,58}[^\"\s\\])?)\"(?!\w)"
    r"|(?<![\w\\])'([^'\s\\](?:[^'\n\\]{0,58}[^'\s\\])?)'(?!\w)"
    r"|“(\S(?:[^”\n]{0,58}\S)?)”|«(\S(?:[^»\n]{0,58}\S)?)»|‘(\S(?:[^’\n]{0,58}\S)?)’"
)
_FLAG = re.compile(r"--?[^\W\d_][\w-]*")
_IDENT = re.compile(r"[^\W\d]\w*")
_WORD_CHAR = re.compile(r"\w")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")
_OPENERS = "([{\"'«“‘"
_CLOSERS = ")]}\"'»”’.,;:?!"
_SENTENCE_END = "\"'»”’.,;:?!"
_POSSESSIVE = re.compile(r"['’]s$")
_INTERPRETER = re.compile(r"`?(?:python(?:\d(?:\.\d+)?)?|py)", re.IGNORECASE)
_MODULE = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
# A name given a value: "compact=True", "flag='a'", "--level=3", "dataclass(validate=True)";
# not a comparison ("x == 1", "a <= b").
_SETTING = re.compile(
    r"(?<![\w.=!<>-])(--?[A-Za-z][\w-]*|[A-Za-z_]\w*)(?:=|\s=\s)(?!=)"
    r"(?:'([^'\s]{1,30})'|\"([^\"\s]{1,30})\"|([\w.+-]{1,30}))(?![\w=])"
)
#: A setting's value counts as given to its name within this many characters of it
#: ("If *level* is 3 ..."): about a clause.
SETTING_REACH = 80


@dataclass(frozen=True)
class Literal:
    """A name the question writes verbatim, and how it must stand in a passage."""

    text: str
    kind: LiteralKind

    def found_in(self, text: str) -> bool:
        """Whether ``text`` names this literal (see the module doc for how)."""
        if self.kind == "setting":
            return _sets(self.text, text)
        if _is_wordy(self):
            return _words_together(self.text, text)
        return _verbatim(self, text)


def question_literals(question: str) -> list[Literal]:
    """The literals ``question`` names, in order of appearance, each once."""
    found: list[tuple[int, Literal]] = []
    masked = list(question)
    for m in _QUOTED.finditer(question):
        inner = next(g for g in m.groups() if g is not None).strip()
        if inner and not _PROSE_ONLY.fullmatch(inner):
            found.append((m.start(), Literal(inner, "code")))
        masked[m.start() : m.end()] = " " * (m.end() - m.start())
    rest = "".join(masked)
    tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", rest)]
    for i, (start, token) in enumerate(tokens):
        literal = _token_literal(token, last=i == len(tokens) - 1)
        if literal is not None:
            found.append((start, literal))
        module = _run_module(tokens, i)
        if module is not None:
            found.append((tokens[i + 1][0], module))
    found += _name_runs(rest, tokens)
    found += [(m.start(), Literal(m.group(), "setting")) for m in _SETTING.finditer(question)]
    out: dict[tuple[str, str], Literal] = {}
    for _, literal in sorted(found, key=lambda p: p[0]):
        out.setdefault((literal.kind, literal.text.lower()), literal)
    return list(out.values())


def missing_literals(question: str, evidence: Iterable[str]) -> list[str]:
    """The :func:`question_literals` of ``question`` that no text of ``evidence`` names."""
    literals = question_literals(question)
    if not literals:
        return []
    text = "\n".join(evidence)
    return [lit.text for lit in literals if not lit.found_in(text)]


def _run_module(tokens: list[tuple[int, str]], i: int) -> Literal | None:
    """The module ``python -m NAME`` runs, when ``tokens[i]`` is that ``-m``: the
    program the question asks about, which its answer must name as a flag's must."""
    if tokens[i][1] != "-m" or i == 0 or i + 1 >= len(tokens):
        return None
    if not _INTERPRETER.fullmatch(tokens[i - 1][1]):
        return None
    name = tokens[i + 1][1].rstrip(_SENTENCE_END)
    return Literal(name, "code") if _MODULE.fullmatch(name) else None


def _token_literal(token: str, *, last: bool) -> Literal | None:
    """The literal one whitespace-separated token of a question is, if any."""
    if not _WORD_CHAR.search(token):
        if last and len(token) > 1 and token[-1] in "?.!":
            token = token[:-1]  # the question's own mark: "differ from ==?"
        if len(token) > 3 and token.endswith("..."):
            token = token[:-3]  # a series left open: "1 + 1/2 +..."
        # One character alone is prose as often as an operator ("1000 + years",
        # "Harvard / Radcliffe", a stray "\\"), and a reference shows it anyway.
        if len(token) < 2 or _PROSE_ONLY.fullmatch(token):
            return None
        if not all(c in _OPERATOR_CHARS for c in token):
            return None
        return Literal(token, "symbol")
    core = _POSSESSIVE.sub("", token.lstrip(_OPENERS).rstrip(_SENTENCE_END))
    if not core:
        return None
    if not core.endswith("()"):
        core = core.rstrip(_CLOSERS)
    if _FLAG.fullmatch(core.split("=", 1)[0]):
        return Literal(core.split("=", 1)[0], "flag")
    if core.endswith("()") and _IDENT.fullmatch(core[:-2]):
        return Literal(core[:-2], "call")
    if core.endswith("=") and _IDENT.fullmatch(core[:-1]):
        return Literal(core[:-1], "call")
    if core[0] in _OPERATOR_CHARS and core[0] not in "-." and _WORD_CHAR.search(core):
        # Punctuation leading letters: "!j", "\q", "%d", "@cached", "$HOME".
        return Literal(core, "symbol")
    return None


def _name_runs(text: str, tokens: list[tuple[int, str]]) -> list[tuple[int, Literal]]:
    """The words between a determiner and a kind noun; in Russian, Latin-script runs."""
    if detect_language(text) == "russian":
        return _latin_runs(tokens)
    words = [(start, _plain_word(token)) for start, token in tokens]

    def is_kind(j: int) -> bool:
        word = words[j][1]
        return word is not None and word.lower() in KIND_NOUNS

    out = []
    for i in range(len(words)):
        # Of two kind nouns in a row ("option flag") the first ends the name.
        if not is_kind(i) or (i > 0 and is_kind(i - 1)):
            continue
        run: list[str] = []
        for j in range(i - 1, -1, -1):
            previous = words[j][1]
            if previous is None or len(run) > MAX_NAME_WORDS:
                break
            if previous.lower() in DETERMINERS:
                joined = len(run) > 1 and any(w.lower() in JOINING_WORDS for w in run)
                name = _name(run[::-1]) if run and len(run) <= MAX_NAME_WORDS else None
                if name is not None and not joined:
                    out.append((words[j + 1][0], name))
                break
            run.append(previous)
    return out


def _name(words: list[str]) -> Literal | None:
    """The name a run of words stands for, if it is one.

    All of them when the first is a term of its own ("async while", "doctest
    FLAKY"), else only the last, which the others describe in common words ("the
    same try statement", "the old cmp function"); and that last word only when it
    is a term too: "the last element", "a pending exception", "its transport
    method" describe a thing, they do not name it. Without a word-frequency list
    nothing tells the two apart, and no run is a name.
    """
    if len(words) > 1 and _is_term(words[0]):
        return Literal(" ".join(words), "name")
    return Literal(words[-1], "name") if _is_term(words[-1]) else None


def _is_term(word: str) -> bool:
    """Whether ``word`` is rarer than common language: a name, not a description
    (a hyphenated compound counts as one word: "do-while", "reverse-step")."""
    frequency = word_frequency(word.replace("-", ""))
    return frequency is not None and frequency < COMMON_ZIPF


def _plain_word(token: str) -> str | None:
    """``token`` as a word of letters (and inner hyphens), or None if it is anything else.

    A possessive ends a name run ("the switch statement's default clause"), so it is
    not a plain word here.
    """
    core = token.rstrip(",;:?!.")
    if re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)*", core):
        return core
    return None


def _latin_runs(tokens: list[tuple[int, str]]) -> list[tuple[int, Literal]]:
    out = []
    run: list[tuple[int, str]] = []
    for start, token in [*tokens, (-1, "")]:
        core = token.strip(_OPENERS + _CLOSERS)
        if start >= 0 and _LATIN_WORD.fullmatch(core):
            run.append((start, core))
            continue
        if run:  # Russian text writes code in Latin letters, common words or not
            out.append((run[0][0], Literal(" ".join(w for _, w in run), "name")))
        run = []
    return out


def _is_wordy(literal: Literal) -> bool:
    """Whether ``literal`` is made of words only (matched by stemmed words together)."""
    if literal.kind == "name":
        return True
    return (
        literal.kind == "code"
        and re.fullmatch(r"[^\W_]+(?:[\s-]+[^\W_]+)*", literal.text) is not None
    )


def _words_together(phrase: str, text: str) -> bool:
    """Whether the stemmed words of ``phrase`` stand together in ``text`` (case aside);
    a phrase of several words also matches them written as one ("builtin" for
    "built-in"), alone or as the head of an identifier that ends in a kind noun
    ("SMTPResponseException" for "the SMTP response exception")."""
    language = detect_language(text)
    words = tokenize(phrase)
    want = [stem_token(t, language) for t in words]
    if not want:
        return True
    tokens = tokenize(text)
    have = [stem_token(t, language) for t in tokens]
    n = len(want)
    if any(have[i : i + n] == want for i in range(len(have) - n + 1)):
        return True
    if n == 1:
        return False
    joined = "".join(words)
    return stem_token(joined, language) in have or any(
        t.startswith(joined) and t[len(joined) :] in KIND_NOUNS for t in tokens
    )


def _verbatim(literal: Literal, text: str) -> bool:
    """Whether ``literal`` stands in ``text`` character for character, not as a piece
    of a longer word or operator (``-m`` is not in ``-mx``, ``>>`` not in ``>>=``).

    Punctuation leading letters may go on with letters (``\\x`` is written ``\\xhh``
    in a table of escapes), an option may not (``-m`` is not ``-mx``).
    """
    written = literal.text
    pattern = re.escape(" ".join(written.split())).replace(r"\ ", r"\s+")
    if literal.kind == "flag":
        before = r"(?<![\w-])"  # an option starts a word: "-a" is not in "-a-a"
    elif _WORD_CHAR.match(written[0]):
        before = r"(?<![\w])"
    else:
        before = _NOT_OPERATOR_BEFORE  # an operator may touch its operands: "x>>y"
    if not _WORD_CHAR.match(written[-1]):
        after = _NOT_OPERATOR_AFTER
    elif literal.kind == "symbol" and not _WORD_CHAR.match(written[0]):
        after = ""
    else:
        after = r"(?![\w-])" if literal.kind == "flag" else r"(?![\w])"
    return re.search(before + pattern + after, text) is not None


_OPERATOR_CLASS = "[" + re.escape("".join(sorted(_OPERATOR_CHARS))) + "]"
_NOT_OPERATOR_BEFORE = f"(?<!{_OPERATOR_CLASS})"
_NOT_OPERATOR_AFTER = f"(?!{_OPERATOR_CLASS})"


def _sets(setting: str, text: str) -> bool:
    """Whether ``text`` gives the name of ``setting`` ("level=3") its value: written so
    (spaces and quotes aside), or the value near the name (:data:`SETTING_REACH`), a
    number also as a range holding it ("level: 1-9")."""
    m = _SETTING.fullmatch(setting)
    if m is None:
        return True
    name = m.group(1)
    value = next(g for g in m.groups()[1:] if g is not None)
    edge = r"(?<![\w-])" if name.startswith("-") else r"(?<!\w)"
    quoted = rf"['\"]?{re.escape(value)}['\"]?(?![\w])"
    if re.search(rf"{edge}{re.escape(name)}\s*=\s*{quoted}", text, re.IGNORECASE):
        return True
    plain = name.lstrip("-")
    named = re.compile(rf"(?<![\w-]){re.escape(plain)}(?![\w])", re.IGNORECASE)
    given = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\w)", re.IGNORECASE)
    language = detect_language(text)
    for hit in named.finditer(text):
        near = text[max(0, hit.start() - SETTING_REACH) : hit.end() + SETTING_REACH]
        if given.search(near):
            return True
        if value.isdigit() and StatedNumbers.read(near, language).states(value):
            return True
    return False
