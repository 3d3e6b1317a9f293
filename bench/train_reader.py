"""Train the passage reader (``memo_core/answer/reader.py``) on the dev sets' train halves.

    python bench/train_reader.py pairs --bases DIR --out pairs.jsonl
    python bench/train_reader.py train --pairs pairs.jsonl --context [--epochs 2] [--write]
    python bench/train_reader.py train --pairs pairs.jsonl --context --fold 0|1 \
        --scores oof_0.json

``pairs`` asks every question of the seven dev sets as the gate does (hits retrieved
as the engine retrieves them, the question in the passages' spelling) and writes, per
question, the centre sentences of the gate's best windows (``reader_sentences`` of
``gate_features``: what the reader reads at answer time) with their contexts (the
document's title, the heading above, the record: ``reader_contexts``), its kind, its
split and its gold answer. With ``--context`` the reader is trained on each sentence
after its context, as the shipped one is (``reader_text``); without, on the bare
sentence. ``train`` fine-tunes MiniLM (the weights of the shipped embedder, read
from its ONNX graph) as a cross-encoder on the *train* halves only: a pair is
positive when its sentence holds the gold answer of an answerable question, negative
otherwise (any sentence read for a near-miss, nonexistent or out-of-base question,
and the other sentences read for an answerable one). It reports each set's held-out
ROC AUC of the best sentence's probability (answerable against the refusal kinds the
gate is fitted on), and ``--write`` exports the model to ``memo_core/data/answer-reader``
(the same graph with the new int8 weights, the tokenizer, the head). The word
embeddings stay frozen (they are most of the model and the data is small).

The gate weighs the reader's score beside its other features, fitted on the same train
halves; the reader reads those questions better than new ones, so a fit on its own
scores would trust it too much. ``--fold 0`` trains on one half of the train questions
(split by group, like the held-out split) and writes its scores of the other half
(``--scores``); with both folds' files, ``calibrate_gate.py --reader-scores oof_0.json
oof_1.json`` fits the gate on scores the reader gave questions it was not trained on.

Needs the ``reader-training`` extra (jax, optax, onnx: no PyTorch) besides ``local``.
Two epochs take about 30 minutes on two cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import REPO
from answer_sets import load_set
from calibrate_gate import FIT_REFUSALS, auc, make_embedder, retrieve_all

from memo_core.answer.gate import _DocumentFrequencies, gate_features
from memo_core.answer.reader import DEFAULT_READER, reader_text
from memo_core.answer.respell import respelled
from memo_core.answer.semantic import SentenceSimilarity

SETS = ("squad", "pydoc", "topics", "library", "cli", "readmes", "records")
#: Question and sentence together, in word pieces (the reader truncates the sentence);
#: the second with the sentence's context before it.
MAX_LENGTH = 96
MAX_LENGTH_CONTEXT = 128
#: Padded lengths a batch is cut to (one compiled graph each).
BUCKETS = (32, 48, 64, 96, 128)
BATCH = 32
#: The logit is the pooled output times the head's weights times this (a larger step
#: for the head than the encoder's learning rate gives it).
HEAD_SCALE = 10.0


def collect_pairs(bases: Path | None, out: Path) -> None:
    embedder = make_embedder("default")
    with out.open("w", encoding="utf-8") as f:
        for set_name in SETS:
            answer_set = load_set(set_name)
            with answer_set.open_base(embedder, keep=bases) as kb:
                similarity = SentenceSimilarity(embedder, store=kb.sentence_vectors)
                frequencies = _DocumentFrequencies(kb.store)
                hits = retrieve_all(answer_set, kb)
                for q in answer_set.questions:
                    asked = respelled(q.question, [h.text for h in hits[q.id]])
                    features = gate_features(
                        asked,
                        hits[q.id],
                        frequencies,
                        similarity,
                        lambda d, a, b: kb.document_slice(d, a, b),
                    )
                    row = {
                        "set": set_name,
                        "id": q.id,
                        "kind": q.kind,
                        "heldout": q.heldout,
                        "question": asked,
                        "answer": q.answer,
                        "sentences": features["reader_sentences"],
                        "contexts": features["reader_contexts"],
                    }
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{set_name}: {len(answer_set.questions)} questions", flush=True)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def _labelled(rows: Sequence[dict[str, Any]], context: bool) -> Iterator[tuple[int, str, str, int]]:
    """(row index, question, text read, label) for every sentence read: the label is
    whether the sentence itself holds the gold answer; with ``context`` the text read is
    the sentence after its context (``reader_text``)."""
    for i, row in enumerate(rows):
        gold = _normal(row["answer"]) if row["answer"] else None
        contexts = row.get("contexts") or [""] * len(row["sentences"])
        for sentence, around in zip(row["sentences"], contexts, strict=True):
            label = int(
                row["kind"] == "answerable" and gold is not None and gold in _normal(sentence)
            )
            yield i, row["question"], reader_text(sentence, around if context else ""), label


def fold_of(row: dict[str, Any], groups: dict[tuple[str, str], str]) -> int:
    """Which of two folds a train-half question is in, by its group (a SQuAD paragraph,
    a module, a distribution: never on both sides, like the held-out split)."""
    group = groups.get((row["set"], row["id"])) or row["id"]
    return hashlib.sha256(group.encode()).digest()[1] % 2


def train(
    pairs_file: Path,
    epochs: int,
    learning_rate: float,
    write: bool,
    fold: int | None = None,
    scores_out: Path | None = None,
    context: bool = False,
) -> None:
    import jax
    import jax.numpy as jnp
    import optax
    from minilm_jax import encode, load_weights, save_onnx
    from tokenizers import Tokenizer

    rows = [json.loads(line) for line in pairs_file.open(encoding="utf-8")]
    pairs = list(_labelled(rows, context))
    max_length = MAX_LENGTH_CONTEXT if context else MAX_LENGTH
    tokenizer = Tokenizer.from_file(str(DEFAULT_READER / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length, strategy="only_second")
    encoded = tokenizer.encode_batch([(q, s) for _, q, s, _ in pairs])
    ids = [e.ids for e in encoded]
    types = [e.type_ids for e in encoded]
    labels = np.array([p[3] for p in pairs], dtype=np.float32)
    train_idx = np.array([k for k, p in enumerate(pairs) if not rows[p[0]]["heldout"]])
    held_idx = np.array([k for k, p in enumerate(pairs) if rows[p[0]]["heldout"]])
    if fold is not None:
        # Cross-fitting: trained on the other fold, scored on this one, so the gate's
        # fit sees the reader as it reads questions it was not trained on.
        groups = {(n, q.id): q.group for n in SETS for q in load_set(n).questions}
        folds = np.array([fold_of(rows[pairs[k][0]], groups) for k in train_idx])
        train_idx, out_idx = train_idx[folds != fold], train_idx[folds == fold]
    print(
        f"{len(train_idx)} train pairs ({int(labels[train_idx].sum())} positive), "
        f"{len(held_idx)} held-out",
        flush=True,
    )

    def batch(idx: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        width = next(b for b in BUCKETS if b >= max(len(ids[k]) for k in idx))
        a = np.zeros((len(idx), width), dtype=np.int32)
        m, t = np.zeros_like(a), np.zeros_like(a)
        for r, k in enumerate(idx):
            n = len(ids[k])
            a[r, :n], m[r, :n], t[r, :n] = ids[k], 1, types[k]
        return a, m, t

    weights = jax.tree_util.tree_map(jnp.asarray, load_weights())
    word = weights.pop("word")  # frozen
    params = {"encoder": weights, "head": {"w": jnp.zeros(384), "b": jnp.array(-1.5)}}

    def logits(p: Any, a: Any, m: Any, t: Any) -> Any:
        hidden = encode({**p["encoder"], "word": word}, a, m, t)
        kept = m[..., None].astype(hidden.dtype)
        pooled = (hidden * kept).sum(1) / kept.sum(1)
        return pooled @ p["head"]["w"] * HEAD_SCALE + p["head"]["b"]

    def loss(p: Any, a: Any, m: Any, t: Any, y: Any) -> Any:
        return optax.sigmoid_binary_cross_entropy(logits(p, a, m, t), y).mean()

    steps = epochs * (len(train_idx) // BATCH)
    schedule = optax.warmup_cosine_decay_schedule(0.0, learning_rate, max(1, steps // 10), steps)
    optimizer = optax.adamw(schedule, weight_decay=0.01)
    state = optimizer.init(params)

    @jax.jit
    def step(p: Any, s: Any, a: Any, m: Any, t: Any, y: Any) -> Any:
        value, grads = jax.value_and_grad(loss)(p, a, m, t, y)
        updates, s = optimizer.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    predict_batch = jax.jit(logits)

    def predict(idx: np.ndarray) -> np.ndarray:
        out = np.zeros(len(idx), dtype=np.float32)
        order = np.argsort([len(ids[k]) for k in idx])
        for s in range(0, len(idx), 64):
            sel = order[s : s + 64]
            out[sel] = np.asarray(predict_batch(params, *batch([idx[j] for j in sel])))
        return out

    rng = np.random.default_rng(0)
    start, done = time.time(), 0
    for epoch in range(epochs):
        # Batches of similar lengths (sorted within runs of 50 batches), in random order.
        order = rng.permutation(train_idx)
        batches = []
        for c in range(0, len(order), BATCH * 50):
            run = sorted(order[c : c + BATCH * 50], key=lambda k: len(ids[k]))
            batches += [run[i : i + BATCH] for i in range(0, len(run) - BATCH + 1, BATCH)]
        rng.shuffle(batches)  # type: ignore[arg-type]
        for chosen in batches:
            params, state, value = step(params, state, *batch(chosen), labels[chosen])
            done += 1
            if done % 50 == 0:
                print(
                    f"step {done}/{steps} loss {float(value):.3f} {time.time() - start:.0f} s",
                    flush=True,
                )
        report(rows, pairs, held_idx, predict(held_idx), f"epoch {epoch + 1}")
    if fold is not None and scores_out is not None:
        best: dict[str, float] = {}
        for k, z in zip(out_idx, predict(out_idx), strict=True):
            row = rows[pairs[k][0]]
            key = f"{row['set']}/{row['id']}"
            best[key] = max(best.get(key, 0.0), float(1.0 / (1.0 + np.exp(-z))))
        scores_out.write_text(json.dumps(best, indent=0) + "\n", "utf-8")
        print(f"{len(best)} out-of-fold questions scored into {scores_out}")
    if write:
        save_onnx(
            {**jax.tree_util.tree_map(np.asarray, params["encoder"]), "word": np.asarray(word)},
            DEFAULT_READER / "model.onnx",
            head=(np.asarray(params["head"]["w"]) * HEAD_SCALE, float(params["head"]["b"])),
        )
        head = {
            "weights": [round(float(x), 6) for x in np.asarray(params["head"]["w"])],
            "bias": float(params["head"]["b"]),
            "scale": HEAD_SCALE,
            "max_length": max_length,
            "context": context,
            "trained_on": "train halves of " + ", ".join(SETS),
            "epochs": epochs,
            "learning_rate": learning_rate,
        }
        (DEFAULT_READER / "reader.json").write_text(json.dumps(head, indent=1) + "\n", "utf-8")
        # The runtime (fastembed) truncates pairs at the tokenizer config's length: it must
        # read as many word pieces as the model was trained on, or a long sentence loses
        # its end at inference only.
        config_file = DEFAULT_READER / "tokenizer_config.json"
        config = json.loads(config_file.read_text("utf-8"))
        config["model_max_length"] = max_length
        config_file.write_text(json.dumps(config, indent=2) + "\n", "utf-8")
        print(f"written to {DEFAULT_READER.relative_to(REPO)}")


def report(
    rows: Sequence[dict[str, Any]],
    pairs: Sequence[tuple[int, str, str, int]],
    idx: np.ndarray,
    scores: np.ndarray,
    label: str,
) -> None:
    """Each set's held-out ROC AUC of a question's best sentence."""
    best: dict[int, float] = {}
    for k, s in zip(idx, scores, strict=True):
        i = pairs[k][0]
        best[i] = max(best.get(i, -np.inf), float(s))
    parts = []
    for set_name in SETS:
        asked = [
            i
            for i in best
            if rows[i]["set"] == set_name and rows[i]["kind"] in ("answerable", *FIT_REFUSALS)
        ]
        if asked:
            y = np.array([rows[i]["kind"] == "answerable" for i in asked])
            parts.append(f"{set_name} {auc(np.array([best[i] for i in asked]), y):.3f}")
    print(f"{label}: held-out ROC AUC of the best sentence: " + ", ".join(parts), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pairs", help="the sentences the gate reads, per question")
    p.add_argument("--bases", type=Path, help="keep/reuse ingested bases here")
    p.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train", help="fine-tune the reader on the train halves")
    t.add_argument("--pairs", type=Path, required=True)
    t.add_argument("--epochs", type=int, default=2)
    t.add_argument("--learning-rate", type=float, default=3e-5)
    t.add_argument("--write", action="store_true", help="export to memo_core/data/answer-reader")
    t.add_argument("--fold", type=int, choices=(0, 1), help="train on the other fold only")
    t.add_argument(
        "--context", action="store_true", help="read each sentence after its title and heading"
    )
    t.add_argument("--scores", type=Path, help="with --fold: write this fold's best scores")
    args = parser.parse_args()
    if args.command == "pairs":
        collect_pairs(args.bases, args.out)
    else:
        train(
            args.pairs,
            args.epochs,
            args.learning_rate,
            args.write,
            args.fold,
            args.scores,
            args.context,
        )


if __name__ == "__main__":
    sys.exit(main())
