"""The guarded answer loop: gate -> tool-less answer -> citation check -> honest refusal.

Each stage is a separate part (``gate.py``, ``prompting.py``/``extractive.py``,
``verify.py``); this module only runs them in order. What the caller gets is an
:class:`Answer` whose every claim rests on at least one quote *located* in the
cited chunk, or a :class:`Refusal` — a value, not an exception. The LLM sees the
retrieved passages and nothing else: no tools are ever passed to it.

Remembered facts may be added as evidence (``ask(..., memory_facts=...)``): they
are shown in their own labelled section, quotes from them are verified against
the stored fact text, and they are reported apart from document citations (see
:mod:`memo_core.answer.evidence`). Document quotes are checked exactly as before.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memo_core.answer.evidence import (
    MemoryEvidence,
    as_memory_evidence,
    memory_citation,
    with_memory_passages,
)
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.faithfulness import unfaithful
from memo_core.answer.fields import asked_subjects, field_off_question, fields_off_question
from memo_core.answer.gate import SufficiencyGate, neighbourhood
from memo_core.answer.grounding import is_grounded
from memo_core.answer.passages import DocumentReader, Passage, sections, whole_sentences
from memo_core.answer.prompting import (
    ParsedAnswer,
    build_answer_messages,
    build_repair_messages,
    parse_answer,
)
from memo_core.answer.repairs import corrected
from memo_core.answer.respell import respelled
from memo_core.answer.salience import hit_evidence, missing_terms
from memo_core.answer.semantic import SentenceSimilarity
from memo_core.answer.sentences import sentence_around, split_sentences
from memo_core.answer.types import (
    Answer,
    AnswerResult,
    Citation,
    Claim,
    GateDecision,
    QuoteCheck,
    Refusal,
    RelatedPassage,
)
from memo_core.answer.verify import CitationVerifier
from memo_core.answer.windows import (
    asked_superlatives,
    asks_for_exception,
    asks_for_number,
    asks_for_place,
    asks_negated,
    diversify,
    holds_asked_number,
    named_documents,
    names_exception,
    names_place,
    states_asked_default,
    states_negation,
    states_superlative,
)
from memo_core.errors import AnswerFormatError, ConfigError, InvalidInputError
from memo_core.kb.flags import INSTRUCTIONS, instruction_spans
from memo_core.llm.base import LLM, supports_json_mode
from memo_core.types import Hit, SearchMode

if TYPE_CHECKING:
    from memo_core.kb.base import MemoBase

__all__ = ["Explanation", "GuardedAnswerer"]

log = logging.getLogger(__name__)

NOT_IN_BASE = "The answer is not in the knowledge base."


@dataclass
class Explanation:
    """What ``--explain`` shows: candidates, the gate's decision and every quote check."""

    question: str
    candidates: list[dict[str, Any]] = field(default_factory=list)
    gate: GateDecision | None = None
    llm_replies: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    #: The question as the gate and the picker read it, when some word of it is spelled
    #: otherwise in the passages found (``answer/respell.py``).
    respelled: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "respelled": self.respelled,
            "candidates": self.candidates,
            "gate": self.gate.to_dict() if self.gate else None,
            "llm_replies": self.llm_replies,
            "checks": self.checks,
        }


