"""Capture rules: score a user turn and extract facts from it, English and Russian, no LLM.

A turn is split into sentences. Each sentence is cleaned of framing words
("Life update:", "Кстати,", "Please remember this:"), scored by the signals in
:mod:`memo_core.memory.lexicon`, and, when it scores at or above the keep
threshold, becomes a candidate fact: a normalised statement, a category, a pinned
flag, an optional *slot* (an attribute with one current value, e.g. ``self.residence``),
the subject it is about (the user, or a person/pet the user named) and any date it
mentions. Corrections drop the superseded value from the new statement ("I no longer
live in Berlin, I moved to Lisbon" -> "I moved to Lisbon"), since the old value stays
in the fact's history. Questions, small talk and "no need to keep that" yield no fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from memo_core.answer.sentences import split_chat_sentences
from memo_core.memory import lexicon as lx
from memo_core.memory.config import PINNED_BY_DEFAULT, MemoryConfig
from memo_core.memory.morph import first_person_verb
from memo_core.memory.types import Decision
from memo_core.search.text import STOPWORDS, detect_language, stem_token, tokenize
from memo_core.values import CLOCK, DateRange, clock_parts, find_date_range, has_time_value

__all__ = [
    "CandidateFact",
    "Party",
    "TurnAnalysis",
    "analyze_turn",
    "content_stems",
    "speaks_of_self",
]


@dataclass(frozen=True)
class Party:
    """Someone (or a pet) a fact can be about, as the user named them."""

    relation: str  # canonical relation ("sister", "dog"), or "other"
    kind: str  # "person" | "pet"
    name: str = ""

    @property
    def id(self) -> str:
        return f"{self.relation}:{self.name.lower()}" if self.name else self.relation

    @property
    def terms(self) -> tuple[str, ...]:
        """What a message must mention to be about this party: relation and name stem."""
        out = [self.relation] if self.relation != "other" else []
        if self.name:
            out.append(_stem(self.name.lower()))
        return tuple(out)

    @property
    def about(self) -> str:
        return f"{self.relation} {self.name}".strip() if self.relation != "other" else self.name

    def to_json(self) -> dict[str, str]:
        return {"relation": self.relation, "kind": self.kind, "name": self.name}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Party:
        return cls(data.get("relation", "other"), data.get("kind", "person"), data.get("name", ""))


@dataclass(frozen=True)
class CandidateFact:
    """A fact the rules found in a turn, before matching against stored facts."""

    statement: str
    category: str
    pinned: bool
    score: float
    signals: tuple[str, ...]
    slot: str | None = None
    subject: Party | None = None  # None = the user
    mentions: tuple[str, ...] = ()
    event: DateRange | None = None
    has_time: bool = False
    correction: bool = False
    explicit: bool = False
    match_text: str = ""  # the sentence before old values were dropped (finds the target)
    said: str = ""  # the sentence as said, framing included ("Changed again: ...")

    @property
    def subject_id(self) -> str:
        return "self" if self.subject is None or self.subject.kind == "pet" else self.subject.id

    @property
    def subject_kind(self) -> str:
        return "self" if self.subject is None else self.subject.kind

    @property
    def key(self) -> str | None:
        """``subject.slot`` when the fact fills a one-value slot, else None."""
        if self.slot is None:
            return None
        owner = "self" if self.subject is None else self.subject.id
        return f"{owner}.{self.slot}"

    @property
    def party_terms(self) -> tuple[str, ...]:
        terms = list(self.subject.terms) if self.subject is not None else []
        terms.extend(t for t in self.mentions if t not in terms)
        return tuple(terms)


@dataclass(frozen=True)
class TurnAnalysis:
    """The rules' verdict on one turn."""

    decision: Decision
    score: float
    signals: tuple[str, ...] = ()
    facts: tuple[CandidateFact, ...] = ()
    borderline: tuple[str, ...] = ()  # sentences in the borderline band (for an LLM)
    forget_requested: bool = False
    focus: Party | None = None  # who "she"/"он" refers to in the next turn
    reasons: tuple[str, ...] = field(default=())


# -- sentences and tokens ---------------------------------------------------------------


def _stem(token: str) -> str:
    lang = "russian" if re.search(r"[а-яё]", token) else "english"
    return stem_token(token, lang)


