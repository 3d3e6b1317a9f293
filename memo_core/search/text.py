"""Tokens, script detection, stemming and the one FTS5 quoting function.

User text reaches FTS5 *only* through :func:`fts_match_expression`, which keeps
alphanumeric sub-tokens and wraps each in double quotes, so no input (quotes,
``*``, ``NEAR``, ``-``, ``:``, NUL, 100 kB of noise) can form FTS5 syntax.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from memo_core.errors import InvalidInputError

__all__ = [
    "DEFAULT_LANGUAGES",
    "STOPWORDS",
    "WordSelector",
    "detect_language",
    "fts_match_expression",
    "keyword_analyzer",
    "query_words",
    "stem_text",
    "stem_token",
    "stem_words",
    "tokenize",
]

#: Stemmers used for the stemmed column, chosen per text by script.
DEFAULT_LANGUAGES: tuple[str, ...] = ("english", "russian")

# Sub-tokens as the FTS5 unicode61 tokenizer sees them: runs of letters/digits.
_SUBTOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")

# English and Russian function words, plus the filler words of disfluent speech
# ("oh", "sorry", "mean", "rather", "actually") that carry no search meaning, with the
# other forms of "mean" and "make" ("What is meant by X?" asks about X).
_STOPWORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves s t don now also may might must shall us one oh sorry mean rather
    actually make made makes means meant
    и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
    ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни
    быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где
    есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж
    тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы
    нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над
    больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою
    этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())

#: Chooses query words: ``(raw sub-tokens per word, stemmed sub-tokens per word)``
#: -> positions of the words to keep.
WordSelector = Callable[[list[list[str]], list[list[str]]], Sequence[int]]


#: The letters lower-cased otherwise in a whole text than in a token alone: a final
#: sigma (the rule reads the neighbours) and the dotted capital I ("i" and a
#: combining dot, which is no word character). Every other letter lower-cases to one
#: letter alike, so a text without these splits alike lower-cased first.
_LOWER_IN_CONTEXT = ("Σ", "İ")


#: ASCII bytes to themselves lower-cased when a letter or digit (the ASCII word
#: characters but ``_``), to a space otherwise: an ASCII text's tokens are the words
#: of its translation, split by ``bytes.translate`` and ``str.split`` in C, twice as
#: fast as the regular expression (which finds the very same runs).
_ASCII_TOKENS = bytes(
    ord(chr(c).lower()) if chr(c).isalnum() else ord(" ") for c in range(128)
) + bytes(range(128, 256))


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric sub-tokens, as FTS5's unicode61 splits them."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_TOKENS).decode("ascii").split()
    if not any(letter in text for letter in _LOWER_IN_CONTEXT):
        # Lower-cased whole, its ASCII separators turned to spaces by the table at C
        # speed: only the words holding another character go through the pattern
        # (most of a Latin text's words are ASCII even when a few are not).
        words = (
            text.lower()
            .encode("utf-8", "surrogatepass")
            .translate(_ASCII_TOKENS)
            .decode("utf-8", "surrogatepass")
            .split()
        )
        out: list[str] = []
        for word in words:
            if word.isascii():
                out.append(word)
            else:
                out += _SUBTOKEN.findall(word)
        return out
    # Each token on its own: lower-casing a whole text applies the final-sigma rule
    # across punctuation ("ΟΔΟΣ.Χ"), which would change a token.
    return [t.lower() for t in _SUBTOKEN.findall(text)]


def detect_language(text: str, languages: Sequence[str] = DEFAULT_LANGUAGES) -> str:
    """``"russian"`` when Cyrillic letters dominate (and Russian is enabled), else the first."""
    if "russian" in languages and _CYRILLIC.search(text):  # counted only when there is one
        cyr = len(_CYRILLIC.findall(text))
        lat = len(_LATIN.findall(text))
        if cyr > lat:
            return "russian"
    return languages[0] if languages else "english"


@functools.lru_cache(maxsize=8)
def _stemmer(language: str) -> object:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer(language)


@functools.lru_cache(maxsize=65536)
def stem_token(token: str, language: str) -> str:
    """Stem one lower-cased token; Cyrillic tokens always use the Russian stemmer."""
    if language != "russian" and _CYRILLIC.search(token):
        language = "russian"
    elif language == "russian" and not _CYRILLIC.search(token):
        language = "english"
    stemmer = _stemmer(language)
    return str(stemmer.stemWord(token))  # type: ignore[attr-defined]


#: Stems already computed, per language of the text (what :func:`stem_token` was
#: asked for): a dictionary look-up per token on the write path instead of a call.
_STEMS: dict[str, dict[str, str]] = {}
_STEMS_KEPT = 1 << 16


def stem_words(tokens: Sequence[str], language: str) -> list[str]:
    """``[stem_token(t, language) for t in tokens]`` for tokens of :func:`tokenize`."""
    known = _STEMS.get(language)
    if known is None or len(known) > _STEMS_KEPT:  # bounded: start afresh when full
        known = _STEMS[language] = {}
    out = list(map(known.get, tokens))
    if None in out:
        for i, (token, stem) in enumerate(zip(tokens, out, strict=True)):
            if stem is None:
                out[i] = known[token] = stem_token(token, language)
    return out  # type: ignore[return-value]  # every None was replaced


def stem_text(text: str, language: str, tokens: Sequence[str] | None = None) -> str:
    """The text of the stemmed FTS column: stemmed tokens separated by spaces.

    ``tokens``: ``tokenize(text)``, when the caller has it already.
    """
    return " ".join(stem_words(tokenize(text) if tokens is None else tokens, language))


#: Bumped whenever :func:`tokenize`, :func:`detect_language` or :func:`stem_text`
#: change what they give for some text.
_ANALYZER_VERSION = 1


@functools.cache
def keyword_analyzer(languages: Sequence[str]) -> str:
    """What makes the keyword index's rows of a text, as a string: this code's
    version, the languages, PyStemmer's version and Python's Unicode database (the
    letters ``tokenize`` finds and how they lower-case). Two processes with the same
    analyzer index every text alike (``kb/sqlite_keywords.py`` relies on it)."""
    try:
        stemmer = importlib.metadata.version("PyStemmer")
    except importlib.metadata.PackageNotFoundError:  # installed some other way
        stemmer = "unknown"
    return json.dumps(
        {
            "version": _ANALYZER_VERSION,
            "languages": list(languages),
            "stemmer": stemmer,
            "unicode": unicodedata.unidata_version,
        },
        sort_keys=True,
    )


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


#: A dot between two name characters, as in an attribute access (not a decimal "3.12").
_DOTTED_NAME = re.compile(r"[^\W\d]\.[^\W\d]")


def _query_terms(query: str, drop_stopwords: bool) -> list[list[str]]:
    """Whitespace words of the query, each as its list of sub-tokens (a phrase); a dotted
    name also as each of its parts alone."""
    words: list[list[str]] = []
    for word in query.split():
        tokens = tokenize(word)
        if tokens:
            words.append(tokens)
        # A dotted name ("Path.owner", "os.path.join") is also searched by its parts: API
        # references list a member under its class ("owner(self)"), not as the phrase.
        if len(tokens) > 1 and _DOTTED_NAME.search(word):
            words += [[t] for t in tokens]
    if drop_stopwords:
        kept = [w for w in words if not (len(w) == 1 and w[0] in STOPWORDS)]
        if kept:
            words = kept
    unique: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()  # a set: a list scan was quadratic on huge queries
    for w in words:
        if tuple(w) not in seen:
            seen.add(tuple(w))
            unique.append(w)
    return unique


def query_words(
    query: str,
    *,
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    drop_stopwords: bool = True,
    max_terms: int = 64,
    keep: WordSelector | None = None,
) -> tuple[list[list[str]], list[list[str]]]:
    """The words a keyword query searches: ``(raw sub-tokens, stemmed sub-tokens)`` per word.

    The one selection both engines use (FTS5 here, ``tsquery`` in ``pg_text.py``), so
    a query asks SQLite and PostgreSQL for the same words.
    """
    words = _query_terms(query, drop_stopwords)[:max_terms]
    if not words:
        return [], []
    lang = detect_language(query, languages)
    stems = [[stem_token(t, lang) for t in w] for w in words]
    if keep is not None:
        chosen = sorted(set(keep(words, stems)))
        if chosen:
            words = [words[i] for i in chosen]
            stems = [stems[i] for i in chosen]
    return words, stems


def fts_match_expression(
    query: str,
    *,
    raw_column: str = "raw",
    stemmed_column: str | None = "stemmed",
    languages: Sequence[str] = DEFAULT_LANGUAGES,
    drop_stopwords: bool = True,
    max_terms: int = 64,
    keep: WordSelector | None = None,
    prefixes: Sequence[str] = ("",),
) -> str | None:
    """A safe FTS5 MATCH expression ORing the query's terms, or None if it has none.

    Each word becomes a quoted term (a quoted phrase when punctuation splits it, so
    ``A-4471`` matches the adjacent tokens ``a 4471``), searched raw in
    ``raw_column`` and stemmed in ``stemmed_column``. Stopwords are left out unless
    the query has nothing else. ``keep``, when given, sees each word's raw and
    stemmed sub-tokens and returns the positions of the words to query (the store
    uses it to leave out the commonest words of an expensive query, see
    ``search/keyword.py``); the quoting stays here. ``prefixes``: each term is
    searched once per prefix, glued to every sub-token (an index whose tokens carry
    their namespace's code, ``memory/keyword_scope.py``); alphanumeric prefixes only.
    """
    if any(not p.isalnum() for p in prefixes if p):
        raise InvalidInputError("FTS term prefixes must be alphanumeric")
    words, stems = query_words(
        query, languages=languages, drop_stopwords=drop_stopwords, max_terms=max_terms, keep=keep
    )
    if not words:
        return None
    raw_terms = [_quote(" ".join(p + t for t in w)) for p in prefixes for w in words]
    parts = [f"{raw_column} : ({' OR '.join(raw_terms)})"]
    if stemmed_column:
        stemmed = _dedupe(_quote(" ".join(p + t for t in s)) for p in prefixes for s in stems)
        parts.append(f"{stemmed_column} : ({' OR '.join(stemmed)})")
    return " OR ".join(parts)


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))