class GuardedAnswerer:
    """Answers questions from a :class:`~memo_core.kb.base.MemoBase`, quoting or refusing.

    ``llm=None`` selects extractive mode: the answer is the best-matching sentences
    of the top chunks, each a verified quote.
    """

    def __init__(
        self,
        kb: MemoBase,
        llm: LLM | None = None,
        *,
        gate: SufficiencyGate | None = None,
        verifier: CitationVerifier | None = None,
        k: int = 5,
        mode: SearchMode | str = SearchMode.HYBRID,
        max_sentences: int = 2,
    ) -> None:
        self.kb = kb
        self.llm = llm
        self.gate = gate or SufficiencyGate()
        self.verifier = verifier or CitationVerifier()
        self.k = k
        self.mode = mode
        self.max_sentences = max_sentences
        # Sentence-level similarity with the base's own embedder (the gate's features);
        # the base keeps the sentence vectors, so a question asked again embeds none.
        embedder = getattr(kb, "embedder", None)
        store = getattr(kb, "sentence_vectors", None)
        self.similarity = (
            SentenceSimilarity(embedder, store=store) if embedder is not None else None
        )

    def ask(
        self,
        question: str,
        *,
        k: int | None = None,
        collection: str | Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        owner: str | None = None,
        explanation: Explanation | None = None,
        memory_facts: Sequence[Any] | None = None,
    ) -> AnswerResult:
        """An :class:`Answer` with verified citations, or a :class:`Refusal`.

        ``memory_facts`` (MemoHood ``Fact`` values, :class:`MemoryEvidence` or
        strings) are extra, clearly labelled evidence: quotable as memory
        (``Answer.memory_citations``, ``[m1]`` markers), never as documents. When
        the sufficiency gate finds no answer in the base, the documents are not
        shown and only the memory facts may be quoted; with no memory facts that
        is a :class:`Refusal`, as before.
        """
        if not isinstance(question, str) or not question.strip():
            raise InvalidInputError("the question is empty")
        evidence = as_memory_evidence(memory_facts)
        hits = self.retrieve(question, k=k, collection=collection, filter=filter, owner=owner)
        # The gate and the picker weigh the terms a passage holds: they read the question
        # in the passages' spelling ("licence" asked of a text saying "License").
        spelled = respelled(question, [h.text for h in hits])
        if spelled != question:
            # Searched in the passages' own words, the passage that says them ranks where
            # it should ("exit status" finds the EXIT STATUS section "exit code" missed).
            hits = self.retrieve(spelled, k=k, collection=collection, filter=filter, owner=owner)
        searched = sorted({h.title or h.source or h.document_id for h in hits})
        found = list(hits)
        decision = self.gate.decide(
            spelled, hits, self.kb.store, self.similarity, self._reader(owner)
        )
        if explanation is not None:
            explanation.gate = decision
            explanation.respelled = spelled if spelled != question else None
            explanation.candidates = [
                {
                    "n": i,
                    "chunk_id": h.chunk_id,
                    "source": h.source,
                    "locator": h.locator,
                    "score": h.score,
                    "vector_similarity": h.vector_similarity,
                    "keyword_rank": h.keyword_rank,
                    "vector_rank": h.vector_rank,
                    "text": h.text[:300],
                }
                for i, h in enumerate(hits, start=1)
            ]
        if not decision.passed:
            if not evidence:
                return Refusal(
                    f"{NOT_IN_BASE} (the best match scored {decision.score:.2f}, below the "
                    f"sufficiency threshold {decision.threshold:.2f})",
                    decision.score,
                    searched,
                    _related(found),
                )
            hits = []  # the base holds no answer: only the memory facts may be quoted
        # What is quoted and shown is a whole sentence of the document, also where the
        # chunk cut it at an edge.
        passages = self._passages(hits, owner)
        passed_over: list[str] = []  # record fields the pick passed over (extractive)
        subjects = asked_subjects(spelled, (p.hit for p in passages))
        if self.llm is None:
            # The pick reads the question as its asker meant it: the words taken back in
            # "What does the mill grind, no, who rebuilt it?" would draw the quote
            # (``repairs.py``). The gate keeps them: they name the passage's topic.
            claims = self._extractive_claims(
                corrected(spelled), passages, explanation, evidence, passed_over, subjects
            )
            unsupported: tuple[str, ...] = ()
        else:
            parsed = self._ask_llm(question, passages, explanation, evidence)
            claims = self._verified_claims(parsed, passages, explanation, evidence)
            # Model-written too: keep only the parts that restate the question.
            unsupported = tuple(
                u for u in (parsed.unsupported if parsed else ()) if is_grounded(u, [question])
            )
        if not claims and passed_over:
            return Refusal(
                f"{NOT_IN_BASE} (the record fields found do not name what the question asks)",
                decision.score,
                searched,
                _related(found),
            )
        if not claims:
            where = " or in the memory facts given" if evidence else ""
            return Refusal(
                f"{NOT_IN_BASE} (no statement could be backed by a verified quote{where})",
                decision.score,
                searched,
                _related(found),
            )
        # Asked for a default, a quote that states none says what the setting does, not
        # what it is when unset; the quotes that do state one must name what the question
        # names (below), or it is another setting's default. ("The default, no, the
        # maximum" asks for no default: the question as its asker meant it.)
        asked = corrected(question)
        stating = [
            claim
            for claim in claims
            if claim.memory_only
            or states_asked_default(asked, " ".join(c.sentence for c in claim.citations))
        ]
        if not stating:
            return Refusal(
                f"{NOT_IN_BASE} (the passages found state no default)",
                decision.score,
                searched,
                _related(found),
            )
        claims = stating
        # A record's fields all share its subject's name with the question: a quote of
        # fields that holds nothing else the question asks by is another field's value
        # ("Name: heronlog" for "Who maintains heronlog?").
        claims = [
            claim
            for claim in claims
            if claim.memory_only
            or not fields_off_question(
                spelled, [c for c in claim.citations if not c.is_memory], subjects
            )
        ]
        if not claims:
            return Refusal(
                f"{NOT_IN_BASE} (the record fields found do not name what the question asks)",
                decision.score,
                searched,
                _related(found),
            )
        read, hits = self._reader(owner), [p.hit for p in passages]
        # A statement whose own passages do not name what the question names (a fee
        # quoted from another product's page beside the right one) is about something
        # else: it goes, when another statement does name it.
        # In the passages' spelling: "the Apache Licence" names no term a text saying
        # "License" lacks.
        on_topic = [
            claim
            for claim in claims
            if claim.memory_only
            or not _missing_terms(
                spelled, [c for c in claim.citations if not c.is_memory], hits, read
            )
        ]
        claims = on_topic or claims
        # What the question asks for by its kind (a number, a place), the statements
        # left must hold: those that do not are on its topic and leave its answer out
        # ("it retries on failure", "Name: heron").
        lacking = _lacking_kind(asked, claims)
        if lacking:
            return Refusal(
                f"{NOT_IN_BASE} (the passages found {lacking})",
                decision.score,
                searched,
                _related(found),
            )
        all_cited = [c for claim in claims for c in claim.citations]
        citations = [c for c in all_cited if not c.is_memory]
        remembered = [c for c in all_cited if c.is_memory]
        # No statement names it alone: the quotes together still may ("Who wrote X in
        # 1911?", the name in one quote and the year in the other).
        missing = [] if on_topic else _missing_terms(spelled, citations, hits, read)
        if missing and not remembered:
            # The passages quoted are about something else (another version, product,
            # party): a true quote answering another question is still a false answer.
            return Refusal(
                f"{NOT_IN_BASE} (the passages found do not mention {', '.join(missing)})",
                decision.score,
                searched,
                _related(found),
            )

        def marker(c: Citation) -> str:
            return f"[m{_ref(remembered, c)}]" if c.is_memory else f"[{_ref(citations, c)}]"

        text = (
            " ".join(
                f"{claim.text} " + "".join(marker(c) for c in claim.citations) for claim in claims
            )
            .replace("  ", " ")
            .strip()
        )
        return Answer(
            text, citations, decision.score, claims, unsupported, memory_citations=remembered
        )

    def retrieve(
        self,
        question: str,
        *,
        k: int | None = None,
        collection: str | Sequence[str] | None = None,
        filter: Mapping[str, Any] | None = None,
        owner: str | None = None,
    ) -> list[Hit]:
        """The hits an answer reads: the best ``k``, at most two per document unless the
        question names the document."""
        want = k or self.k
        # The gate compares the question with sentences by this same vector: embed it once.
        query_vector = None
        if self.similarity is not None and self.mode != SearchMode.KEYWORD and self.kb.has_vectors:
            query_vector = self.similarity.query_vector(question)
        hits = self.kb.search(
            question,
            k=want * 2,  # a deeper pool, so diversifying by document still fills k
            mode=self.mode,
            collection=collection,
            filter=filter,
            owner=owner,
            query_vector=query_vector,
        )
        return diversify(hits, want, uncapped=named_documents(question, hits))

    # -- stage 2: the answer ----------------------------------------------

    def _reader(self, owner: str | None) -> DocumentReader | None:
        """The base's documents as a :data:`DocumentReader` (``None`` when it keeps none)."""
        read = getattr(self.kb, "document_slice", None)
        if read is None:
            return None
        return lambda doc, a, b: read(doc, a, b, owner=owner)

    def _passages(self, hits: Sequence[Hit], owner: str | None) -> list[Passage]:
        """The hits widened to whole sentences of their documents (``passages.py``)."""
        return whole_sentences(hits, self._reader(owner))

    def _extractive_claims(
        self,
        question: str,
        passages: Sequence[Passage],
        explanation: Explanation | None,
        evidence: Sequence[MemoryEvidence] = (),
        passed_over: list[str] | None = None,
        subjects: frozenset[str] = frozenset(),
    ) -> list[Claim]:
        """The picked sentences as claims, each checked against its passage; the record
        fields passed over as answering nothing asked (of ``subjects``, the documents the
        question names, when it names one) are added to ``passed_over``."""
        # Memory facts compete as passages after the documents, under keys no chunk id has.
        remembered = {f"\x00memory:{i}": e for i, e in enumerate(evidence)}
        # A chunk that addresses an AI assistant with instructions is never the answer.
        passages = [p for p in passages if INSTRUCTIONS not in p.hit.flags]
        by_id = {p.hit.chunk_id: p for p in passages}

        def answers(chunk_id: str, start: int, end: int) -> bool:
            # A record's field that says nothing the question asks beyond its subject's
            # name ("Name: heronlog" for "Who wrote heronlog?") gives way to the next
            # candidate; the quotes picked are checked once more below all the same.
            if chunk_id not in by_id:
                return True  # a memory fact
            hit = by_id[chunk_id].hit
            sentence = hit.text[start:end]
            if field_off_question(
                question, sentence, title=hit.title, source=hit.source, subjects=subjects
            ):
                if passed_over is not None:
                    passed_over.append(sentence)
                return False
            return True

        picked = extractive_answer(
            question,
            [(p.hit.chunk_id, p.hit.text) for p in passages]
            + [(key, e.text) for key, e in remembered.items()],
            max_sentences=self.max_sentences,
            similarity=self.similarity,
            stored={p.hit.chunk_id: (p.head, p.head + p.length) for p in passages},
            keep=answers,
            reader=self.gate.passage_reader(self.kb.store),
            sections=sections(p.hit for p in passages),
        )
        claims = []
        for chunk_id, start, end in picked:
            if chunk_id in remembered:
                fact = remembered[chunk_id]
                quote = fact.text[start:end].strip()
                citation = self._check_memory(quote, fact, explanation)
            else:
                passage = by_id[chunk_id]
                quote = passage.hit.text[start:end].strip()
                citation = self._check(quote, passage, explanation)
            if citation is not None:
                claims.append(Claim(quote, (citation,)))
        return claims

    def _ask_llm(
        self,
        question: str,
        passages: Sequence[Passage],
        explanation: Explanation | None,
        evidence: Sequence[MemoryEvidence] = (),
    ) -> ParsedAnswer | None:
        if self.llm is None:
            raise ConfigError(
                "a model-written answer needs an llm; without one, answers are extractive"
            )
        hits = [p.hit for p in passages]
        quarantined = {i for i, h in enumerate(hits, start=1) if INSTRUCTIONS in h.flags}
        messages = build_answer_messages(question, [h.text for h in hits], quarantined=quarantined)
        messages = with_memory_passages(messages, evidence, first=len(hits) + 1)
        json_mode = supports_json_mode(self.llm)
        reply = self.llm.complete(messages, json_mode=json_mode)
        if explanation is not None:
            explanation.llm_replies.append(reply)
        try:
            return parse_answer(reply)
        except AnswerFormatError as exc:
            log.info("answer did not parse (%s); one repair retry", exc)
            repair = build_repair_messages(reply, exc, original=messages)
            reply = self.llm.complete(repair, json_mode=json_mode)
            if explanation is not None:
                explanation.llm_replies.append(reply)
            try:
                return parse_answer(reply)
            except AnswerFormatError:
                return None

    # -- stage 3: the citation check --------------------------------------

    def _check(
        self, quote: str, passage: Passage, explanation: Explanation | None
    ) -> Citation | None:
        """The citation of ``quote`` if it verifies in the passage (the chunk widened to
        whole sentences), its span relative to the chunk's own start."""
        hit = passage.hit
        check: QuoteCheck = self.verifier.check(quote, hit.text)
        if explanation is not None:
            explanation.checks.append({"chunk_id": hit.chunk_id, "quote": quote, **check.to_dict()})
        if not check.verified or check.start is None or check.end is None:
            return None
        a, b = sentence_around(hit.text, check.start, check.end)
        return Citation(
            quote=hit.text[check.start : check.end],
            sentence=hit.text[a:b],
            chunk_id=hit.chunk_id,
            document_id=hit.document_id,
            source=hit.source,
            start=check.start - passage.head,
            end=check.end - passage.head,
            title=hit.title,
            locator=dict(hit.locator),
            chunk_start=passage.chunk_start,
            method=check.method or "exact",
            similarity=check.similarity,
        )

    def _check_memory(
        self, quote: str, fact: MemoryEvidence, explanation: Explanation | None
    ) -> Citation | None:
        """The same verifier, against the stored fact text instead of a chunk."""
        check = self.verifier.check(quote, fact.text)
        if explanation is not None:
            explanation.checks.append(
                {"chunk_id": fact.id, "memory": True, "quote": quote, **check.to_dict()}
            )
        return memory_citation(fact, check)

    def _verified_claims(
        self,
        parsed: ParsedAnswer | None,
        passages: Sequence[Passage],
        explanation: Explanation | None,
        evidence: Sequence[MemoryEvidence] = (),
    ) -> list[Claim]:
        if parsed is None:
            return []
        claims = []
        hits = [p.hit for p in passages]
        for claim in parsed.claims:
            citations = []
            for cited in claim.citations:
                if 1 <= cited.passage <= len(hits):
                    passage = passages[cited.passage - 1]
                    citation = self._check(cited.quote, passage, explanation)
                    if citation is not None and _relays_instructions(citation, passage):
                        log.info("quote %r relays a planted instruction: dropped", cited.quote)
                        citation = None
                elif 1 <= cited.passage - len(hits) <= len(evidence):
                    fact = evidence[cited.passage - len(hits) - 1]
                    citation = self._check_memory(cited.quote, fact, explanation)
                else:
                    continue  # a passage the model was never shown
                if citation is not None:
                    citations.append(citation)
            if citations and not instruction_spans(claim.text):
                # A claim with no verified quote, or one that passes on an instruction
                # to the reader, is dropped whole.
                text = _strip_markers(claim.text)
                quotes = [c.quote for c in citations]
                failure = (
                    None if is_grounded(text, quotes) else "the claim says more than its quotes"
                ) or unfaithful(text, quotes)
                if failure:
                    # The wording says more than its quotes, or something else (an obeyed
                    # injection, a dropped "not", a swapped party): what is verified is
                    # the quotes, so they are the claim (each citation carries its
                    # whole source sentence for display).
                    log.info("claim %r replaced by its quotes: %s", text, failure)
                    if explanation is not None:
                        explanation.checks.append(
                            {"claim": text, "faithful": False, "reason": failure}
                        )
                    text = " ".join(dict.fromkeys(c.quote for c in citations))
                claims.append(Claim(text, tuple(citations)))
        return claims


