"""What a question asks once its asker's own corrections are taken into account.

A question typed or dictated in one go corrects itself on the way: "Which port
does the proxy no sorry the gateway listen on?", "When did Carol uh I mean Dana
join?", "How many seats er what is the fare to Oslo?". The words the asker took
back are not part of the question: a base that never names Carol still answers
about Dana, and the restarted question asks for the fare, not for seats. Read
literally, the retracted name is a "hard" term absent from the evidence and the
filler words count as unmatched content terms, so the gate refuses an answerable
question. :func:`corrected` returns the question as its asker meant it:

* *fillers* ("uh", "um", "er", "hmm", "oh", however drawn out: "uhh", "ergh") are
  dropped wherever they stand (between two names or two numbers, "in 1907 er 1911",
  one also marks a replacement); written in capitals ("ER", "OH") they are names;
* a *restart*: an edit marker (below) or a filler followed by a question word
  ("what", "how", "tell me"; or a preposition and one: "in what year") and at least
  two more words drops the question begun before it, but for the words a pronoun
  of the new one points back to ("What did Acme make, no wait, when was it
  founded?" keeps "Acme make"); words that opened no question stay up to their
  last question word ("The ferry sails in what month, no, what season?"). An "or"
  before a question word after an opening of a few words restarts too ("What did or
  why would ...");
* a *replacement*: an edit marker ("no", "sorry", "I mean", "rather", "actually",
  "scratch that", "oops", "wait", "instead", "I think", "better yet", "or" before a
  filler...) between a retracted phrase and its repair drops the marker and the
  retracted phrase: the run of capitalised words (a name) or the number before the
  marker when the repair is one (else the last number of the repair's form, "the
  17th century ... no 18th"); a repair that opens with a preposition or an article
  replaces the phrase that opens with the same one ("in Leeds or rather in York"),
  and one that opens with a word said just before restates from there ("another
  name for X, sorry, another name used for Y"); else as many words as the repair's
  first phrase holds (up to three, never across a function word).

"no" is a marker only where it cannot be a determiner: not after a function word or
a conjunction ("with no arguments", "when no class is defined"), nor before
"longer", "matter" and the like; alone, it corrects before another marker, a comma or
a question word, after a hesitation ("oh no"), before a repair that restates a phrase
just said ("the outer walls no the inner walls"), or before one of the same shape as
the word before it (a name for a name, a number for a number): "returns no value"
keeps its "no". The other markers that are also plain words of a question
("actually", "rather", "instead", "wait", "I think", "make that") are read the same
way when they stand alone: "What does Python 3.12 actually change?" keeps its version
and "Why is mmap rather slow?" its name, while "or rather", "no actually" and "in
1907 actually 1911" still correct; "wait" after "should I" or "does the worker" is
the verb. A question without any of these comes back unchanged.
"""

from __future__ import annotations

import re