#: Pieces of English contractions the tokenizer splits off ("I'm" -> "i", "m").
_CONTRACTIONS = frozenset({"m", "ve", "ll", "re", "d", "s", "t"})
_NOISE = STOPWORDS | lx.FILLER_WORDS | lx.MARKER_WORDS | _CONTRACTIONS


_CLOCK = CLOCK
_DAY_OF_MONTH = re.compile(
    r"\b\d{1,2}-?(?:го|ое)\b.*\bчисл\w*|\bon the \d{1,2}(?:st|nd|rd|th)\b|\bкаждого \d", re.I
)


def _clock_token(m: re.Match[str]) -> tuple[int, str]:
    hh, mm, _ = clock_parts(m)
    return int(hh), mm


def content_stems(text: str) -> frozenset[str]:
    """Stems of the meaningful tokens (no stopwords, fillers or framing words).

    A clock time is one token ("10:00" -> "t1000"), so "19:00" and "20:00" share nothing.
    """
    text = _CLOCK.sub(lambda m: " t{:02d}{} ".format(*_clock_token(m)), text)
    lang = detect_language(text)
    return frozenset(stem_token(t, lang) for t in tokenize(text) if t not in _NOISE)


def _content_tokens(text: str) -> list[str]:
    return [t for t in tokenize(text) if t not in _NOISE]


# -- cleaning ---------------------------------------------------------------------------

_COLON_PREFIX = re.compile(r"^([^:\n]{1,60}):\s+(\S.*)$", re.S)
_COMMA_PREFIX = re.compile(r"^([^,\n]{1,30}?),\s+(\S.*)$", re.S)
_LEAD_WORDS = frozenset(
    [
        "actually",
        "also",
        "and",
        "but",
        "so",
        "anyway",
        "oh",
        "well",
        "plus",
        "ok",
        "okay",
        "yes",
        "yeah",
        "fyi",
        "btw",
        "ps",
        "и",
        "а",
        "но",
        "ну",
        "ещё",
        "еще",
        "кстати",
        "вот",
        "ой",
        "да",
        "ладно",
    ]
)
_FRAMING = lx.MARKER_WORDS | lx.FILLER_WORDS | STOPWORDS


def _is_framing(text: str) -> bool:
    tokens = tokenize(text)
    return bool(tokens) and all(t in _FRAMING for t in tokens)


_ASK_TO_REMEMBER = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please )?(?:remember|note|save|keep in mind)"
    r"(?: (?:this|that))?[:,]?\s+(?:that\s+)?(?=\S)|"
    r"^(?:можешь |пожалуйста,? )?(?:запомни|запиши|учти)(?:,? пожалуйста)?[:,]?\s+(?:что\s+)?",
    re.IGNORECASE,
)


def clean_sentence(sentence: str) -> str:
    """Drop framing prefixes: "Life update:", "By the way,", "Actually", "Кстати,",
    and a request to remember ("Can you remember that ...")."""
    text = sentence.strip()
    for _ in range(6):
        m = _ASK_TO_REMEMBER.match(text)
        if m and m.end() < len(text):
            text = text[m.end() :].strip()
            continue
        m = _COLON_PREFIX.match(text)
        if m and _is_framing(m.group(1)):
            text = m.group(2).strip()
            continue
        m = _COMMA_PREFIX.match(text)
        if m and _is_framing(m.group(1)):
            text = m.group(2).strip()
            continue
        first, _, rest = text.partition(" ")
        if rest and first.lower().strip(",.!") in _LEAD_WORDS:
            text = rest.strip()
            continue
        break
    return text


