"""The citation check: is this quote really in this source, and where?

Three stages, the first that succeeds wins:

1. **exact** - the stripped quote is a substring of the source, on word boundaries;
2. **normalized** - the same after :func:`~memo_core.answer.normalize.normalize_text`
   (case, whitespace, quote marks, dashes, soft hyphens, NFKC), mapped back to
   the original characters;
3. **fuzzy** - for OCR and transcript noise: :func:`rapidfuzz.fuzz.partial_ratio_alignment`
   locates the best window, then a word-by-word alignment decides. Fuzzy never
   forgives a *meaning*: the window must hold exactly the same numbers (digits,
   dates, decimals, number words), the same negations and the same capitalised
   names as the quote, in the same order; a word may differ only by a small
   spelling slip after its first letter, of a shape OCR or typing makes (one
   dropped, doubled, swapped, look-alike or keyboard-neighbour letter, two in long
   words: :func:`~memo_core.answer.slips.slip_distance`; never a number, a negation
   or a capitalised word, never an added prefix such as "un"/"di" nor an added
   ending such as "-s"); only filler words (articles, "uh") may be missing or extra;
   punctuation the quote has beyond its first/last word must not hide a word of
   the source; at most ``max_edit_ratio`` of the words may differ; quotes shorter
   than ``min_fuzzy_words`` words never pass by fuzzy match.

Whatever the stage, a located quote must also be **whole at both edges** of its
source sentence: it does not verify when the sentence goes on with a negation or a
condition right after it ("the tenant may sublet" | "unless ..."), when the words
just before it are one ("... except" | "the fee is waived"), or when the part of
the sentence it leaves out before it holds one ("If ..., the fee is waived", "It is
not possible | to mix A and B"); and a
quote of fewer than ``min_content_words`` content words verifies only as a whole
sentence. In the fuzzy stage, a slip that turns one dictionary word into another
("shall" -> "shell", "lease" -> "least") is a substitution, not noise
(:func:`~memo_core.answer.lexicon.is_dictionary_word`; without the ``wordfreq``
list installed every such slip counts as a substitution); a rare word the list
misses or ranks among misspellings ("connecting" -> "convecting") is caught by the
shape of its edit instead; and when only the quote's word is one the list knows, the
noise can only be in the source, whose word must then be one slip of the quote's.

The old plugin accepted "the term is 12 months" against "the term is 24 months"
(a 0.82 similarity); here it fails on the number rule, whatever the threshold.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz

from memo_core.answer.lexicon import (
    COMMON_ZIPF,
    DICTIONARY_ZIPF,
    NEGATIONS,
    NUMBER_WORDS,
    marker_at,
    word_frequency,
)
from memo_core.answer.normalize import NormalizedText, normalize_quote, normalize_text
from memo_core.answer.sentences import sentence_around
from memo_core.answer.slips import slip_distance
from memo_core.answer.types import QuoteCheck
from memo_core.search.text import STOPWORDS, stem_token

__all__ = [
    "DEFAULT_FUZZY_THRESHOLD",
    "NEGATIONS",
    "NUMBER_WORDS",
    "CitationVerifier",
    "VerifierConfig",
    "verify_quote",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Minimum character similarity (0..1) of a quote and its aligned window for a fuzzy
#: match. Measured with ``python bench/verifier.py``: OCR-noisy true quotes score >= 0.96;
#: the rules above, not this number, reject the perturbed quotes (none is accepted even
#: with ``--fuzzy-threshold 0.5``), so it is a second line of defence.
DEFAULT_FUZZY_THRESHOLD = 0.9

# Filler words a transcript or an OCR pass may drop or add without changing meaning.
_FILLERS: frozenset[str] = _words("a an the uh um er erm ah eh hmm mm ну э")

# A number (with its decimal/thousands/time/date separators) or a word.
_TOKEN = re.compile(r"\d+(?:[.,:/]\d+)*|[^\W_]+(?:'[^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_SENTENCE_END = frozenset(".!?")
_CLOSERS = frozenset("\"')]}")

# Edit costs of the word alignment; only the ranking matters, the rules decide.
_COST_BAD = 1.0
_COST_FILLER = 0.4
_COST_SLIP = 0.3
_COST_JOIN = 0.05
_MAX_FUZZY_TOKENS = 400
_ATTEMPTS = 3


@dataclass(frozen=True)
class VerifierConfig:
    """Settings of the citation check.

    ``min_fuzzy_words``: quotes with fewer words only pass verbatim (exact or
    normalized). ``fuzzy_threshold``: minimum character similarity of quote and
    aligned window. ``min_edit_length``: shorter words must match exactly;
    ``long_word_length``: words at least this long may carry two slips (else one);
    ``max_edit_ratio``: share of the quote's words that may differ at all.
    ``min_content_words``: quotes with fewer content words (not stopwords) verify
    only as a whole sentence of the source.
    """

    min_fuzzy_words: int = 4
    min_content_words: int = 4
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD
    min_edit_length: int = 4
    long_word_length: int = 9
    max_edit_ratio: float = 0.2


@dataclass(frozen=True)
class _Token:
    text: str  # case kept
    folded: str
    start: int  # in the normalised text
    end: int
    sentence_start: bool
    numeric: bool = field(init=False)
    negation: bool = field(init=False)
    capitalised: bool = field(init=False)

    def __post_init__(self) -> None:
        f = self.folded
        numeric = any(c.isdigit() for c in f) or f in NUMBER_WORDS
        object.__setattr__(self, "numeric", numeric)
        object.__setattr__(self, "negation", f in NEGATIONS or f.endswith("n't"))
        object.__setattr__(self, "capitalised", self.text[:1].isupper())

    @property
    def name(self) -> bool:
        return self.capitalised and not self.sentence_start

    @property
    def protected(self) -> bool:
        """Numbers, negations and capitalised words: no fuzzy tolerance at all."""
        return self.numeric or self.negation or self.capitalised


def _is_sentence_start(text: str, pos: int) -> bool:
    i = pos - 1
    while i >= 0 and (text[i] == " " or text[i] in _CLOSERS):
        i -= 1
    return i < 0 or text[i] in _SENTENCE_END


def _tokens(norm: NormalizedText, lo: int = 0, hi: int | None = None) -> list[_Token]:
    hi = len(norm) if hi is None else hi
    return [
        _Token(
            m.group(),
            norm.folded[m.start() : m.end()],
            m.start(),
            m.end(),
            _is_sentence_start(norm.text, m.start()),
        )
        for m in _TOKEN.finditer(norm.text, lo, hi)
    ]


def _on_word_boundary(text: str, i: int, j: int) -> bool:
    """True unless the match [i, j) cuts a word (or a number) in two."""
    if i > 0 and text[i - 1].isalnum() and text[i].isalnum():
        return False
    return not (j < len(text) and text[j - 1].isalnum() and text[j].isalnum())


def _occurrences(haystack: str, needle: str) -> Iterator[int]:
    """Where ``needle`` occurs in ``haystack`` on word boundaries, in order."""
    start = haystack.find(needle)
    while start != -1:
        if _on_word_boundary(haystack, start, start + len(needle)):
            yield start
        start = haystack.find(needle, start + 1)


def _whole_units(norm: NormalizedText, i: int, j: int) -> bool:
    """Whether the normalised span ``[i, j)`` starts and ends with whole characters of
    the source: "1" is part of the "1⁄4" that "¼" normalises to, not a quote of it."""
    return (i == 0 or norm.starts[i - 1] != norm.starts[i]) and (
        j == len(norm) or norm.starts[j] != norm.starts[j - 1]
    )


@functools.lru_cache(maxsize=256)
def _vocabulary(folded_source: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(folded_source))


def _substitution(a: str, b: str, slips: float) -> bool:
    """Is quote word ``a`` another real word than source word ``b`` (not a typo of it)?

    ``slips``: how many slips turn ``b`` into ``a`` (:func:`slip_distance`). Yes when
    both are dictionary words ("lease"/"least", "encourage"/"encourages"), when ``a``
    is a common word and ``b`` a rare one the list knows ("primarily" for
    "primality"), when both are known forms of one stem ("encourage" for
    "encourages"), or when one is the other with an ending, known to the list or not
    ("lobates" for "lobate", see :func:`_inflected`). Also when ``a`` is a spelling
    the list knows and ``b`` one it does not: then the noise, if any, is in the
    source, so ``b`` must be a slip of ``a`` ("stations" does not become "stationis"
    by a slip: a rare name, not a misprint), and a single one: two slips in one
    word that land on a listed spelling ("photocytes" -> "phagocytes") are another
    word far more often than they are noise. Without a word list, every edit is
    presumed a substitution.
    """
    fa, fb = word_frequency(a), word_frequency(b)
    if fa is None or fb is None or _inflected(a, b):
        return True
    if fa >= DICTIONARY_ZIPF and fb >= DICTIONARY_ZIPF:
        return True
    if fa >= COMMON_ZIPF and fb > 0:
        return True
    if fa > 0 and (slips > 1 or (fb == 0 and slip_distance(b, a) > 1)):
        return True
    return fa > 0 and fb > 0 and _same_stem(a, b)


def _split_clitic(word: str) -> tuple[str, str]:
    """``word`` without its apostrophe ending, and that ending ("people's" -> "people", "'s")."""
    at = word.find("'")
    return (word, "") if at < 0 else (word[:at], word[at:])


def _same_stem(a: str, b: str) -> bool:
    return stem_token(a, "english") == stem_token(b, "english")  # Cyrillic: Russian stemmer


def _inflected(a: str, b: str) -> bool:
    """Is one word the other with an ending added ("lobate" -> "lobates", "договор" -> "договора")?

    A change of number or case, not a slip, even for a word no frequency list knows;
    a dropped last letter that leaves another stem ("governmen") is still a slip.
    """
    return (a.startswith(b) or b.startswith(a)) and _same_stem(a, b)


def _content_words(text: str) -> int:
    """Words that are not stopwords ("10th" is one word here, two tokens for the rules)."""
    return sum(1 for t in _WORD.findall(text.lower()) if t not in STOPWORDS)


def _edge_failure(source: str, start: int, end: int, *, short: bool) -> str | None:
    """Why the quote ``source[start:end]`` is not whole in its sentence, or ``None``."""
    a, b = sentence_around(source, start, end)
    before = _TOKEN.findall(source[a:start].lower())
    after = _TOKEN.findall(source[end:b].lower())
    if short and (before or after):
        return "too short: under four content words and not a whole sentence of the source"
    following = marker_at(after, 0)
    if following:
        return f"cut off: the source sentence goes on with {following!r}"
    # The start edge: a negation or condition anywhere in what the quote leaves out of
    # its sentence may govern it ("It is not possible | to mix A and B", "If ..., | the
    # fee is waived"), as a chunk that starts mid-sentence would cut it.
    for i in range(len(before)):
        preceding = marker_at(before, i)
        if preceding and i + len(preceding.split()) == len(before):
            return f"cut off: the source has {preceding!r} right before the quote"
        if preceding:
            return (
                f"cut off: the source sentence has {preceding!r} before the quote,"
                " which the quote leaves out"
            )
    return None


def _negations(tokens: list[_Token]) -> list[str]:
    return [
        "not" if t.folded.endswith("n't") or t.folded == "cannot" else t.folded
        for t in tokens
        if t.negation
    ]


def _numbers(tokens: list[_Token]) -> list[str]:
    out: list[str] = []
    for t in tokens:
        if t.folded in NUMBER_WORDS:
            out.append(t.folded)
        else:
            out.extend(_NUMBER.findall(t.folded))
    return out


def _names(tokens: list[_Token], *, first_is_name: bool) -> list[str]:
    """Capitalised words not at a sentence start; the first word follows the source's view."""
    out: list[str] = []
    for i, t in enumerate(tokens):
        is_name = (t.capitalised and first_is_name) if i == 0 else t.name
        if is_name:
            out.append(t.folded)
    return out