__all__ = ["corrected"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Sounds that hold the floor while the asker thinks: no word of the question.
_FILLERS_TEXT = "uh uhm um umm er erm hmm hm ah eh oh"
FILLERS = _words(_FILLERS_TEXT)
#: The same sounds however long they are drawn out ("uhh", "ummm", "ergh", "ahh").
_FILLER_SHAPE = re.compile(r"^(?:u+h+m*|u+m+|e+r+m*|e+r+g+h+|u+g+h+|h+m+|a+h+|e+h+|o+h+)$")

#: Phrases that take back what came before (a longer one before its own start).
_MARKERS_TEXT = """
    i mean|i meant|i'm sorry|i am sorry|or rather|scratch that|never mind|nevermind|
    disregard that|disregard|make that|my bad|i want to know|that's not right|no wait|
    wait no|better yet|excuse me|oops|sorry|rather|actually|instead|i guess|i think|wait|no
"""
_MARKERS = [m.strip() for m in _MARKERS_TEXT.split("|")]
#: Markers that are also ordinary words of a question ("no value", "actually
#: change", "rather slow", "make that file"): alone, they mark a replacement only
#: when the repair has the shape of the word before them (a name, a number).
_PLAIN_WORD_MARKERS = frozenset(
    {"no", "actually", "rather", "disregard", "make that", "instead", "i guess", "i think", "wait"}
)
#: "no" opening these is a determiner or an adverb, never a correction: "no longer works".
_NO_PHRASES = _words("longer more less fewer one matter doubt sooner further")
#: Words after which "no" is a determiner: "when no class is defined".
_CONJUNCTIONS = _words("when if where while because unless whether there so but yes")
#: Words before which "wait" is the verb ("should I wait", "does the client wait"), as
#: far back as :data:`VERB_REACH` words.
_WAIT_AS_VERB = _words(
    "to do does did don't doesn't will would should shall can could must might may not "
    "i you we they he she it please let"
)
VERB_REACH = 3
#: What may stand before a marker to show the asker is correcting: a filler however
#: spelt ("uhh", "ahh", "oh"), a comma, or a word that starts a correction ("wait
#: actually", "nope make that").
_HESITATION = re.compile(
    r"^(?:[,;]|u+h+m*|u+m+|e+r+m*|a+h+|o+h+|h+m+|e+h+|no|nope|wait|sorry|okay|ok|yikes)$"
)
#: Words that open a question (a restart begins with one).
_QUESTION_WORDS_TEXT = "what which who whom whose when where why how tell"
_QUESTION_WORDS = _words(_QUESTION_WORDS_TEXT)
#: Pronouns that point back to what the question named before it restarted.
_ANAPHORA = _words("it its they them their he him his she her this these those ones")
#: Verbs that open a yes/no question ("Does the relay, no wait, which relay ...").
_AUXILIARIES = _words(
    "is are was were do does did can could will would should shall has have had may might must"
)
_DETERMINERS_TEXT = "the a an his her their its our your my"
_DETERMINERS = _words(_DETERMINERS_TEXT)
#: Words that end the repair's first phrase (its length is counted up to one).
_FUNCTION_WORDS_TEXT = """
    the a an of to in on at by for with from is are was were be been do does did has
    have had and or that this these those it its as into than his her their our your my
    within about through between under over near across behind among against inside
    outside without since until during after before upon onto toward towards via per
    beyond below above throughout
"""
_FUNCTION_WORDS = _words(_FUNCTION_WORDS_TEXT)
#: Words that may stand between a marker and the question word of a restart.
_LEADS_TEXT = "in by with from for to at on of so then and after before during"
_LEADS = _words(_LEADS_TEXT)
#: A repair that opens with a function word ("or rather in Prussia") replaces the
#: phrase opened by the same word this many kept words back at most.
PARALLEL_REACH = 6
#: Words a restarted question holds after its question word, at least.
RESTART_WORDS = 2
#: A retracted phrase of common words is this many words at most.
MAX_RETRACTED = 3

_TOKEN = re.compile(r"[\w'’$.-]*\w[\w'’]*|[,;]")
_NUMBER = re.compile(r"\$?\d")
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.IGNORECASE)
_YEAR = re.compile(r"^\d{4}$")