#: How many nearby passages a refusal offers, and how long each may be.
RELATED_PASSAGES = 3
RELATED_CHARS = 300


def _lacking_kind(asked: str, claims: Sequence[Claim]) -> str | None:
    """What none of ``claims`` holds of the kind ``asked`` asks for: "state no number"
    (how many, which version, what year), "name no place" (where), "name no exception"
    (which exception is raised), "state no negation" (which X is not Y), "say nothing of
    the quality asked for" (which is the fastest); None when one does or the question
    asks for no such kind. A statement from memory is taken as given."""

    def any_claim(holds: Callable[[str], bool]) -> bool:
        return any(
            claim.memory_only or holds(" ".join(c.sentence for c in claim.citations))
            for claim in claims
        )

    if asks_for_number(asked) and not any_claim(lambda text: holds_asked_number(asked, text)):
        return "state no number"
    if asks_for_place(asked) and not any_claim(names_place):
        return "name no place"
    if asks_for_exception(asked) and not any_claim(names_exception):
        return "name no exception"
    if asks_negated(asked) and not any_claim(states_negation):
        return "state no negation"
    superlatives = asked_superlatives(asked)
    if superlatives and not any_claim(lambda text: states_superlative(superlatives, text)):
        return "say nothing of the quality asked for"
    return None