@functools.lru_cache(maxsize=256)
def _normalized_source(source: str) -> NormalizedText:
    """Sources (chunks) are checked against many quotes: normalise each once."""
    return normalize_text(source)


@dataclass(frozen=True)
class _Step:
    quote: tuple[_Token, ...]
    source: tuple[_Token, ...]
    kind: str  # "equal" | "slip" | "filler" | "bad"


class CitationVerifier:
    """Checks quotes against sources with one set of :class:`VerifierConfig` settings."""

    def __init__(self, config: VerifierConfig | None = None) -> None:
        self.config = config or VerifierConfig()

    def check(self, quote: str, source: str) -> QuoteCheck:
        """Locate ``quote`` in ``source`` (see the module docstring for the rules)."""
        stripped = quote.strip()
        if not stripped:
            return QuoteCheck(False, reason="empty quote")
        content = _content_words(stripped)
        refused: QuoteCheck | None = None  # found, but not whole at its edges
        for at in _occurrences(source, stripped):
            found = self._whole(
                QuoteCheck(True, "exact", at, at + len(stripped), 1.0), source, content
            )
            if found.verified:
                return found
            refused = refused or found
        nq = normalize_quote(quote)
        if not nq.text or not any(c.isalnum() for c in nq.text):
            return QuoteCheck(False, reason="quote has no words")
        ns = _normalized_source(source)
        for at in _occurrences(ns.folded, nq.folded):
            if not _whole_units(ns, at, at + len(nq)):
                continue
            start, end = ns.original_span(at, at + len(nq))
            found = self._whole(QuoteCheck(True, "normalized", start, end, 1.0), source, content)
            if found.verified:
                return found
            refused = refused or found
        if refused is not None:
            return refused  # verbatim but cut off: no fuzzy second chance
        return self._whole(self._fuzzy(nq, ns), source, content)

    def _whole(self, check: QuoteCheck, source: str, content_words: int) -> QuoteCheck:
        """``check``, or its refusal when the located quote is not whole at its edges."""
        if not check.verified or check.start is None or check.end is None:
            return check
        failure = _edge_failure(
            source, check.start, check.end, short=content_words < self.config.min_content_words
        )
        if failure is None:
            return check
        return QuoteCheck(False, similarity=check.similarity, reason=failure)

    # -- fuzzy ---------------------------------------------------------------

    def _fuzzy(self, nq: NormalizedText, ns: NormalizedText) -> QuoteCheck:
        cfg = self.config
        qtokens = _tokens(nq)
        if len(qtokens) < cfg.min_fuzzy_words:
            return QuoteCheck(
                False,
                reason=f"too short for a fuzzy match: {len(qtokens)} word(s) < "
                f"{cfg.min_fuzzy_words}, and not found verbatim",
            )
        if len(qtokens) > _MAX_FUZZY_TOKENS:
            return QuoteCheck(False, reason="too long for a fuzzy match, and not found verbatim")
        if not ns.text:
            return QuoteCheck(False, reason="empty source")
        haystack = ns.folded
        best: QuoteCheck | None = None
        floor = cfg.fuzzy_threshold - 0.05  # the window score only pre-selects
        for _ in range(_ATTEMPTS):
            found = fuzz.partial_ratio_alignment(nq.folded, haystack)
            if found is None or found.score / 100 < floor:
                if best is None:
                    sim = 0.0 if found is None else found.score / 100
                    best = QuoteCheck(
                        False,
                        similarity=sim,
                        reason=f"not found: best similarity {sim:.2f} < {cfg.fuzzy_threshold:.2f}",
                    )
                break
            result = self._judge_window(nq, qtokens, ns, found.dest_start, found.dest_end)
            if result.verified:
                return result
            if best is None or result.similarity > best.similarity:
                best = result
            # Mask this window and look for another occurrence.
            span = max(1, found.dest_end - found.dest_start)
            haystack = haystack[: found.dest_start] + "\x00" * span + haystack[found.dest_end :]
        if best is None:  # no attempt ran: nothing was found
            return QuoteCheck(False, reason="not found")
        return best

    def _judge_window(
        self,
        nq: NormalizedText,
        qtokens: list[_Token],
        ns: NormalizedText,
        lo: int,
        hi: int,
    ) -> QuoteCheck:
        pad = 16
        wtokens = _tokens(ns, max(0, lo - pad), min(len(ns), hi + pad))
        offset = sum(1 for t in wtokens if t.end <= lo)
        vocabulary = _vocabulary(ns.folded)

        def kind(q: tuple[_Token, ...], s: tuple[_Token, ...]) -> tuple[str, float]:
            return self._pair_kind(q, s, vocabulary)

        steps = _align(qtokens, wtokens, offset, self._band(len(qtokens)), kind)
        matched = [t for s in steps for t in s.source]
        if not matched:
            return QuoteCheck(False, reason="not found")
        a, b = matched[0].start, matched[-1].end
        window = ns.slice(a, b)
        similarity = fuzz.ratio(nq.folded, window.folded) / 100
        failure = self._rules(nq, qtokens, ns, matched, steps, similarity)
        if failure:
            return QuoteCheck(False, similarity=similarity, reason=failure)
        start, end = ns.original_span(a, b)
        return QuoteCheck(True, "fuzzy", start, end, similarity)

    def _band(self, n: int) -> int:
        """How far the alignment may drift from the diagonal: the edits it may hold, plus slack."""
        return 2 + max(1, math.floor(n * self.config.max_edit_ratio))

    def _rules(
        self,
        nq: NormalizedText,
        qtokens: list[_Token],
        ns: NormalizedText,
        wtokens: list[_Token],
        steps: list[_Step],
        similarity: float,
    ) -> str | None:
        cfg = self.config
        qnum, wnum = _numbers(qtokens), _numbers(wtokens)
        if qnum != wnum:
            return f"numbers differ: quote {qnum}, source {wnum}"
        qneg, wneg = _negations(qtokens), _negations(wtokens)
        if qneg != wneg:
            return f"negations differ: quote {qneg}, source {wneg}"
        qnames = _names(qtokens, first_is_name=wtokens[0].name)
        wnames = [t.folded for t in wtokens if t.name]
        if qnames != wnames:
            return f"names differ: quote {qnames}, source {wnames}"
        for step in steps:
            if step.kind == "bad":
                q = " ".join(t.text for t in step.quote) or "(nothing)"
                s = " ".join(t.text for t in step.source) or "(nothing)"
                return f"words differ: quote {q!r}, source {s!r}"
        hidden = _hidden_edge_words(nq, qtokens, ns, wtokens)
        if hidden:
            return f"hidden words: the quote has punctuation where the source has {hidden!r}"
        edits = sum(1 for s in steps if s.kind != "equal")
        allowed = max(1, math.floor(len(qtokens) * cfg.max_edit_ratio))
        if edits > allowed:
            return f"too many differing words: {edits} > {allowed}"
        if similarity < cfg.fuzzy_threshold:
            return f"too low similarity: {similarity:.2f} < {cfg.fuzzy_threshold:.2f}"
        return None

    def _pair_kind(
        self, q: tuple[_Token, ...], s: tuple[_Token, ...], vocabulary: frozenset[str]
    ) -> tuple[str, float]:
        """Classify aligning quote words ``q`` with source words ``s`` (either may be empty)."""
        if not q or not s:
            lone = q or s  # one word: the alignment moves add or drop single words
            if lone[0].folded in _FILLERS:
                return "filler", _COST_FILLER
            return "bad", _COST_BAD
        if len(q) == 1 and len(s) == 1:
            qt, st = q[0], s[0]
            if qt.folded == st.folded:
                return "equal", 0.0
            if qt.protected or st.protected:
                return "bad", _COST_BAD
            return self._slip(qt.folded, st.folded, vocabulary)
        qf = "".join(t.folded for t in q)
        sf = "".join(t.folded for t in s)
        if qf == sf:
            return "equal", _COST_JOIN
        # A split or merged word must spell the same letters: a slip inside a join
        # ("encourage a" / "encourages a") would hide one word swapped for another.
        return "bad", _COST_BAD

    def _slip(self, a: str, b: str, vocabulary: frozenset[str]) -> tuple[str, float]:
        """Quote word ``a`` for source word ``b``: a spelling slip, or a different word?

        A different word when :func:`_substitution` says so, or when ``a`` is itself
        a word of the source (``vocabulary``: a term the word list may not know). An
        apostrophe ending ("'s", "'re") must be the same on both sides, and the words
        before it are what is compared ("peoples's" for "people's": "peoples" is
        another word).
        """
        cfg = self.config
        if a in vocabulary:
            return "bad", _COST_BAD
        (a, a_clitic), (b, b_clitic) = _split_clitic(a), _split_clitic(b)
        if a_clitic != b_clitic or min(len(a), len(b)) < cfg.min_edit_length:
            return "bad", _COST_BAD
        if a[:1] != b[:1] or a.endswith(b) or b.endswith(a):
            return "bad", _COST_BAD  # a changed first letter or an added prefix: another word
        limit = 2 if max(len(a), len(b)) >= cfg.long_word_length else 1
        dist = slip_distance(a, b)
        if dist > limit:  # not what OCR or typing does ("connecting" -> "convecting")
            return "bad", _COST_BAD
        if _substitution(a, b, dist):
            return "bad", _COST_BAD
        return "slip", _COST_SLIP * dist