def corrected(question: str) -> str:
    """``question`` without the words its asker took back (see the module doc).

    Only whole words (and the commas between them) are cut out of the text as
    written: what is kept keeps its own spelling and punctuation.
    """
    found = list(_TOKEN.finditer(question))
    tokens = [m.group() for m in found]
    folded = [_fold(t) for t in tokens]
    if not any(t in FILLERS or t in _MARKER_FIRST for t in folded):
        return question
    kept: list[int] = []  # indices of the tokens kept so far
    cut = False
    i = 0
    while i < len(tokens):
        if folded[i] in FILLERS:
            restart = _restart_at(folded, i + 1)
            if restart is not None and kept:
                kept, i, cut = _before_restart(folded, kept, restart), restart, True
                continue
            after = i + 1
            while after < len(tokens) and folded[after] in FILLERS:
                after += 1
            if after < len(tokens) and _same_shape(tokens, kept, after):
                kept = _without_retracted(tokens, kept, after)  # "in 1599 er 1766"
            cut, i = True, after
            continue
        opening = _aborted_opening(folded, kept, i)
        if opening is not None:
            kept, i, cut = [], opening, True  # "What did or why would one ...?"
            continue
        end = _interregnum_end(folded, i)
        if end is None or _waits_as_verb(folded, i) or _no_as_determiner(folded, i, end):
            kept.append(i)
            i += 1
            continue
        restart = _restart_at(folded, end)
        if restart is not None:
            kept, i, cut = _before_restart(folded, kept, restart), restart, True
            continue
        repair = _skip_determiners(folded, end)
        marker = " ".join(folded[i:end])
        hesitated = i > 0 and bool(_HESITATION.match(folded[i - 1]))
        if marker == "no":  # a determiner after a comma too: "cached, no matter how"
            hesitated = hesitated and folded[i - 1] not in {",", ";"}
        plain = marker in _PLAIN_WORD_MARKERS and not hesitated
        if repair >= len(tokens) or (
            plain
            and not _same_shape(tokens, kept, repair)
            and _parallel_start(tokens, kept, repair) is None
        ):
            kept.append(i)  # nothing repaired, or a determiner: "returns no value"
            i += 1
            continue
        kept = _without_retracted(tokens, kept, repair)
        i, cut = end, True
    if not cut:
        return question
    words = [i for i in kept if tokens[i] not in {",", ";"}]
    if not words:
        return question
    # Cut every dropped token's span (with the space before it) out of the text.
    keep = set(kept)
    out: list[str] = []
    at = found[words[0]].start()
    for j in range(words[0], len(found)):
        m = found[j]
        if j not in keep:
            out.append(question[at : m.start()].rstrip())
            at = m.end()
    out.append(question[at:])
    text = re.sub(r"\s+", " ", "".join(out)).strip()
    text = re.sub(r"\s+([,;?.!])", r"\1", text)
    text = re.sub(r"^[,;\s]+", "", text)
    return text[:1].upper() + text[1:]


_MARKER_FIRST: frozenset[str] = frozenset(m.split()[0] for m in _MARKERS) | {"or"}


def _fold(token: str) -> str:
    """A token as the rules read it: lower-cased, any filler sound as "uh"; one written
    in capitals ("ER", "OH") is a name and stays as written."""
    lower = token.lower()
    if lower in FILLERS or _FILLER_SHAPE.match(lower):
        return token if token.isupper() and len(token) > 1 else "uh"
    return lower


def _aborted_opening(folded: list[str], kept: list[int], i: int) -> int | None:
    """Where the question restarts when an opening of a few words is dropped at an "or"
    before a new question word ("What did or why would one ...?"): None when ``i``
    is no such "or" (a choice, "Is it a list or what?", keeps its words)."""
    if folded[i] != "or" or not kept or len(kept) > 4 or folded[kept[0]] not in _QUESTION_WORDS:
        return None
    return _restart_at(folded, i + 1)


def _before_restart(folded: list[str], kept: list[int], restart: int) -> list[int]:
    """What a restart at ``restart`` keeps of the words before it.

    Words that opened a question (a question word or an auxiliary first: "How many er
    what is ...") go, but for a pronoun of the new question that points back into
    them ("What did Acme make, no wait, when was it founded?"): then only their
    question word and auxiliaries go. Words that did not open one keep all before
    their last question word, the one the restart replaces ("Since fees are waived,
    how no wait what do students pay?"); with none, nothing stays.
    """
    words = [k for k in kept if folded[k] not in {",", ";"}]
    if not words:
        return []
    if folded[words[0]] in _QUESTION_WORDS or folded[words[0]] in _AUXILIARIES:
        if not any(w in _ANAPHORA for w in folded[restart:]):
            return []
        opening = _QUESTION_WORDS | _AUXILIARIES | {",", ";"}
        lead = next((j for j, k in enumerate(kept) if folded[k] not in opening), len(kept))
        return kept[lead:]
    asked = [j for j, k in enumerate(kept) if folded[k] in _QUESTION_WORDS]
    return kept[: asked[-1]] if asked else []