_FROM_TO_EN = re.compile(
    r"\b((?:moved|shifted|changed|switched|pushed|bumped|went|rescheduled|postponed)\s+"
    r"(?:[\w:'-]+\s+){0,3}?)from\s+[^,.;]+?\s+(to)\b",
    re.I,
)
_FROM_TO_RU = re.compile(
    r"((?:перенес\w*|перенёс\w*|сдвину\w*|помен\w*|измени\w*|переехал\w*|переезжа\w*)\s+"
    r"(?:[\w-]+\s+){0,3}?)(?:с|из)\s+[^,.;]+?\s+(на|в)\b",
    re.I,
)
_INSTEAD = re.compile(r"\s*(?:\binstead of\b|\bвместо\b)\s+[^,.;]+", re.I)
#: A clause that says what stopped holding: "no longer", "Priyanka left", "sold the Fiesta",
#: "quit football", "бросил футбол", "Вероника ушла". Dropped when another clause says what
#: holds now; the old value stays in the superseded version.
_OLD_STATE = re.compile(
    r"\bno longer\b|\bnot\b.*\banymore\b|больше не\b|уже не\b|"
    r"^\s*(?!had\b|have\b)(?:\w+\s+){0,2}?(?:left|quit|sold)\b|^\s*(?:i|we|he|she)\s+(?:quit|sold)\b|"
    r"^\s*(?:[\w-]+\s+){0,2}?(?:ушл[аи]|уш[её]л|брос(?:ил|ила|или)|продал\w*)(?!\w)",
    re.I,
)
#: What the new state is, when a sentence also says what no longer holds.
_REPLACEMENT = re.compile(
    r"\b(?:moved|switched|changed|now|instead|relocated|started|went|replaced|use|using|new|"
    r"bought|got|doing)\b|"
    r"переехал\w*|перешл\w*|перешёл|перешел|теперь|вместо|начал\w*|сейчас|купил\w*|нов\w+",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"\s*[,;]\s*|\s+(?:but|но|а)\s+", re.I)


#: "Jasper quit football": the one who stopped (Jasper) is still the subject of what follows;
#: what was stopped (football) is the old value. ("Priyanka left" names the old value itself.)
_ACTOR_STOPPED = re.compile(
    r"^\s*([A-ZА-ЯЁ][\w'-]+)\s+(?:quit|sold|gave up|брос(?:ил|ила|или)|продал\w*)\s+\w"
)  # an object must follow: in "Шахматы бросил" the first word is what was given up
_NOT_ACTORS = frozenset({"i", "we", "he", "she", "they", "я", "мы", "он", "она", "они"})
_LEAD_PRONOUN = re.compile(r"^\s*(?:he|she)(?='s\b|\b)", re.I)


def _carry_actor(actor: str, kept: list[str]) -> list[str]:
    """Name ``actor`` in the kept clauses: "he's doing judo" -> "Jasper's doing judo",
    "теперь по субботам дзюдо" -> "Святослав теперь по субботам дзюдо"."""
    first = kept[0].strip()
    if actor.lower() in first.lower():
        return kept
    if _LEAD_PRONOUN.match(first):
        return [_LEAD_PRONOUN.sub(actor, first, count=1), *kept[1:]]
    return [f"{actor} {first[:1].lower()}{first[1:]}", *kept[1:]]


def drop_superseded_values(statement: str) -> str:
    """Remove the old value from a correction ("moved from X to Y" -> "moved to Y")."""
    text = _FROM_TO_EN.sub(r"\1\2", statement)
    text = _FROM_TO_RU.sub(r"\1\2", text)
    text = _INSTEAD.sub("", text)
    clauses = [c for c in _CLAUSES.split(text) if c and c.strip()]
    kept = [c for c in clauses if not _OLD_STATE.search(c)]
    replaced = bool(kept) and bool(_REPLACEMENT.search(" ".join(kept)))
    if len(kept) < len(clauses) and replaced and _content_tokens(" ".join(kept)):
        actor = next((m.group(1) for c in clauses if (m := _ACTOR_STOPPED.match(c))), None)
        if actor is not None and actor.lower() not in _NOT_ACTORS:
            kept = _carry_actor(actor, kept)
        text = ", ".join(k.strip() for k in kept)
        if statement.rstrip()[-1:] in ".!" and text[-1:] not in ".!":
            text += statement.rstrip()[-1]
    return text.strip()


