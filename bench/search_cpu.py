"""CPU time per search, for comparing two versions of memo on a busy machine.

    python bench/search_cpu.py BASE.db EXTRA_CHUNKS

``process_time`` per query is far less sensitive to other processes than wall time
(``bench/before_after.sh`` runs it alternately on two checkouts). The base: the 500
real paragraphs plus ``EXTRA_CHUNKS`` chunks of three re-sampled corpus sentences
(past 5,000 chunks the search aids are on), HashEmbedder vectors, 300 answerable
questions with their vectors precomputed (embedding is not timed). Prints the median
milliseconds of keyword, vector and hybrid ``HybridSearcher.search(k=10)`` as JSON.
"""

import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

from _common import qa_dir, read_jsonl

from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase

corpus = list(read_jsonl(qa_dir() / "corpus.jsonl"))
qs = [q["question"] for q in read_jsonl(qa_dir() / "questions.jsonl") if q["kind"] == "answerable"]
qs = qs[:300]
path, extra = Path(sys.argv[1]), int(sys.argv[2])
emb = HashEmbedder(384)
fresh = not path.exists()
kb = MemoBase(path, embedder=emb)
if fresh:
    texts = [p["text"] for p in corpus]
    ids = [p["id"] for p in corpus]
    sentences = [s for t in texts for s in re.split(r"(?<=[.!?])\s+", t) if len(s) > 30]
    rng = random.Random(7)
    texts += [" ".join(rng.sample(sentences, 3)) for _ in range(extra)]
    ids += [f"x{i}" for i in range(extra)]
    kb.add_texts(texts, ids=ids, vectors=emb.embed_documents(texts))
kb.prepare_search()
qv = [emb.embed_query(q) for q in qs]
out = {}
for mode in ("keyword", "vector", "hybrid"):
    for i in range(20):
        kb.searcher.search(qs[i], owner="default", k=10, mode=mode, query_vector=qv[i])
    times = []
    for q, v in zip(qs, qv, strict=True):
        t = time.process_time()
        kb.searcher.search(q, owner="default", k=10, mode=mode, query_vector=v)
        times.append((time.process_time() - t) * 1000)
    out[mode] = round(statistics.median(times), 3)
print(json.dumps(out))