def _waits_as_verb(folded: list[str], i: int) -> bool:
    """Whether the "wait" at ``i`` is the verb: "should I wait", "does the client wait";
    set off by a comma ("did Acme, wait, ...") it is not."""
    if folded[i] != "wait" or (i > 0 and folded[i - 1] in {",", ";"}):
        return False
    before = folded[max(0, i - VERB_REACH) : i]
    return any(w in _WAIT_AS_VERB or w.endswith("n't") for w in before)


def _no_as_determiner(folded: list[str], i: int, end: int) -> bool:
    """Whether a lone "no" at ``i`` is a determiner or opens a fixed phrase: after a
    function word or a conjunction ("with no arguments", "when no class is
    defined"), or before "longer", "matter" and the like."""
    if folded[i] != "no" or end != i + 1:
        return False
    before = folded[i - 1] if i > 0 else ""
    return (
        before in _FUNCTION_WORDS
        or before in _CONJUNCTIONS
        or (end < len(folded) and folded[end] in _NO_PHRASES)
    )


def _match_marker(folded: list[str], i: int) -> int | None:
    """The end of the marker phrase starting at ``i`` (None: no marker there)."""
    for marker in _MARKERS:
        words = marker.split()
        if folded[i : i + len(words)] == words:
            return i + len(words)
    return None


def _interregnum_end(folded: list[str], i: int) -> int | None:
    """Where the run of markers, fillers and commas starting at ``i`` ends, when it
    holds a marker (an "or" counts only before a filler or another marker)."""
    j = i
    marked = False
    while j < len(folded):
        if folded[j] in FILLERS or folded[j] in {",", ";"}:
            j += 1
            continue
        if folded[j] == "or" and j + 1 < len(folded):
            nxt = folded[j + 1]
            if nxt in FILLERS or _match_marker(folded, j + 1) is not None:
                marked, j = True, j + 1
                continue
        end = _match_marker(folded, j)
        if end is None:
            break
        marked, j = True, end
    if not marked or folded[i] in {",", ";"}:
        return None
    return j


def _restart_at(folded: list[str], end: int) -> int | None:
    """The index of the question word that restarts the question after ``end``: the
    next word, or the one after a preposition or "so" ("in what year", "so what").
    A question word with less than :data:`RESTART_WORDS` words after it is no new
    question but the repair of another ("doing which, I mean what?")."""
    at = None
    if end < len(folded) and folded[end] in _QUESTION_WORDS:
        at = end
    elif end + 1 < len(folded) and folded[end] in _LEADS and folded[end + 1] in _QUESTION_WORDS:
        at = end + 1
    if at is None or len(folded) - at <= RESTART_WORDS:
        return None
    return at


def _opener(tokens: list[str], repair: int) -> str | None:
    """The function word the repair opens with (before its determiners), if any."""
    at = repair
    while at > 0 and tokens[at - 1].lower() in _DETERMINERS:
        at -= 1
    word = tokens[at].lower()
    if at < repair:
        return word
    return word if word in _FUNCTION_WORDS else None


def _skip_determiners(folded: list[str], j: int) -> int:
    while j < len(folded) and folded[j] in _DETERMINERS:
        j += 1
    return j


def _shape(token: str) -> str:
    if _NUMBER.match(token):
        return "number"
    if token[:1].isupper():
        return "name"
    return "word"


def _number_form(token: str) -> str:
    """What kind of number: an ordinal ("17th"), a year-like four digits, or another."""
    if _ORDINAL.match(token):
        return "ordinal"
    return "year" if _YEAR.match(token) else "number"