def _normalise(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    return text[:1].upper() + text[1:] if text else text


# -- subjects ---------------------------------------------------------------------------

_MENTION_EN = re.compile(
    rf"\b(?i:my|our|a|an)\s+(?P<rel>(?i:{lx.REL_ALT}))\b(?:\s+(?P<name>[A-Z][\w-]+))?", re.UNICODE
)
_MENTION_RU = re.compile(
    rf"(?P<rel>\b(?i:{lx.REL_ALT}))\b(?:\s+(?P<name>[А-ЯЁ][а-яё-]+))?", re.UNICODE
)


def _party(rel_word: str, name: str | None) -> Party | None:
    found = lx.relation_of(rel_word)
    if found is None:
        return None
    canon, kind = found
    clean_name = (name or "").strip("'’").removesuffix("'s")
    return Party(canon, kind, clean_name)


def detect_subject(cleaned: str, focus: Party | None) -> tuple[Party | None, bool]:
    """(party the sentence is about or None for the user, whether a pronoun led it)."""
    if lx.WITH_SELF.search(cleaned):
        return None, False
    if lx.PRONOUN_LEAD.match(cleaned) and focus is not None:
        return focus, True
    stranger = lx.STRANGER.match(cleaned)
    if stranger is not None:
        who = next(g for g in stranger.group("who", "who2", "who3") if g)
        return Party("other", "person", who.lower()), False
    for pattern in (lx.SUBJECT_EN, lx.SUBJECT_RU_GEN, lx.SUBJECT_RU_NOM):
        m = pattern.match(cleaned)
        if m:
            party = _party(m.group("rel"), m.group("name"))
            if party is not None:
                return party, False
    return None, False


def mentioned_parties(text: str) -> list[Party]:
    """People and pets named anywhere in ``text`` ("my dog Pepper", "у дочки Вари")."""
    out: list[Party] = []
    for pattern in (_MENTION_EN, _MENTION_RU):
        for m in pattern.finditer(text):
            if pattern is _MENTION_RU and not re.search(r"[а-яё]", m.group("rel"), re.I):
                continue  # an English relation needs "my"/"a" before it ("neighbour's toddler")
            party = _party(m.group("rel"), m.group("name"))
            if party is not None and party not in out:
                out.append(party)
    return out


# -- scoring ----------------------------------------------------------------------------


@dataclass
class _Sentence:
    text: str
    cleaned: str
    signals: set[str]
    score: float
    category: str
    subject: Party | None
    pronoun_led: bool
    event: DateRange | None
    has_time: bool


def _signals(text: str) -> set[str]:
    lowered = text.lower()
    found = {s.name for s in lx.SIGNALS if s.pattern.search(lowered)}
    # A standing instruction: words about replies plus an imperative or a preference.
    if lx.RESPONSE_WORDS.search(lowered) and (
        lx.IMPERATIVE.search(lowered) or "preference" in found
    ):
        found.add("instruction")
    trait = lx.TRAIT.match(lowered)
    if trait and trait.group("word") not in lx.PASSING_STATES | STOPWORDS | lx.FILLER_WORDS:
        found.add("trait")
    return found


#: Signals computed from several patterns: name -> (category, score).
_COMPUTED = {
    "instruction": ("instruction", lx.INSTRUCTION_SCORE),
    "trait": ("identity", 0.8),  # "I'm colorblind", "Я левша"
    "dated": ("plan", 0.7),  # a statement with a calendar date
}
_SCORES = {s.name: s.score for s in lx.SIGNALS} | {k: v[1] for k, v in _COMPUTED.items()}
_CATEGORIES = {s.name: s.category for s in lx.SIGNALS} | {k: v[0] for k, v in _COMPUTED.items()}


def _score(signals: set[str], *, dated: bool, first_person: bool, pronoun_led: bool) -> float:
    scores = _SCORES
    best = 0.0
    for name in signals:
        value = scores[name]
        if name == "plan_noun" and not (dated or first_person):
            continue
        if name == "plan_noun":
            value = 0.6
        if name in ("plan", "plan_noun") and dated:
            value += 0.15
        if name == "correction" and len(signals) == 1:
            value = 0.6
        best = max(best, value)
    if pronoun_led and best < 0.6:
        best = 0.6  # "He eats only wet food" about the cat named just before
    return min(best, 1.0)


def _category(signals: set[str], *, dated: bool) -> str:
    cats = {_CATEGORIES[name] for name in signals if _CATEGORIES.get(name)}
    if "plan_noun" in signals and not dated and "plan" not in signals:
        cats.discard("plan")
    if "plan" in cats and not dated and "routine" in cats:
        cats.discard("plan")
    for name in lx.CATEGORY_PRIORITY:
        if name in cats:
            return name
    return "plan" if dated else "fact"


def _slot(cleaned: str, subject: Party | None) -> str | None:
    lowered = cleaned.lower()
    if subject is not None:
        if subject.kind == "person" and re.search(
            r"birthday|b-?day|\bturn(?:s|ing) \d+|день рождения|исполни\w+ \d+|юбиле\w*|"
            r"anniversary",
            lowered,
        ):
            return "birthday"
        return None
    for name, pattern in lx.SLOTS:
        if pattern.search(lowered):
            return name
    m = lx.ALLERGY.search(lowered)
    if m:
        word = m.group("en") or m.group("en2") or m.group("ru") or ""
        if word and word not in STOPWORDS and word not in {"severe", "mild", "food", "bad"}:
            return f"allergy:{_stem(word)}"
    return None


def _analyse_sentence(raw: str, focus: Party | None, ref: date) -> _Sentence:
    cleaned = clean_sentence(raw)
    signals = _signals(raw) | _signals(cleaned)
    subject, pronoun_led = detect_subject(cleaned, focus)
    event = find_date_range(cleaned, ref)
    question = asks(cleaned)
    if (event is not None or _CLOCK.search(cleaned)) and not question:
        signals.add("dated")  # a calendar date or a clock time is worth remembering
    elif not question and (
        _DAY_OF_MONTH.search(cleaned)
        or (has_time_value(cleaned) and signals & {"first_person", "possession"})
    ):
        signals.add("routine")  # "I teach piano on Tuesdays", "зарплата 5-го числа"
    timed = has_time_value(cleaned)
    first_person = "first_person" in signals or "possession" in signals
    score = _score(
        signals,
        dated=event is not None or timed,
        first_person=first_person,
        pronoun_led=pronoun_led and len(_content_tokens(cleaned)) >= 3,
    )
    category = _category(signals, dated=event is not None or timed)
    return _Sentence(raw, cleaned, signals, score, category, subject, pronoun_led, event, timed)


#: ``classify(sentences)`` -> (keep probability, kept) per sentence.
Classify = Callable[[Sequence[str]], list[tuple[float, bool]]]


def analyze_turn(
    text: str,
    *,
    ref: date,
    focus: Party | None = None,
    config: MemoryConfig | None = None,
    classify: Classify | None = None,
    known: Sequence[Party] = (),
) -> TurnAnalysis:
    """Score a user turn and extract candidate facts.

    ``focus`` is the person a pronoun at the start of this turn refers to (the last
    one named in the same session); ``ref`` resolves dates without a year.

    With ``classify`` (capture's learned classifier), the classifier decides keep or
    drop: a sentence about the user that the rules score below the keep threshold is
    kept when the classifier keeps it, and one the rules keep is dropped when its
    probability is under ``classifier_drop_below`` ("let me sleep on it"). The
    rules still name the category, subject and dates, and still refuse questions and
    "don't remember this". ``known`` are the people and pets the user's stored facts
    name: a sentence naming one of them ("Eliot's inhaler is blue") is about them.
    """
    cfg = config or MemoryConfig()
    facts: list[CandidateFact] = []
    borderline: list[str] = []
    all_signals: set[str] = set()
    best = 0.0
    carried: set[str] = set()
    forget = False
    previous_kept = False
    sentences = list(dict.fromkeys(text[a:b] for a, b in split_chat_sentences(text)))
    seen: set[str] = set()
    unique: list[str] = []
    for raw in sentences:
        said = " ".join(raw.casefold().split())
        if said not in seen:  # a repeated sentence is one fact, reinforced at most once
            seen.add(said)
            unique.append(raw)
    verdicts = dict(zip(unique, classify(unique), strict=True)) if classify and unique else {}
    for raw in unique:
        if lx.FORGET_REQUEST.search(raw):
            forget = True
            previous_kept = False
            continue
        sent = _analyse_sentence(raw, focus, ref)
        verdict = verdicts.get(raw)
        sure = verdict is not None and verdict[0] >= cfg.classifier_sure_above
        if sure and asks(sent.cleaned):
            # "I just moved to Tomsk, so how do I ...?": the statement before the question
            told = _MIXED.match(raw)
            if told is not None and not asks(told.group("told")):
                sent = _analyse_sentence(told.group("told"), focus, ref)
        content = _content_tokens(sent.cleaned)
        if not content:  # "Опять перенесли!", "Remember this!": the signal applies onward
            carried |= sent.signals & {"explicit", "correction", "decision"}
            continue
        if asks(sent.cleaned) and "explicit" not in sent.signals:
            previous_kept = False
            continue
        if "explicit" not in sent.signals and (
            lx.HYPOTHETICAL.search(raw)
            or lx.NONCOMMITTAL.search(raw)
            or lx.REPORTED.search(raw)
            or _hearsay(raw)
        ):
            previous_kept = False  # a supposition, a non-answer or hearsay is nobody's fact
            continue
        signals = sent.signals | carried
        carried = set()
        if signals != sent.signals:
            sent.score = max(
                sent.score,
                _score(
                    signals, dated=sent.event is not None, first_person=False, pronoun_led=False
                ),
            )
        all_signals |= signals
        best = max(best, sent.score)
        for party in mentioned_parties(sent.cleaned)[:1]:
            focus = party
        if sent.subject is not None and sent.subject.relation != "other":
            focus = sent.subject
        if sent.pronoun_led and previous_kept and facts:
            facts[-1] = _merge(facts[-1], sent, signals)
            continue
        if sent.subject is None and not speaks_of_self(raw):
            sent.subject = _known_party(raw, known)
        if verdict is not None:
            probability, kept = verdict
            weak = not signals & _RULES_DECIDE
            if sent.score >= cfg.keep_threshold and (
                (weak and probability < cfg.classifier_drop_below)
                # a question or a task without "?" ("is pollen allergy common in kids",
                # "write a message for someone turning 40"): the classifier's drop wins
                or (
                    probability < cfg.classifier_sure_above
                    and "instruction" not in signals
                    and _asks_or_tasks(sent.cleaned)
                )
            ):
                previous_kept = False  # looks like a fact to the rules, is not one
                continue
            if (
                sent.score < cfg.keep_threshold
                and kept
                and "event" not in signals  # what happened stays borderline (fleeting)
                and not lx.OPINION.search(sent.cleaned)
                and (
                    _about_users_own(raw, sent.subject, known)
                    or (sure and _names_nobody_else(sent))
                )
            ):
                sent.score = max(sent.score, cfg.keep_threshold, round(probability, 3))
                signals = signals | {"classifier"}
        if sent.score < cfg.keep_threshold:
            if sent.score >= cfg.borderline_threshold:
                borderline.append(sent.cleaned)
            previous_kept = False
            continue
        facts.append(_candidate(sent, signals))
        previous_kept = True
    if facts:
        decision: Decision = "keep"
    elif borderline:
        decision = "borderline"
    else:
        decision = "drop"
    return TurnAnalysis(
        decision=decision,
        score=round(best, 3),
        signals=tuple(sorted(all_signals)),
        facts=tuple(facts),
        borderline=tuple(borderline),
        forget_requested=forget,
        focus=focus,
    )


#: Signals the rules decide alone: an explicit "remember", a reply instruction, health,
#: identity, a correction, a decision (the labelled turns have too few of them).
_RULES_DECIDE = frozenset(
    {"explicit", "instruction", "health", "identity", "correction", "decision"}
)

#: The user, or the user's own people, pets and things, in the sentence: every case of
#: the Russian first-person pronouns and possessives ("Нашему псу четыре", "живёт с нами").
_ABOUT_SELF = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b|"
    r"(?<!\w)(?:я|мне|меня|мной|мною|мы|нас|нам|нами|"
    r"мой|моя|моё|мое|мои|моего|моей|моему|моих|мою|моим|моими|моём|моем|"
    r"наш|наша|наше|наши|нашего|нашей|нашему|наших|нашу|нашим|нашими|нашем)(?!\w)",
    re.IGNORECASE,
)


