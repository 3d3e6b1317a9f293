"""Extractive mode: answer with the best-matching sentences, no LLM at all.

A pure function over ranked passages, each read as whole sentences: a chunk that
starts or ends inside a sentence is widened to the document's whole sentences
(or loses the piece it cut) by :func:`~memo_core.answer.passages.whole_sentences`
before it gets here, the one place that guarantees a partial sentence is never
quoted. Each candidate sentence (a span found by
:func:`~memo_core.answer.sentences.split_sentences`) is read with the sentence
before it, its context: documentation often names the thing asked about in one
sentence ("The purge tool removes the cache folder.") and answers in the next
("The tool is called Warden."). Headings (:func:`~memo_core.answer.windows.is_heading`)
are context for the sentence after them and are never picked. A call signature
alone on its line and the first sentence under it are one candidate, quoted
together: the description's subject is the signature ("total(self)" / "Sum of the
counts"), and a default is told only there. Each sentence is also read in its
*block*, under the nearest heading or signature above it, so "The directory must
be empty." answers a question about ``rmdir`` when it sits under "rmdir(self)".

Picking runs in two steps. First a lexical pre-score: the inverse sentence
frequency of the question's stemmed content words a sentence holds (or, when
higher, that it holds with its context, or that its block's heading or signature
holds), discounted by passage rank and
by length, so a rare term ("Bevington") outweighs a common one ("university").
Then the best :attr:`ExtractiveConfig.candidates` are scored by
:class:`PickWeights`: the sentence's own share of the question's term weight, the
share with its context, the share its block's heading or signature holds, the
passage rank, whether it holds the kind of thing the
question asks for (:func:`~memo_core.answer.windows.answer_type_match`: a date for
"when", a number for "how many"), how much of it is words rather than code or
punctuation, whether it sits right under a heading, whether it is a call
signature ("dist(p, q, /)": it names a call and its defaults) or holds the first
sentence under one, whether it ends in a colon (it introduces what follows) or holds
an interpreter prompt (an example), whether it fills the slot the question asks
about (:func:`~memo_core.answer.windows.answer_slot`), the relative pre-score and, with a
:class:`~memo_core.answer.semantic.SentenceSimilarity` (the base's embedder, the
one the gate reads too), its embedding similarity to the question, and with a
:class:`~memo_core.answer.reader.PassageReader` (the gate's), the probability that it
answers the question, read together with it (:data:`READER_WEIGHTS` weigh that). The
best sentences by that score are the answer, best first. Because
answers are spans of the passages, each picked sentence is verbatim by
construction; the engine still runs the citation check on it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from memo_core.answer.field_words import field_terms
from memo_core.answer.lemmas import content_terms
from memo_core.answer.literals import KIND_NOUNS
from memo_core.answer.reader import PassageReader
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.sentences import (
    field_names,
    is_markup_only,
    is_section_title,
    is_signature,
    is_synopsis,
    option_spelling,
    record_sentences,
    split_sentences,
)
from memo_core.answer.windows import (
    answer_form,
    answer_slot,
    answer_type_match,
    asks_own_version,
    implied_terms,
    is_heading,
    names_indented_text,
    sentence_contexts,
    titles_version,
    without_type_cue,
)
from memo_core.search.text import detect_language

__all__ = [
    "READER_WEIGHTS",
    "ExtractiveConfig",
    "PickCandidate",
    "PickWeights",
    "extractive_answer",
    "pick_candidates",
]


@dataclass(frozen=True)
class PickWeights:
    """Weights of the candidate score (a sum of weight x feature); ``bench/fit_pick.py``
    fits them and reports what they pick.

    Fitted by ``python bench/fit_pick.py --l2 0.0005`` as a listwise (softmax)
    ranker on the train halves of both dev sets (which of a question's candidate
    sentences holds the gold answer; every answerable question whose gold answer is
    in a chunk read), rounded, after a signature and its description became one
    candidate and the block, colon, prompt and answer-slot features came in. Over
    those questions of the held-out halves, the first pick / either pick holds the
    gold answer, weights before -> after on the same candidates: pydoc 0.737 / 0.866
    -> 0.763 / 0.892, SQuAD 0.775 / 0.886 -> 0.779 / 0.882. The answer-type match
    fitted to zero once the answer slot (a *new* thing of the type) was a feature. A
    penalty for a sentence that only repeats the question's terms was tried and
    fitted to zero weight; a stronger L2 penalty (0.01) lowered SQuAD.

    Refitted the same way (SQuAD and pydoc train halves, on the passages widened to
    whole sentences as the engine reads them) when the answer-form, points-back and
    opens-on-the-question features came in. Grouped 5-fold cross-validation on the
    train halves, first / either pick, features before -> after: pydoc 0.735 / 0.834
    -> 0.755 / 0.867, the Language Reference (not fitted on) 0.640 / 0.790 -> 0.651 /
    0.791, SQuAD 0.784 / 0.891 -> 0.786 / 0.888. Scoring 12 or 16 candidates instead
    of 8 moved none of them by more than one question; a share of code-like tokens,
    a share of words the question lacks, an opening verb ("Return ...") and the
    sentence's length each moved pydoc by under one point.
    """

    #: The sentence's own share of the question's term weight (0..1).
    coverage: float = 4.7
    #: The share held by the sentence together with the sentence before it (0..1).
    with_context: float = 0.7
    #: The share held by the heading or signature of the block it sits in (0..1).
    block: float = 1.5
    #: ``1/(1 + rank_decay * rank)`` of its passage.
    rank: float = 1.8
    #: 1 when the sentence holds the kind of thing the question asks for, else 0.
    answer_type: float = 0.1
    #: Cosine similarity of the sentence to the question (0 without an embedder).
    similarity: float = 3.9
    #: The pre-score relative to the best candidate's (0..1).
    pre_score: float = 1.7
    #: Share of letters among the sentence's characters: prose over signatures and code.
    letters: float = 0.5
    #: 1 when the sentence comes right after a heading. It gets the heading's terms as
    #: context; the fit weighs that down: the first sentence under a heading mostly
    #: introduces the section rather than answering.
    after_heading: float = -1.5
    #: 1 when the candidate holds the first sentence under a call signature (quoted
    #: with it): the opening of an API description, mostly what the call does.
    after_signature: float = -0.7
    #: 1 for a candidate holding a call signature ("dist(p, q, /)"), alone or with its
    #: description: it names the call and its defaults.
    signature: float = -1.1
    #: 1 for a sentence ending in a colon ("Methods inherited from Handler:"): it
    #: introduces what follows rather than saying it.
    introduces: float = -0.2
    #: 1 for a sentence holding an interactive prompt (">>> c.total()"): an example.
    example: float = -0.7
    #: :func:`~memo_core.answer.windows.answer_slot`: +1 when the sentence holds a thing
    #: of the type asked for that the question does not already name, -1 when none.
    answer_slot: float = 0.5
    #: The share held with the sentence before it when the sentence opens by pointing
    #: back to it ("It does not compile it.", "If it does, an error is raised."), else
    #: 0: the thing asked about is named in the sentence before.
    refers_back: float = 0.6
    #: :func:`~memo_core.answer.windows.answer_form`: 1 when the sentence takes a stance
    #: (a negation or modal) for a yes/no question, or gives a reason for a "why".
    answer_form: float = 1.7
    #: 1 when the sentence's first content word is a term of the question: it opens on
    #: what is asked about ("The directory must be empty." for a question on a
    #: directory), where a sentence that only mentions it says something of another.
    opens_on_question: float = 0.8
    #: 1 when the sentence is the entry of an option list for an option the question
    #: names ("--compact  suppress all whitespace" for "What does --compact do?"): the
    #: entry defines it, where another entry's help only mentions it. Set by hand on the
    #: command-line help set's train half (``--sets cli``): the two sets the other
    #: weights are fitted on hold almost no option lists, so a fit there leaves it at 0.
    #: Raised from 2.0 when the lines under a section title ending in a colon stopped
    #: being titles (a positional argument's entry is a candidate too): no answer of the
    #: seven train halves moved, and an entry that only mentions the option stays behind.
    defines_option: float = 2.5
    #: 1 when the sentence is a record's field whose name is a term of the question
    #: ("Maintainer: Jane Roe" for "Who maintains heronlog?"): the field that states
    #: what is asked, where the one naming the record's subject ("Name: heronlog") is
    #: only what it is about. Set by hand on the records set's train half (``--sets
    #: records``), as ``defines_option``: the fitted sets hold few records.
    asked_field: float = 1.5
    #: 1 when the question asks what a thing is or does ("What is quillsync?", "What
    #: does the --prune flag do?") and the sentence opens on that thing, as a word of
    #: its own ("quillsync - mirror notes to a server", "quillsync copies every
    #: note"), where a sentence that holds it inside a longer name (``QUILLSYNC_HOME``,
    #: ``~/.quillsync``) or further on is about something else. Set by hand on the
    #: train halves, as ``defines_option``.
    defines_subject: float = 3.0
    #: The probability the passage reader gives that the sentence answers the question
    #: (:class:`~memo_core.answer.reader.PassageReader`, the question and the sentence
    #: read together). 0 here: these weights pick without a reader; see
    #: :data:`READER_WEIGHTS`.
    reader: float = 0.0


#: The weights for candidates read by the passage reader (the defaults of
#: :class:`PickWeights` pick without one). Fitted by ``python bench/fit_pick.py --sets
#: squad,pydoc,topics,library,cli,readmes,records --l2 0.0005`` on the train halves of all
#: seven dev sets, every weight free (the ones set by hand above were fitted too: these
#: sets hold option lists, records and definitions). The reader takes the largest weight
#: and the term shares and the similarity give way to it. The first pick holds the gold
#: answer (over the questions whose gold answer is in a chunk read), held-out halves,
#: shipped weights without the reader -> these with it, on the same candidates: SQuAD
#: 0.776 -> 0.803, pydoc 0.777 -> 0.851, Language Reference 0.676 -> 0.775, library 0.639
#: -> 0.689, cli 0.810 -> 0.861, READMEs 0.764 -> 0.818, records 0.772 -> 0.667. The
#: records fall: the reader reads a field alone, without the record it belongs to
#: ("Author: ..." of another package reads as answering "Who wrote X?"). The reader was
#: trained on the same train halves, so their figures are not evidence.
READER_WEIGHTS = PickWeights(
    coverage=1.0,
    with_context=1.2,
    block=1.9,
    rank=1.8,
    answer_type=0.4,
    similarity=1.8,
    pre_score=0.9,
    letters=-0.7,
    after_heading=-0.6,
    after_signature=-0.4,
    signature=-0.5,
    introduces=-0.5,
    example=-0.6,
    answer_slot=0.5,
    refers_back=0.8,
    answer_form=1.3,
    opens_on_question=0.6,
    defines_option=1.9,
    asked_field=1.0,
    defines_subject=0.7,
    reader=6.3,
)


@dataclass(frozen=True)
class ExtractiveConfig:
    """Scoring knobs: ``rank_decay`` discounts passage rank r by ``1/(1 + rank_decay*r)``;
    sentences longer than ``long_sentence`` tokens are divided by ``(len/long_sentence)**
    length_penalty`` in the pre-score; a sentence needs at least ``min_coverage`` of
    the question's term weight (alone, with its context while holding some of it
    itself, or in the heading or signature of its block) to be a candidate at all; the best ``candidates`` by pre-score are
    scored by ``weights`` (and embedded, when a similarity is given, and read, when a
    passage reader is). ``weights`` left out: :data:`READER_WEIGHTS` when the candidates
    are read, else :class:`PickWeights`' defaults.
    """

    rank_decay: float = 0.5
    long_sentence: int = 25
    length_penalty: float = 0.25
    min_coverage: float = 0.15
    candidates: int = 8
    weights: PickWeights | None = None

    def weights_for(self, reader: PassageReader | None) -> PickWeights:
        """The weights that score candidates read by ``reader`` (or by none)."""
        if self.weights is not None:
            return self.weights
        return PickWeights() if reader is None else READER_WEIGHTS


_WORDS = re.compile(r"[^\W_]+")
# An interactive interpreter prompt at the start of a line.
_PROMPT = re.compile(r"(?m)^[\s|]*>>> ")
# Words that point back to what the sentence before named (English and Russian); a
# sentence holding one among its first three words is about that thing.
_BACK_REFERENCES = frozenset(
    str.split(
        """it its this these they their them such he she his her
    он она оно они его её ее их это этот эта эти такой такая такие"""
    )
)
_OPENING_WORDS = 3


@dataclass(frozen=True)
class _Sentence:
    chunk_id: str
    rank: int
    start: int
    end: int
    text: str
    terms: frozenset[str]
    #: The terms of the sentence (or heading) just before it in its passage.
    context: frozenset[str]
    #: The terms of the nearest heading or call signature above it in its passage: what
    #: the block it sits in is about ("rmdir(self)" for "The directory must be empty.").
    block: frozenset[str]
    after_heading: bool
    after_signature: bool
    signature: bool
    length: int
    #: The option its entry of an option list opens with ("-R, --no-report" for "Useful
    #: if you want to accumulate over several runs." in that entry's help), or "".
    option: str = ""
    #: The terms of the names of the record fields it holds ("author" for "Author:
    #: Jane Roe"), empty outside records.
    fields: frozenset[str] = frozenset()
    #: What it is about, as the passage reader reads it before the sentence: its
    #: document's title, its heading, its record (``windows.sentence_contexts``).
    about: str = ""


@dataclass(frozen=True)
class _Candidate:
    sentence: _Sentence
    order: int
    coverage: float
    with_context: float
    block: float
    pre_score: float


def _sentences(
    passages: Sequence[tuple[str, str]],
    language: str,
    version_titles: bool = False,
    asked: Collection[str] = (),
    sections: Mapping[str, tuple[str, str]] | None = None,
) -> list[_Sentence]:
    """The candidate sentences of ``passages``, in order. A call signature alone on its
    line and the first sentence under it are one candidate ("total(self)" + "Sum of
    the counts"): the description's subject is the signature, which the description
    itself seldom names again, and the signature's defaults ("mode='a'") are told
    only there. A signature with no description under it stays a candidate alone. So
    are a sentence ending in a colon and what it introduces ("To install it, run:" and
    "pip install quillsync"): alone the first says nothing, the second not what it is
    for. With ``version_titles`` (the question asks which version a thing is), a title
    or a manual page's running footer that states a version is a candidate too: a
    licence or a page often says which version it is only there ("Version 3, 29 June
    2007"; :func:`~memo_core.answer.windows.titles_version`). A sentence also holds the
    terms its words imply (its CamelCase identifiers' words, but for the identifiers
    among the terms ``asked``; "version" for a version number, "default" for a stated
    default: :func:`~memo_core.answer.windows.implied_terms`). ``sections`` gives a
    passage's document title and heading by its id, which the reader reads the
    sentence after (``_Sentence.about``)."""
    out: list[_Sentence] = []
    for rank, (chunk_id, text) in enumerate(passages):
        before: frozenset[str] = frozenset()
        block: frozenset[str] = frozenset()
        heading = False
        described: _Sentence | None = None  # the signature just before, awaiting its description
        introduced = False  # ... or the sentence ending in a colon, awaiting what it introduces
        option = ""  # the option of the entry being read, while its help goes on
        synopsis = False  # inside a manual page's SYNOPSIS section
        last = 0
        spans = split_sentences(text)
        said = [content_terms(text[a:b], language) for a, b in spans]
        # A record's field is read with its whole record, as the gate's windows read it:
        # what the record is about is named once, in another field ("Name: loguru" for
        # "Author: Delgan"), which is the block the field sits in.
        records = record_sentences(text, spans)
        record_terms = {r: frozenset().union(*said[r[0] : r[1]]) for r in set(records.values())}
        headings = [is_heading(text, a, b) for a, b in spans]
        title, section = (sections or {}).get(chunk_id, ("", ""))
        about = sentence_contexts(text, spans, headings, records, title, section)
        for i, (start, end) in enumerate(spans):
            sentence = text[start:end]
            toks = said[i]
            terms = frozenset(toks) | implied_terms(sentence, language, asked)
            spelling = option_spelling(sentence.split("\n", 1)[0])
            here = block
            fields: frozenset[str] = frozenset()
            record: frozenset[str] = frozenset()
            if i in records:
                record = record_terms[records[i]]
                names = " ".join(field_names(text, start, end))
                fields = frozenset(content_terms(names, language)) | field_terms(sentence, language)
            if spelling is not None:
                option = spelling
            elif "\n\n" in text[last:start] or text[last:start].strip(" \n"):
                option = ""
            elif option:
                # The help of an entry goes on: its option is what the sentence is about.
                here = frozenset(content_terms(option, language))
            last = end
            # A heading is context, never the answer; so is a usage synopsis, which names
            # every option of a command and says what none of them does, and so is what a
            # manual page's SYNOPSIS section holds ("quillsync [OPTION]... SOURCE DEST").
            titled = headings[i] or is_section_title(sentence)
            if titled:
                synopsis = _SYNOPSIS_TITLE.fullmatch(sentence.strip()) is not None
            if titled and version_titles and not synopsis and titles_version(text, start, end):
                out.append(
                    _Sentence(
                        chunk_id, rank, start, end, sentence, terms, before, block, False,
                        False, False, len(toks), about=about[i],
                    )
                )  # fmt: skip
            if titled or synopsis or is_synopsis(sentence):
                # Under a section title in capitals (a manual page's NAME, AUTHOR or EXIT
                # STATUS, pydoc's DESCRIPTION) the first line is the section's content, the
                # one-line summary under NAME; under a field naming a text ("License:
                # Expat") it is the text itself: no introduction, they get the heading's
                # context without the penalty.
                capital = sentence.strip().isupper() and is_section_title(sentence.strip())
                named = names_indented_text(text, start, end)
                heading, described = not (capital or named), None
                before = block = terms
                continue
            if is_markup_only(sentence):
                # Struck-through text and badge rows say nothing; they change no context.
                continue
            this = is_signature(sentence)
            if described is not None and not this:
                out[-1] = replace(
                    described,
                    end=end,
                    text=text[described.start : end],
                    terms=described.terms | terms,
                    after_signature=not introduced,
                    length=described.length + len(toks),
                )
                described = None
            else:
                if this:
                    block = here = terms
                out.append(
                    _Sentence(
                        chunk_id, rank, start, end, sentence, terms, before | record, here,
                        heading, False, this, len(toks), option, fields, about[i],
                    )
                )  # fmt: skip
                # A sentence that ends in a colon introduces what follows ("To install it,
                # run:" over "pip install quillsync"): alone it says nothing, so the two
                # are one candidate, as a signature and its description are.
                introduced = not this and sentence.rstrip().endswith(":")
                described = out[-1] if this or introduced else None
            heading = False
            before = terms
    return out


#: The title of a manual page's section that holds the command's synopsis, in capitals as
#: manual pages write it: a README's "Usage" heading titles prose that answers.
_SYNOPSIS_TITLE = re.compile(r"SYNOPSIS|USAGE|СИНТАКСИС")

#: An option a question names: "-d", "--no-indent", "-X", or a variable ("PYTHONPATH").
_ASKED_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*|\b[A-Z][A-Z0-9_]{3,}\b")
_SPELLING_TOKEN = re.compile(r"--?[A-Za-z0-9][\w-]*|[A-Z][A-Z0-9_]{3,}")
#: "python -m tarfile": how the module asked about is run. Its help need not say it, and
#: the "-m" is no option of that module's ("-m, --memo" in its help is another one).
_RUN_AS_MODULE = re.compile(r"\bpython[\d.]*\s+-m\s+(?=\w)", re.IGNORECASE)


# "What is X?", "What are X?", "What does X do?", "What does X mean?": X is asked for
# what it is. Not "What does X return?": that asks for one thing about X.
_ASKS_DEFINITION = re.compile(
    r"^\s*what\s+(?:(?:is|are)\s+(?P<is>.+?)|(?:does|do)\s+(?P<does>.+?)\s+(?:do|mean|stand\s+for))"
    r"\s*\?*\s*$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
# What may stand before a sentence's first word: a gutter, a quote mark, a bullet (with
# the space after it, so that "--prune" keeps its dashes).
_LEAD = re.compile(r"^[\s|>]*(?:[-*•]\s+)?")


def _defined_subject(question: str) -> str | None:
    """The thing a question asks to be defined ("What does quillsync do?" -> "quillsync"),
    if it asks that."""
    m = _ASKS_DEFINITION.match(question)
    if m is None:
        return None
    subject = _ARTICLE.sub("", (m.group("is") or m.group("does")).strip())
    words = subject.split()
    if len(words) > 1 and words[-1].casefold() in KIND_NOUNS:
        subject = " ".join(words[:-1])  # "the --prune flag" is defined by "--prune ..."
    return subject.strip("\"'`‘’“”«»") or None


def _opens_with(text: str, subject: str) -> bool:
    """Whether ``text`` opens with ``subject`` as a name of its own and goes on to say
    what it is: not the head of a longer identifier or path (``QUILLSYNC_HOME``,
    ``quillsync.toml``), nor a version line ("quillsync 2.1  March 2026", a manual
    page's footer)."""
    body = _LEAD.sub("", text, count=1)
    if body[: len(subject)].casefold() != subject.casefold():
        return False
    rest = body[len(subject) :]
    if rest[:1].isalnum() or (rest[:1] in ("_", ".", "/", "-") and rest[1:2].isalnum()):
        return False
    return not rest.lstrip()[:1].isdigit()


def _defines_option(option: str, asked: Collection[str]) -> bool:
    """Whether ``option`` (the spelling an entry of an option list opens with) spells one
    of the ``asked`` options."""
    return bool(asked) and bool(set(_SPELLING_TOKEN.findall(option)) & set(asked))


def _opens_on(text: str, qterms: Collection[str], language: str) -> bool:
    """Whether the first content word of ``text`` is one of the question's terms."""
    first = content_terms(text, language)[:1]
    return bool(first) and first[0] in qterms


def _refers_back(text: str) -> bool:
    """Whether ``text`` opens by pointing back to the sentence before it."""
    opening = _WORDS.findall(text[:80].casefold())[:_OPENING_WORDS]
    return any(w in _BACK_REFERENCES for w in opening)


def _letters(text: str) -> float:
    return sum(c.isalpha() for c in text) / len(text) if text else 0.0


@dataclass(frozen=True)
class PickCandidate:
    """One candidate sentence (``start``..``end`` of passage ``chunk_id``) with its
    :class:`PickWeights` features, by field name; ``scored`` is False for the
    candidates past :attr:`ExtractiveConfig.candidates` (ranked by pre-score only)."""

    chunk_id: str
    start: int
    end: int
    text: str
    features: dict[str, float]
    scored: bool


def pick_candidates(
    question: str,
    passages: Sequence[tuple[str, str]],
    *,
    config: ExtractiveConfig | None = None,
    similarity: SentenceSimilarity | None = None,
    stored: Collection[str] | Mapping[str, tuple[int, int]] = (),
    reader: PassageReader | None = None,
    sections: Mapping[str, tuple[str, str]] | None = None,
) -> list[PickCandidate]:
    """Every candidate sentence of ``passages`` for ``question``, by pre-score (best
    first), the first :attr:`ExtractiveConfig.candidates` with their features (what
    :func:`extractive_answer` weighs and ``bench/fit_pick.py`` fits). ``stored``: the
    ids among the passages that are chunks of the base (not memory facts), whose
    sentence vectors ``similarity`` may keep in the base; as a mapping, each id's
    ``(start, end)``: where the chunk's own text lies in a passage widened beyond it
    (``answer/passages.py``), since the base keys a vector by its span in the chunk.
    ``sections``: each passage's document title and heading, by id, which the reader
    reads a candidate after."""
    cfg = config or ExtractiveConfig()
    language = detect_language(question)
    # "long" in "how long" names the answer's type; the gate does not weigh it either.
    asked = _RUN_AS_MODULE.sub("", question)
    qterms = set(content_terms(without_type_cue(asked), language))
    if not qterms:
        return []
    sentences = _sentences(
        passages,
        language,
        version_titles=asks_own_version(question),
        asked=qterms,
        sections=sections,
    )
    if not sentences:
        return []
    asked_options = {m.group() for m in _ASKED_OPTION.finditer(asked)}
    subject = _defined_subject(question)
    n = len(sentences)
    df = {t: sum(1 for s in sentences if t in s.terms) for t in qterms}
    idf = {t: math.log(1.0 + (n + 1) / (df[t] + 0.5)) for t in qterms}
    total = sum(idf.values())
    pool: list[_Candidate] = []
    for order, s in enumerate(sentences):
        own = sum(idf[t] for t in qterms & s.terms) / total
        with_context = sum(idf[t] for t in qterms & (s.terms | s.context)) / total
        block = sum(idf[t] for t in qterms & s.block) / total
        if (own <= 0 and block < cfg.min_coverage) or max(with_context, block) < cfg.min_coverage:
            continue
        discount = 1.0 + cfg.rank_decay * s.rank
        if s.length > cfg.long_sentence:
            discount *= (s.length / cfg.long_sentence) ** cfg.length_penalty
        lexical = own if own >= cfg.min_coverage else 0.0
        pre = total * max(lexical, with_context, block) / discount
        pool.append(_Candidate(s, order, own, with_context, block, pre))
    if not pool:
        return []
    pool.sort(key=lambda c: (-c.pre_score, c.order))
    head, rest = pool[: cfg.candidates], pool[cfg.candidates :]
    keys = [_sentence_key(c.sentence, stored) for c in head]
    sims = (
        similarity.similarities(question, [c.sentence.text for c in head], keys)
        if similarity is not None
        else [0.0] * len(head)
    )
    read = (
        reader.probabilities(
            question, [c.sentence.text for c in head], [c.sentence.about for c in head]
        )
        if reader is not None
        else [0.0] * len(head)
    )
    best = head[0].pre_score
    out = []
    for c, sim, probability in zip(head, sims, read, strict=True):
        s = c.sentence
        features = {
            "coverage": c.coverage,
            "with_context": c.with_context,
            "block": c.block,
            "rank": 1.0 / (1.0 + cfg.rank_decay * s.rank),
            "answer_type": answer_type_match(question, s.text),
            "similarity": sim,
            "pre_score": c.pre_score / best,
            "letters": _letters(s.text),
            "after_heading": float(s.after_heading),
            "after_signature": float(s.after_signature),
            "signature": float(s.signature),
            "introduces": float(s.text.rstrip().endswith(":")),
            "example": float(_PROMPT.search(s.text) is not None),
            "answer_slot": answer_slot(question, s.text),
            "refers_back": c.with_context if _refers_back(s.text) else 0.0,
            "answer_form": answer_form(question, s.text),
            "opens_on_question": float(_opens_on(s.text, qterms, language)),
            "defines_option": float(_defines_option(s.option, asked_options)),
            "asked_field": float(not qterms.isdisjoint(s.fields)),
            "defines_subject": float(subject is not None and _opens_with(s.text, subject)),
            "reader": probability,
        }
        out.append(PickCandidate(s.chunk_id, s.start, s.end, s.text, features, True))
    out += [PickCandidate(c.sentence.chunk_id, c.sentence.start, c.sentence.end,
                          c.sentence.text, {}, False) for c in rest]  # fmt: skip
    return out


def _sentence_key(
    s: _Sentence, stored: Collection[str] | Mapping[str, tuple[int, int]]
) -> tuple[str, int, int] | None:
    """The base's key of a sentence vector: its span in its chunk's own text."""
    if s.chunk_id not in stored:
        return None
    if not isinstance(stored, Mapping):
        return (s.chunk_id, s.start, s.end)
    lo, hi = stored[s.chunk_id]
    if s.start < lo or s.end > hi:
        return None  # reaches past the chunk: text the key could not name
    return (s.chunk_id, s.start - lo, s.end - lo)


def extractive_answer(
    question: str,
    passages: Sequence[tuple[str, str]],
    *,
    max_sentences: int = 2,
    config: ExtractiveConfig | None = None,
    similarity: SentenceSimilarity | None = None,
    stored: Collection[str] | Mapping[str, tuple[int, int]] = (),
    keep: Callable[[str, int, int], bool] | None = None,
    reader: PassageReader | None = None,
    sections: Mapping[str, tuple[str, str]] | None = None,
) -> list[tuple[str, int, int]]:
    """Pick up to ``max_sentences`` sentences answering ``question``.

    ``passages`` are ``(chunk_id, text)`` in retrieval order (best first), each text
    made of whole sentences: a chunk of a document goes through
    :func:`~memo_core.answer.passages.whole_sentences` first (every sentence here may
    be quoted, also one that starts in lower case). Returns
    ``(chunk_id, start, end)`` spans into each passage's text, best first; an
    empty list when no sentence shares enough of the question's content words.
    ``stored``: the ids among them that are chunks of the base (not memory facts),
    whose sentence vectors ``similarity`` may keep in the base (as in
    :func:`pick_candidates`). ``keep(chunk_id, start, end)``, when given, is False for
    a candidate the caller would refuse to quote: the next best is picked instead.
    ``reader`` reads each scored candidate with the question (``PickWeights.reader``),
    after what it is about: its passage's document title and heading from ``sections``
    (by passage id) and the headings above it.
    """
    if max_sentences <= 0:
        return []
    cfg = config or ExtractiveConfig()
    pool = pick_candidates(
        question,
        passages,
        config=cfg,
        similarity=similarity,
        stored=stored,
        reader=reader,
        sections=sections,
    )
    w = cfg.weights_for(reader)
    scored = [c for c in pool if c.scored]
    scores = [sum(getattr(w, name) * v for name, v in c.features.items()) for c in scored]
    # A stable sort: equal scores keep the pre-score order.
    order = sorted(range(len(scored)), key=lambda i: -scores[i])
    ranked = [scored[i] for i in order] + [c for c in pool if not c.scored]
    picked: list[tuple[str, int, int]] = []
    seen: set[str] = set()
    for c in ranked:
        # Overlapping chunks and renderings of one docstring repeat sentences, with other
        # gutters, markup or line breaks: pick each sentence's words once.
        key = " ".join(_WORDS.findall(c.text.casefold()))
        if key in seen or (keep is not None and not keep(c.chunk_id, c.start, c.end)):
            continue
        seen.add(key)
        picked.append((c.chunk_id, c.start, c.end))
        if len(picked) >= max_sentences:
            break
    return picked