def _related(hits: Sequence[Hit]) -> list[RelatedPassage]:
    """The nearest passages, for a refusal: whole sentences up to ``RELATED_CHARS``.

    Chunks flagged as instructions to an assistant are left out: they are not shown
    as something to read on.
    """
    out = []
    for hit in hits:
        if INSTRUCTIONS in hit.flags:
            continue
        spans = split_sentences(hit.text)
        end = next((b for _, b in reversed(spans) if b <= RELATED_CHARS), None)
        text = hit.text[: end or RELATED_CHARS].strip()
        out.append(
            RelatedPassage(text, hit.chunk_id, hit.document_id, hit.source, hit.title, hit.locator)
        )
        if len(out) == RELATED_PASSAGES:
            break
    return out


def _relays_instructions(citation: Citation, passage: Passage) -> bool:
    """Whether the quote lies in a sentence of a flagged chunk that instructs an assistant."""
    hit = passage.hit
    if INSTRUCTIONS not in hit.flags:
        return False
    quoted = (citation.start + passage.head, citation.end + passage.head)  # in hit.text
    for a, b in instruction_spans(hit.text):
        start, end = sentence_around(hit.text, a, b)
        if quoted[0] < end and start < quoted[1]:
            return True
    return False


def _missing_terms(
    question: str,
    citations: Sequence[Citation],
    hits: Sequence[Hit],
    read: DocumentReader | None = None,
) -> list[str]:
    """The question's numbers and names absent from every cited passage, its title and
    the document text around it (as the gate reads them: :func:`neighbourhood`)."""
    if not citations:
        return []
    cited = {c.chunk_id for c in citations}
    evidence = [hit_evidence(h) for h in hits if h.chunk_id in cited]
    evidence += [neighbourhood(h, read) for h in hits if h.chunk_id in cited]
    return missing_terms(question, evidence)


def _ref(citations: Sequence[Citation], citation: Citation) -> int:
    return citations.index(citation) + 1


def _strip_markers(text: str) -> str:
    """The model's own [n] markers are replaced by ours (numbered by verified citation)."""
    return re.sub(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]", "", text).strip()