#: A statement, then a question or a task joined on ("..., so what ...?", "..., поэтому объясни").
_MIXED = re.compile(
    r"^(?P<told>.+?)(?:[,;(]\s*|\s+)(?:and so|so|and|but|поэтому|так что|и вот ещё:?|а)\s+"
    r"(?P<ask>.+\?[\W_]*)$",
    re.IGNORECASE | re.DOTALL,
)


def _names_nobody_else(sent: _Sentence) -> bool:
    """No one but the speaker in the sentence: no person, stranger or hearsay named."""
    return (
        sent.subject is None
        and not mentioned_parties(sent.cleaned)
        and not lx.STRANGER.search(sent.cleaned)
        and not lx.HEARSAY.search(sent.text)
    )


_QUESTION_END = re.compile(r"\?[\W_]*$")


def asks(sentence: str) -> bool:
    """Whether ``sentence`` ends in a question mark (emoticons after it included: "?)))")."""
    return bool(_QUESTION_END.search(sentence))


def _asks_or_tasks(sentence: str) -> bool:
    return bool(lx.QUESTION_LEAD.search(sentence) or lx.REQUEST.search(sentence))


def _hearsay(raw: str) -> bool:
    """Hearsay about nobody of the user's ("Говорят, один певец переехал в Самару")."""
    m = lx.HEARSAY.search(raw)
    return m is not None and not speaks_of_self(raw[m.end() :])


