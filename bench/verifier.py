"""Citation-check benchmark: true quotes vs perturbed ones, built from ../shared/eval/qa.

    python bench/verifier.py [--limit N] [--seed S] [--qa DIR] [--out FILE]
                             [--fuzzy-threshold T]

For each answerable question, the *true* quote is the sentence of its paragraph
that contains the gold answer. From it the benchmark derives:

true quotes (should verify)
  true_sentence       the sentence, verbatim
  true_typographic    the sentence retyped: curly quotes, en dashes, case, doubled
                      spaces, soft hyphens, wrapping quote marks, no final period
  true_ocr_noise      the sentence with 1-2 OCR/transcription slips after the first letter
                      of long lower-case words (dropped, doubled or swapped letters,
                      rn<->m, e<->c, l<->i); numbers, number words, negations and
                      capitalised words are left intact, as the verifier by design
                      accepts no slip in them

perturbed quotes (must never verify)
  number_changed             one number of the sentence changed
  negation_inserted          "not" inserted after the first auxiliary verb (or before
                             the answer when there is none)
  negation_removed           a negation of the sentence removed ("not", "never", "n't"...)
  answer_swapped             the gold answer replaced by another paragraph's answer (not
                             the same answer with or without an article)
  other_paragraph_sentence   the most similar sentence of 20 other paragraphs
  truncated_two_words        two words of the sentence that are not verbatim in it
                             (one letter changed, or the word between them dropped)
  stub_words                 two or three words of the sentence starting at the answer,
                             verbatim but not a whole sentence
  cut_before_condition       a sentence of the paragraph cut right before a negation or a
                             condition ("not", "unless", "except", "provided that", "if"...),
                             with a full stop added
  word_substituted           one word of the sentence replaced by another word of the
                             corpus vocabulary one or two letters away, same first letter
                             ("shall" -> "shell", "form" -> "from")

An OCR slip that happens to spell another word of the corpus vocabulary is a
substitution, not noise, so true_ocr_noise draws another slip instead.

A perturbed quote that still occurs in the paragraph after normalisation (e.g. the
swapped answer equals the gold one) is not a perturbation and is skipped. Prints a
Markdown table and writes bench/results/verifier.json. Targets: 0 perturbed quotes
accepted, >= 99% of true quotes accepted.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from memo_core.answer.normalize import normalize
from memo_core.answer.sentences import split_sentences
from memo_core.answer.verify import NEGATIONS, NUMBER_WORDS, CitationVerifier, VerifierConfig

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_QA = ROOT.parent / "shared" / "eval" / "qa"
DEFAULT_OUT = ROOT / "bench" / "results" / "verifier.json"

TRUE_KINDS = ("true_sentence", "true_typographic", "true_ocr_noise")
FALSE_KINDS = (
    "number_changed",
    "negation_inserted",
    "negation_removed",
    "answer_swapped",
    "other_paragraph_sentence",
    "truncated_two_words",
    "stub_words",
    "cut_before_condition",
    "word_substituted",
)
# Perturbed quotes that are verbatim in the source by construction.
VERBATIM_KINDS = frozenset({"stub_words", "cut_before_condition"})
# What a cut-off quote stops before (the bench's own list, not the verifier's).
_CUT_MARKERS = re.compile(
    r"\s(?:not|no|never|unless|except|provided that|subject to|if|until|but not|"
    r"не|нет|кроме|если не|при условии)\b",
    re.IGNORECASE,
)
_AUX = re.compile(
    r"\b(is|are|was|were|can|could|will|would|should|may|might|must|has|have|had|"
    r"does|do|did)\b(?! not\b)"
)
_NEG_REMOVALS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bcannot\b", re.I), "can"),
    (re.compile(r"\b(\w+)n['’]t\b", re.I), r"\1"),
    (re.compile(r"\b(not|never|no) ", re.I), ""),
    (re.compile(r"\bwithout\b", re.I), "with"),
    (re.compile(r"\b(none|nobody|nothing|neither|nor)\b ?", re.I), ""),
)
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Case:
    kind: str
    expected: bool
    question_id: str
    paragraph_id: str
    quote: str
    source: str


def load(qa: Path) -> tuple[dict[str, str], list[dict[str, Any]]]:
    corpus: dict[str, str] = {}
    with (qa / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            corpus[row["id"]] = row["text"]
    with (qa / "questions.jsonl").open(encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh]
    answerable = [
        q
        for q in questions
        if q["kind"] == "answerable" and q.get("answer") and q["paragraph_id"] in corpus
    ]
    return corpus, answerable


def answer_sentence(paragraph: str, answer: str) -> tuple[int, int] | None:
    at = paragraph.find(answer)
    if at < 0:
        return None
    for a, b in split_sentences(paragraph):
        if a <= at and at + len(answer) <= b:
            return a, b
    return None  # the answer spans a sentence boundary


_ARTICLE = re.compile(r"^(?:a|an|the)\s+")


def same_answer(a: str, b: str) -> bool:
    """The same answer, but for case and a leading article ("the Court of Justice" and
    "Court of Justice"): swapping one for the other would only double an article."""
    return _ARTICLE.sub("", normalize(a)) == _ARTICLE.sub("", normalize(b))


def present(quote: str, source: str) -> bool:
    nq, ns = normalize(quote).strip("\"' .,;:!?"), normalize(source)
    return bool(nq) and re.search(rf"(?<!\w){re.escape(nq)}(?!\w)", ns) is not None


# -- true variants --------------------------------------------------------------


def typographic(sentence: str, rng: random.Random) -> str:
    out = sentence.replace('"', "“", 1).replace('"', "”", 1).replace("'", "’")
    out = re.sub(r"(?<=\w)-(?=\w)", "–", out)
    choice = rng.randrange(4)
    if choice == 0:
        out = out.lower()
    elif choice == 1:
        out = out[:1].lower() + out[1:] if out[:1].isupper() else out[:1].upper() + out[1:]
    elif choice == 2:
        out = re.sub(r" ", lambda _: rng.choice([" ", "  ", "\n", " \u00a0"]), out)
    else:
        out = re.sub(r"\b(\w{4})(\w{4,})\b", "\\1\u00ad\\2", out, count=1)
    out = out.rstrip(".")
    if rng.random() < 0.5:
        out = f"“{out}”"
    return out


_OCR_SWAPS = (("rn", "m"), ("m", "rn"), ("e", "c"), ("c", "e"), ("l", "i"), ("i", "l"))


def ocr_noise(
    sentence: str, rng: random.Random, vocabulary: frozenset[str] = frozenset()
) -> str | None:
    words = [(m.start(), m.end()) for m in _WORD.finditer(sentence)]
    eligible = [
        (a, b)
        for a, b in words
        if sentence[a:b].isalpha()
        and sentence[a:b].islower()
        and len(sentence[a:b]) >= 6
        and sentence[a:b] not in NEGATIONS
        and sentence[a:b] not in NUMBER_WORDS
    ]
    if not eligible:
        return None
    count = 1 if len(words) < 15 else 2
    chosen = sorted(rng.sample(eligible, min(count, len(eligible))), reverse=True)
    out = sentence
    for a, b in chosen:
        word = out[a:b]
        for _ in range(5):
            slipped = _slip(word, rng)
            if slipped.lower() not in vocabulary:
                break
        else:
            return None  # every slip spelled another real word
        out = out[:a] + slipped + out[b:]
    return out if out != sentence else None


def _slip(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1 :]  # dropped letter
    if kind == 1:
        return word[:i] + word[i] + word[i:]  # doubled letter
    if kind == 2:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # swapped letters
    for old, new in _OCR_SWAPS:
        if old in word[1:]:
            j = word.index(old, 1)
            return word[:j] + new + word[j + len(old) :]
    return word[:i] + word[i + 1 :]


def stub_at(sentence: str, answer_at: int, rng: random.Random) -> str | None:
    """Two or three verbatim words from the answer on: a stub, not a whole sentence."""
    words = [m for m in _WORD.finditer(sentence) if m.end() > answer_at]
    n = rng.choice((2, 3))
    if len(words) < n or len(_WORD.findall(sentence)) <= n:
        return None
    return sentence[words[0].start() : words[n - 1].end()].strip(".,;:!?\"'()")


def cut_before_condition(paragraph: str, rng: random.Random) -> str | None:
    """A sentence of ``paragraph`` cut right before a negation or condition, plus a full stop."""
    cuts = []
    for a, b in split_sentences(paragraph):
        sentence = paragraph[a:b]
        for m in _CUT_MARKERS.finditer(sentence):
            head = sentence[: m.start()].rstrip(" ,;:-")
            if len(head.split()) >= 4:
                cuts.append(head + ".")
    return rng.choice(cuts) if cuts else None


def substitute_word(sentence: str, rng: random.Random, vocabulary: frozenset[str]) -> str | None:
    """One word replaced by another vocabulary word 1-2 letters away with the same first letter."""
    from rapidfuzz.distance import OSA

    words = [m for m in _WORD.finditer(sentence) if m.group().isalpha() and m.group().islower()]
    rng.shuffle(words)
    for m in words:
        word = m.group()
        if len(word) < 4 or word in NEGATIONS or word in NUMBER_WORDS:
            continue
        limit = 2 if len(word) >= 9 else 1
        near = sorted(
            v
            for v in _by_first_letter(vocabulary).get(word[0], ())
            if v != word
            and abs(len(v) - len(word)) <= limit
            and OSA.distance(v, word, score_cutoff=limit) <= limit
        )
        if near:
            return sentence[: m.start()] + rng.choice(near) + sentence[m.end() :]
    return None


@functools.cache
def _by_first_letter(vocabulary: frozenset[str]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for v in vocabulary:
        groups[v[0]].append(v)
    return {k: tuple(sorted(g)) for k, g in groups.items()}


def corpus_vocabulary(corpus: dict[str, str], min_count: int = 3) -> frozenset[str]:
    """Lower-case words of at least four letters seen ``min_count`` times in the corpus."""
    counts: Counter[str] = Counter()
    for text in corpus.values():
        counts.update(w for w in re.findall(r"[^\W\d_]{4,}", text) if w.islower())
    return frozenset(w for w, c in counts.items() if c >= min_count)


# -- perturbations -------------------------------------------------------------


def change_number(sentence: str, answer: str, rng: random.Random) -> str | None:
    numbers = list(re.finditer(r"\d+", sentence))
    if not numbers:
        return None
    in_answer = [m for m in numbers if m.group() in answer]
    m = rng.choice(in_answer or numbers)
    old = m.group()
    value = int(old)
    for _ in range(20):
        new = str(value + rng.randint(1, 9) * rng.choice([1, -1])).lstrip("-")
        if new != old and new:
            return sentence[: m.start()] + new + sentence[m.end() :]
    return None


def insert_negation(sentence: str, answer_at: int) -> str:
    m = _AUX.search(sentence)
    if m:
        return sentence[: m.end()] + " not" + sentence[m.end() :]
    at = answer_at
    while at > 0 and not sentence[at - 1].isspace():
        at -= 1  # the answer may start inside a word ("non|violent")
    return sentence[:at] + "not " + sentence[at:]


def remove_negation(sentence: str) -> str | None:
    for pattern, repl in _NEG_REMOVALS:
        out, n = pattern.subn(repl, sentence, count=1)
        if n:
            return out
    return None


def truncated_two_words(sentence: str, rng: random.Random) -> str | None:
    words = [w for w in sentence.split() if any(c.isalpha() for c in w)]
    if len(words) < 3:
        return None
    if rng.random() < 0.5:
        w = words[1]
        letters = [i for i, c in enumerate(w) if c.isalpha()]
        i = rng.choice(letters)
        repl = "x" if w[i].lower() != "x" else "y"
        return f"{words[0]} {w[:i] + repl + w[i + 1 :]}"
    k = rng.randrange(len(words) - 2)
    return f"{words[k]} {words[k + 2]}"


# -- building the cases ------------------------------------------------------------


def build_cases(
    corpus: dict[str, str], questions: list[dict[str, Any]], seed: int
) -> tuple[list[Case], Counter[str]]:
    rng = random.Random(seed)
    skipped: Counter[str] = Counter()
    cases: list[Case] = []
    seen: set[tuple[str, str, str]] = set()
    pids = sorted(corpus)
    sentences_of = {pid: split_sentences(text) for pid, text in corpus.items()}
    vocabulary = corpus_vocabulary(corpus)

    def add(kind: str, q: dict[str, Any], quote: str | None) -> None:
        pid = q["paragraph_id"]
        source = corpus[pid]
        if not quote or not quote.strip():
            skipped[f"{kind}: not applicable"] += 1
            return
        expected = kind in TRUE_KINDS
        if not expected and kind not in VERBATIM_KINDS and present(quote, source):
            skipped[f"{kind}: still present in the source"] += 1
            return
        key = (kind, pid, quote)
        if key in seen:
            return
        seen.add(key)
        cases.append(Case(kind, expected, q["id"], pid, quote, source))

    for q in questions:
        pid, answer = q["paragraph_id"], q["answer"]
        paragraph = corpus[pid]
        span = answer_sentence(paragraph, answer)
        if span is None:
            skipped["question: answer not inside one sentence"] += 1
            continue
        a, b = span
        sentence = paragraph[a:b]
        answer_at = paragraph.find(answer) - a
        add("true_sentence", q, sentence)
        add("true_typographic", q, typographic(sentence, rng))
        add("true_ocr_noise", q, ocr_noise(sentence, rng, vocabulary))
        add("number_changed", q, change_number(sentence, answer, rng))
        add("negation_inserted", q, insert_negation(sentence, answer_at))
        add("negation_removed", q, remove_negation(sentence))
        other = rng.choice(questions)
        if other["paragraph_id"] != pid and not same_answer(other["answer"], answer):
            add("answer_swapped", q, sentence.replace(answer, other["answer"], 1))
        else:
            skipped["answer_swapped: drew the same paragraph or answer"] += 1
        add(
            "other_paragraph_sentence",
            q,
            hardest_other_sentence(pid, corpus, sentences_of, pids, rng),
        )
        add("truncated_two_words", q, truncated_two_words(sentence, rng))
        add("stub_words", q, stub_at(sentence, answer_at, rng))
        add("cut_before_condition", q, cut_before_condition(paragraph, rng))
        add("word_substituted", q, substitute_word(sentence, rng, vocabulary))
    return cases, skipped


def hardest_other_sentence(
    pid: str,
    corpus: dict[str, str],
    sentences_of: dict[str, list[tuple[int, int]]],
    pids: list[str],
    rng: random.Random,
) -> str | None:
    """Of 20 random other paragraphs, the sentence sharing most words with this paragraph."""
    words = _words(corpus[pid])
    best: tuple[float, str] | None = None
    for other in rng.sample(pids, min(20, len(pids))):
        if other == pid:
            continue
        text = corpus[other]
        for a, b in sentences_of[other]:
            s = text[a:b]
            own = _words(s)
            if len(own) < 4:
                continue
            score = len(own & words) / len(own)
            if best is None or score > best[0]:
                best = (score, s)
    return best[1] if best else None


@functools.cache
def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", normalize(text)))


# -- running -------------------------------------------------------------------------


def run(cases: list[Case], verifier: CitationVerifier) -> dict[str, Any]:
    by_kind: dict[str, dict[str, Any]] = {}
    methods: dict[str, Counter[str]] = defaultdict(Counter)
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    errors: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        check = verifier.check(case.quote, case.source)
        stats = by_kind.setdefault(case.kind, {"n": 0, "accepted": 0})
        stats["n"] += 1
        stats["accepted"] += int(check.verified)
        methods[case.kind][check.method or "rejected"] += 1
        if not check.verified:
            rules[case.kind][_rule(check.reason)] += 1
        if check.verified != case.expected and len(errors[case.kind]) < 10:
            errors[case.kind].append(
                {
                    "question_id": case.question_id,
                    "quote": case.quote,
                    "reason": check.reason,
                    "similarity": round(check.similarity, 3),
                    "matched": case.source[check.start : check.end]
                    if check.start is not None and check.end is not None
                    else None,
                }
            )
    for kind, stats in by_kind.items():
        stats["rate"] = stats["accepted"] / stats["n"] if stats["n"] else 0.0
        stats["expected"] = "accept" if kind in TRUE_KINDS else "reject"
        stats["methods"] = dict(methods[kind])
        stats["rejected_by"] = dict(rules[kind].most_common())
    true_n = sum(by_kind[k]["n"] for k in TRUE_KINDS if k in by_kind)
    true_ok = sum(by_kind[k]["accepted"] for k in TRUE_KINDS if k in by_kind)
    false_n = sum(by_kind[k]["n"] for k in FALSE_KINDS if k in by_kind)
    false_ok = sum(by_kind[k]["accepted"] for k in FALSE_KINDS if k in by_kind)
    return {
        "kinds": {k: by_kind[k] for k in (*TRUE_KINDS, *FALSE_KINDS) if k in by_kind},
        "true_total": true_n,
        "true_accepted": true_ok,
        "true_acceptance": true_ok / true_n if true_n else 0.0,
        "perturbed_total": false_n,
        "perturbed_accepted": false_ok,
        "targets_met": false_ok == 0 and true_n > 0 and true_ok / true_n >= 0.99,
        "errors": dict(errors),
    }


def _rule(reason: str | None) -> str:
    """The rule a rejection reason names: the part before its colon ("numbers differ")."""
    return (reason or "unknown").split(":")[0].strip()


def markdown(report: dict[str, Any]) -> str:
    rows = [
        "| kind | expected | quotes | accepted | rate | accepted by | rejected by |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for kind, s in report["kinds"].items():
        methods = ", ".join(f"{m} {c}" for m, c in sorted(s["methods"].items()) if m != "rejected")
        rejected = ", ".join(f"{r} {c}" for r, c in s["rejected_by"].items())
        rows.append(
            f"| {kind} | {s['expected']} | {s['n']} | {s['accepted']} | {s['rate']:.1%} "
            f"| {methods} | {rejected} |"
        )
    rows.append(
        f"| **all true** | accept | {report['true_total']} | {report['true_accepted']} "
        f"| {report['true_acceptance']:.2%} | | |"
    )
    rows.append(
        f"| **all perturbed** | reject | {report['perturbed_total']} "
        f"| {report['perturbed_accepted']} | | | |"
    )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=None, help="use the first N questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--qa", type=Path, default=DEFAULT_QA)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--fuzzy-threshold",
        type=float,
        default=None,
        help="override the verifier's fuzzy threshold (to see what the rules alone reject)",
    )
    args = parser.parse_args(argv)
    if not (args.qa / "corpus.jsonl").exists() or not (args.qa / "questions.jsonl").exists():
        print(f"skipped: evaluation data not found at {args.qa} (expected ../shared/eval/qa)")
        return 0
    corpus, questions = load(args.qa)
    if args.limit is not None:
        questions = questions[: args.limit]
    cases, skipped = build_cases(corpus, questions, args.seed)
    config = VerifierConfig()
    if args.fuzzy_threshold is not None:
        config = replace(config, fuzzy_threshold=args.fuzzy_threshold)
    report = run(cases, CitationVerifier(config))
    report = {
        "data": str(args.qa),
        "questions": len(questions),
        "seed": args.seed,
        "config": asdict(config),
        **report,
        "skipped": dict(sorted(skipped.items())),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(markdown(report))
    verdict = "met" if report["targets_met"] else "NOT met"
    print(f"\ntargets (0 perturbed accepted, >= 99% true accepted): {verdict}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