def _hidden_edge_words(
    nq: NormalizedText, qtokens: list[_Token], ns: NormalizedText, wtokens: list[_Token]
) -> str:
    """Source words sitting where the quote has only punctuation before/after its words.

    A quote ``(" yes " or " ")`` must not match ``(" yes " or " no ")`` just because its
    last *word* is "or": the characters it has beyond its edge words are compared with
    the same number of source characters, which must not contain a word.
    """
    head = len(nq.text[: qtokens[0].start].replace(" ", ""))
    tail = len(nq.text[qtokens[-1].end :].replace(" ", ""))
    hidden: list[str] = []
    if head:
        left = ns.text[: wtokens[0].start].rstrip()[-head:]
        hidden += _TOKEN.findall(left)
    if tail:
        right = ns.text[wtokens[-1].end :].lstrip()[:tail]
        hidden += _TOKEN.findall(right)
    return " ".join(hidden)


_Kind = Callable[[tuple[_Token, ...], tuple[_Token, ...]], tuple[str, float]]
_MOVES = ((1, 1), (1, 0), (0, 1), (2, 1), (1, 2))


def _align(q: list[_Token], s: list[_Token], offset: int, band: int, kind: _Kind) -> list[_Step]:
    """Semi-global word alignment: all of ``q`` against a contiguous run of ``s``.

    Moves: one-to-one, two-to-one and one-to-two (split or merged words), and
    quote-only / source-only words; source words before and after the run are
    free. Quote word ``i`` is expected near source word ``i + offset``; cells
    further than ``band`` from that diagonal are not explored (an alignment
    drifting further would hold more edits than any accepted one).
    """
    n, m = len(q), len(s)
    inf = math.inf
    qlen = [len(t.folded) for t in q]
    slen = [len(t.folded) for t in s]
    qfirst = [t.folded[:1] for t in q]
    sfirst = [t.folded[:1] for t in s]
    cache: dict[tuple[int, int, int, int], tuple[str, float]] = {}

    def judge(i: int, j: int, di: int, dj: int) -> tuple[str, float] | None:
        """The move consuming q[i-di:i] and s[j-dj:j], or None when not worth trying."""
        if di == 2 and (
            qfirst[i - 2] != sfirst[j - 1] or abs(qlen[i - 2] + qlen[i - 1] - slen[j - 1]) > 2
        ):
            return None
        if dj == 2 and (
            sfirst[j - 2] != qfirst[i - 1] or abs(slen[j - 2] + slen[j - 1] - qlen[i - 1]) > 2
        ):
            return None
        if di == 0:
            key = (-1, j, 0, 1)  # a source-only word costs the same in every row
        elif dj == 0:
            key = (i, -1, 1, 0)  # a quote-only word, in every column
        else:
            key = (i, j, di, dj)
        found = cache.get(key)
        if found is None:
            found = kind(tuple(q[i - di : i]), tuple(s[j - dj : j]))
            cache[key] = found
        return found

    def cols(i: int) -> range:
        return range(max(0, i + offset - band), min(m, i + offset + band) + 1)

    cost: dict[tuple[int, int], float] = {(0, j): 0.0 for j in cols(0)}
    back: dict[tuple[int, int], tuple[int, int, str]] = {}
    for i in range(1, n + 1):
        for j in cols(i):
            best = inf
            best_back: tuple[int, int, str] | None = None
            for di, dj in _MOVES:
                prev = cost.get((i - di, j - dj), inf)
                if prev >= best:
                    continue
                judged = judge(i, j, di, dj)
                if judged is not None and prev + judged[1] < best:
                    best, best_back = prev + judged[1], (i - di, j - dj, judged[0])
            if best_back is not None:
                cost[(i, j)] = best
                back[(i, j)] = best_back
    ends = [j for j in cols(n) if (n, j) in cost]
    if not ends:
        return []
    i, j = n, min(ends, key=lambda jj: cost[(n, jj)])
    steps: list[_Step] = []
    while i > 0:
        pi, pj, k = back[(i, j)]
        steps.append(_Step(tuple(q[pi:i]), tuple(s[pj:j]), k))
        i, j = pi, pj
    steps.reverse()
    # Source-only words at the edges are outside the window, not edits.
    while steps and not steps[0].quote:
        steps.pop(0)
    while steps and not steps[-1].quote:
        steps.pop()
    return steps


def verify_quote(
    quote: str,
    source: str,
    *,
    min_fuzzy_words: int = 4,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
) -> QuoteCheck:
    """Check that ``quote`` occurs in ``source``; see :class:`CitationVerifier`.

    ``start``/``end`` of a verified check index ``source``. An empty quote never
    verifies; a quote under ``min_fuzzy_words`` words verifies only verbatim.
    """
    config = replace(
        VerifierConfig(), min_fuzzy_words=min_fuzzy_words, fuzzy_threshold=fuzzy_threshold
    )
    return CitationVerifier(config).check(quote, source)