def _retracted_number(tokens: list[str], kept: list[int], repair: int) -> int | None:
    """The kept number a number repair replaces when the word before the marker is no
    number: the last one of its form ("the 17th century ... no 18th"). The repair
    may open with a preposition ("in 2008 regarding X, sorry, in 2009")."""
    at = repair + 1 if tokens[repair].lower() in _FUNCTION_WORDS else repair
    if at >= len(tokens) or _shape(tokens[at]) != "number":
        return None
    form = _number_form(tokens[at])
    for k in reversed(kept):
        if _shape(tokens[k]) == "number" and _number_form(tokens[k]) == form:
            return k
    return None


def _same_shape(tokens: list[str], kept: list[int], repair: int) -> bool:
    """Whether the last kept word and the repair are both names or both numbers, or the
    repair is a number that replaces an earlier one of its form."""
    words = [i for i in kept if tokens[i] not in {",", ";"}]
    if not words:
        return False
    if _shape(tokens[words[-1]]) == _shape(tokens[repair]) != "word":
        return True
    return _retracted_number(tokens, words, repair) is not None


def _parallel_start(tokens: list[str], kept: list[int], repair: int) -> int | None:
    """Where in ``kept`` the phrase a repair restates begins: the same function word
    or article opens both ("in Leeds or rather in York", "the harbour no the depot"),
    or the same word ("another name for X, sorry, another name used for Y"), at most
    :data:`PARALLEL_REACH` kept words back. None when the repair restates nothing."""
    opener = _opener(tokens, repair)
    recent = kept[-PARALLEL_REACH:]
    if opener is not None:
        back = [k for k in recent if tokens[k].lower() == opener]
        if back and back[-1] != kept[0]:
            return kept.index(back[-1])
        return None
    word = tokens[repair].lower()
    if word in _FUNCTION_WORDS or repair + 1 >= len(tokens):
        return None
    back = [k for k in recent if tokens[k].lower() == word]
    return kept.index(back[-1]) if back else None


def _without_retracted(tokens: list[str], kept: list[int], repair: int) -> list[int]:
    """``kept`` without the phrase the repair at ``tokens[repair]`` replaces: the names
    or numbers before it for a name or a number, else as many words as the repair's
    first phrase, never across a function word ("the least no most common" keeps
    "the"); the first kept word always stays."""
    kept = list(kept)
    while kept and tokens[kept[-1]] in {",", ";"}:
        kept.pop()
    if kept and _shape(tokens[kept[-1]]) != "number":
        number = _retracted_number(tokens, kept, repair)
        if number is not None:  # "the 17th century ... no 18th": that number alone
            at = kept.index(number)
            opens = at > 0 and tokens[kept[at - 1]].lower() == tokens[repair].lower()
            return [k for j, k in enumerate(kept) if j != at and not (opens and j == at - 1)]
    start = _parallel_start(tokens, kept, repair)
    if start is not None:
        return kept[:start]  # "in 1967 or no make that in 1965"
    shape = _shape(tokens[repair])
    if shape != "word" and kept and _shape(tokens[kept[-1]]) == shape:
        while len(kept) > 1 and _shape(tokens[kept[-1]]) == shape:
            kept.pop()
    else:
        length = 0
        for token in tokens[repair:]:
            if token.lower() in _FUNCTION_WORDS or token in {",", ";"}:
                break
            length += 1
        for _ in range(min(max(1, length), MAX_RETRACTED)):
            if len(kept) <= 1 or tokens[kept[-1]].lower() in _FUNCTION_WORDS:
                break
            kept.pop()
    if repair > 0 and tokens[repair - 1].lower() in _DETERMINERS:
        # The repair brings its own article: "the proxy no the gateway".
        while len(kept) > 1 and tokens[kept[-1]].lower() in _DETERMINERS:
            kept.pop()
    return kept