def speaks_of_self(text: str) -> bool:
    """Whether ``text`` names the user or the user's own ("I", "my", "наш"), or has a
    Russian verb in the first person, whose ending names the user ("Пью варфарин")."""
    return bool(_ABOUT_SELF.search(text)) or first_person_verb(text)


def _about_users_own(raw: str, subject: Party | None, known: Sequence[Party]) -> bool:
    """Whether a sentence is about the user or the user's people and pets: it speaks of
    the user, leads with a relative or pet ("Мама живёт в Сочи", "Дедушке 94"), or
    names someone the user's facts already name ("Eliot's inhaler is blue")."""
    if speaks_of_self(raw):
        return True
    if (
        subject is not None
        and subject.relation in lx.FAMILY_RELATIONS | {"dog", "cat", "pet"}
        and not _OWNED_BY_ANOTHER.match(clean_sentence(raw))
    ):
        return True
    return _known_party(raw, known) is not None


#: A relative or pet of someone else's ("Попугай подруги", "Сын соседки", "Dad's friend"):
#: the relation word is followed by another person's.
_OWNED_BY_ANOTHER = re.compile(
    rf"^\W*(?:{lx.REL_ALT})(?:'s)?\s+(?:{lx.REL_ALT})\b", re.IGNORECASE | re.UNICODE
)


def _known_party(raw: str, known: Sequence[Party]) -> Party | None:
    """The first of the user's named people or pets that ``raw`` names, by name stem."""
    if not known:
        return None
    stems = {_stem(t) for t in tokenize(raw)}
    for party in known:
        if party.name and _stem(party.name.lower()) in stems:
            return party
    return None


def _mentions(text: str) -> tuple[str, ...]:
    terms: list[str] = []
    for party in mentioned_parties(text):
        for term in party.terms:
            if term not in terms:
                terms.append(term)
    return tuple(terms)


def _candidate(sent: _Sentence, signals: set[str]) -> CandidateFact:
    correction = "correction" in signals
    statement = drop_superseded_values(sent.cleaned) if correction else sent.cleaned
    match_text = sent.cleaned
    explicit = "explicit" in signals
    subject = sent.subject
    if subject is None and statement != sent.cleaned:
        # "Priyanka left, my new boss is Tomasz": what holds now is about the boss
        subject = detect_subject(statement, None)[0]
    return CandidateFact(
        statement=_normalise(statement),
        category=sent.category,
        pinned=explicit or sent.category in PINNED_BY_DEFAULT,
        score=round(sent.score, 3),
        signals=tuple(sorted(signals)),
        slot=_slot(sent.cleaned, subject),
        subject=subject,
        mentions=_mentions(sent.cleaned),
        event=sent.event,
        has_time=sent.has_time,
        correction=correction,
        explicit=explicit,
        match_text=match_text,
        said=sent.text,
    )


def _merge(fact: CandidateFact, sent: _Sentence, signals: set[str]) -> CandidateFact:
    """Append a pronoun-led sentence ("His name is Biscuit") to the fact it continues."""
    merged_signals = set(fact.signals) | signals
    ranks = {c: i for i, c in enumerate(lx.CATEGORY_PRIORITY)}
    category = min((fact.category, sent.category), key=lambda c: ranks.get(c, 99))
    statement = f"{fact.statement.rstrip()} {_normalise(sent.cleaned)}"
    return replace(
        fact,
        statement=statement,
        category=category,
        pinned=fact.pinned or category in PINNED_BY_DEFAULT,
        score=max(fact.score, round(sent.score, 3)),
        signals=tuple(sorted(merged_signals)),
        mentions=_mentions(statement),
        event=fact.event or sent.event,
        has_time=fact.has_time or sent.has_time,
    )
