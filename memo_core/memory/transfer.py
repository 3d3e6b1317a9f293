"""Export, import and back-fill, as JSON Lines.

Export writes one record a line: a header, then every fact version (with
``valid_from``, ``valid_to``, ``superseded_by``, strength and pinning), every raw
turn and every transcript message. Import reads the same format into any memory
file (vectors are recomputed with that file's embedder; records whose id is
already present are skipped, so importing twice is harmless). Back-fill feeds an
existing chat history (turns with timestamps) through :meth:`capture` in time
order, so memory also covers what was said before memo was installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from memo_core.errors import InvalidInputError, NamespaceRequiredError
from memo_core.memory.base import HoodPart
from memo_core.memory.capture import Capture, screen_secrets
from memo_core.memory.config import MemoryConfig
from memo_core.memory.extract import content_stems
from memo_core.memory.namespace import (
    NamespaceLike,
    decode_namespace,
    encode_namespace,
    normalize_namespace,
)
from memo_core.memory.records import FactRow
from memo_core.memory.store import FACT_COLUMNS, MESSAGE_COLUMNS, TURN_COLUMNS, FactStore
from memo_core.memory.timeutil import parse_when, to_iso, utcnow
from memo_core.memory.types import BackfillReport, ImportReport

__all__ = ["EXPORT_FORMAT", "Transfer"]

EXPORT_FORMAT = "memohood-export"
EXPORT_VERSION = 1
_EMBED_BATCH = 64

Source = str | Path | IO[str] | Iterable[str] | Iterable[Mapping[str, Any]]


@contextmanager
def _open_write(fp: str | Path | IO[str]) -> Iterator[IO[str]]:
    if isinstance(fp, (str, Path)):
        with open(fp, "w", encoding="utf-8") as handle:
            yield handle
    else:
        yield fp


def _records(source: Source) -> Iterator[dict[str, Any]]:
    """JSON objects from a path, a text stream, lines, or already-parsed dicts."""
    lines: Iterable[Any]
    handle: IO[str] | None = None
    if isinstance(source, (str, Path)):
        handle = open(source, encoding="utf-8")  # noqa: SIM115 - closed below
        lines = handle
    else:
        lines = source
    try:
        for number, item in enumerate(lines, start=1):
            if isinstance(item, Mapping):
                yield dict(item)
                continue
            text = str(item).strip()
            if not text:
                continue
            try:
                value = json.loads(text)
            except ValueError as exc:
                raise InvalidInputError(f"line {number} is not JSON: {exc}") from exc
            if not isinstance(value, dict):
                raise InvalidInputError(f"line {number} is not a JSON object")
            yield value
    finally:
        if handle is not None:
            handle.close()


class Transfer(HoodPart):
    """``export_jsonl``, ``import_jsonl``, ``backfill`` (which feeds ``capture``)."""

    def __init__(self, store: FactStore, config: MemoryConfig, capture: Capture) -> None:
        super().__init__(store, config)
        self._capture = capture

    def export_jsonl(self, fp: str | Path | IO[str], namespace: NamespaceLike | None = None) -> int:
        """Write every record (of ``namespace`` and its descendants, or all); returns the count."""
        prefix = encode_namespace(normalize_namespace(namespace)) if namespace is not None else ""
        where = "WHERE substr(ns, 1, ?) = ?"
        args = [len(prefix), prefix]
        fingerprint = self._store.stored_fingerprint()
        count = 0
        with _open_write(fp) as out:
            header = {
                "type": EXPORT_FORMAT,
                "version": EXPORT_VERSION,
                "exported_at": to_iso(utcnow()),
                "embedder": fingerprint.describe() if fingerprint else None,
            }
            out.write(json.dumps(header, ensure_ascii=False) + "\n")
            for row in self.db.query(
                f"SELECT {FACT_COLUMNS} FROM mem_facts {where} ORDER BY chain_id, version", args
            ):
                record = {"type": "fact", **FactRow(row).to_record()}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
            for row in self.db.query(
                f"SELECT {TURN_COLUMNS} FROM mem_turns {where} ORDER BY at, rowid", args
            ):
                _rowid, tid, ns, _root, session_id, role, text, at, decision, score, focus, _c = row
                record = {
                    "type": "turn",
                    "id": tid,
                    "namespace": list(decode_namespace(ns)),
                    "session_id": session_id,
                    "role": role,
                    "text": text,
                    "at": at,
                    "decision": decision,
                    "score": score,
                    "focus": json.loads(focus) if focus else None,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
            for row in self.db.query(
                f"SELECT {MESSAGE_COLUMNS} FROM mem_messages {where} ORDER BY ns, session_key, seq",
                args,
            ):
                _rowid, mid, ns, session_key, seq, role, content, metadata, at, turn_id = row
                record = {
                    "type": "message",
                    "id": mid,
                    "namespace": list(decode_namespace(ns)),
                    "session_key": session_key,
                    "seq": seq,
                    "role": role,
                    "content": content,
                    "metadata": json.loads(metadata or "{}"),
                    "at": at,
                    "turn_id": turn_id,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        return count

    def _screened(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with credentials in its text handled as ``config.secrets`` says (an
        export from a memory that allowed them, or a file written by hand)."""
        for name in _TEXT_FIELDS.get(str(record.get("type")), ()):
            if isinstance(record.get(name), str):
                record[name] = screen_secrets(record[name], self.config.secrets)[0]
        return record

    def import_jsonl(self, fp: Source) -> ImportReport:
        """Read an export; existing ids are skipped. Vectors use this file's embedder."""
        facts: list[dict[str, Any]] = []
        turns: list[dict[str, Any]] = []
        messages: list[dict[str, Any]] = []
        for record in map(self._screened, _records(fp)):
            kind = record.get("type")
            if kind == "fact":
                facts.append(record)
            elif kind == "turn":
                turns.append(record)
            elif kind == "message":
                messages.append(record)
            elif kind != EXPORT_FORMAT:
                raise InvalidInputError(f"unknown record type {kind!r}")
        skipped = 0
        added_facts = added_turns = added_messages = 0
        facts.sort(key=lambda r: (str(r.get("chain_id")), int(r.get("version", 1))))
        new_facts = [r for r in facts if self._store.fact_by_id(str(r.get("id"))) is None]
        skipped += len(facts) - len(new_facts)
        vectors = self._embed_batches([str(r["statement"]) for r in new_facts])
        with self.db.transaction():
            for record, vector in zip(new_facts, vectors, strict=True):
                values = _fact_values(record)
                if (
                    values["valid_to"] is None
                    and self._store.current_by_key(values["ns"], values["key"]) is not None
                ):
                    skipped += 1  # another current version already holds this key
                    continue
                self._store.insert_fact(values, vector if values["indexed"] else None)
                added_facts += 1
            new_turns = [
                r
                for r in turns
                if not self.db.query_one("SELECT 1 FROM mem_turns WHERE id = ?", [r.get("id")])
            ]
            skipped += len(turns) - len(new_turns)
            turn_vectors = self._embed_batches([str(r["text"]) for r in new_turns])
            for record, vector in zip(new_turns, turn_vectors, strict=True):
                self._store.insert_turn(_turn_values(record), vector)
                added_turns += 1
            for record in messages:
                if self.db.query_one("SELECT 1 FROM mem_messages WHERE id = ?", [record.get("id")]):
                    skipped += 1
                    continue
                self._store.insert_message(_message_values(record))
                added_messages += 1
        return ImportReport(
            facts=added_facts, turns=added_turns, messages=added_messages, skipped=skipped
        )

    def _embed_batches(self, texts: list[str]) -> list[list[float] | None]:
        if self._store.vectors is None or not texts:
            return [None] * len(texts)
        out: list[list[float] | None] = []
        for start in range(0, len(texts), _EMBED_BATCH):
            out.extend(self._store.embed_documents(texts[start : start + _EMBED_BATCH]) or [])
        return out

    def backfill(
        self, turns_jsonl: Source, *, namespace: NamespaceLike | None = None
    ) -> BackfillReport:
        """Capture an existing chat history in time order."""
        items: list[tuple[Any, int, dict[str, Any]]] = []
        for position, record in enumerate(_records(turns_jsonl)):
            text = record.get("text", record.get("content"))
            if not isinstance(text, str):
                raise InvalidInputError(f"record {position + 1} has no text")
            stamp = next((record[k] for k in ("t", "at", "timestamp", "time") if k in record), None)
            if stamp is None:
                raise InvalidInputError(f"record {position + 1} has no timestamp")
            items.append((parse_when(stamp), position, record))
        items.sort(key=lambda item: (item[0], item[1]))
        totals = {
            "turns": 0,
            "kept": 0,
            "borderline": 0,
            "facts_added": 0,
            "superseded": 0,
            "reinforced": 0,
        }
        for when, _, record in items:
            target = record.get("namespace", record.get("user", namespace))
            if target is None:
                raise NamespaceRequiredError("a back-fill record has no namespace or user")
            result = self._capture.capture(
                record.get("text", record.get("content", "")),
                namespace=target,
                role=str(record.get("role", "user")),
                at=when,
                session_id=record.get("session_id", record.get("session")),
            )
            totals["turns"] += 1
            totals["kept"] += result.decision == "keep"
            totals["borderline"] += result.decision == "borderline"
            totals["facts_added"] += len(result.added)
            totals["superseded"] += len(result.superseded)
            totals["reinforced"] += len(result.reinforced)
        return BackfillReport(**totals)


#: The text fields of an exported record, by record type.
_TEXT_FIELDS = {"fact": ("statement",), "turn": ("text",), "message": ("content",)}


def _fact_values(record: Mapping[str, Any]) -> dict[str, Any]:
    ns = encode_namespace(normalize_namespace(record.get("namespace")))
    statement = str(record.get("statement", ""))
    value = record.get("value")
    required = ("id", "chain_id", "key", "category", "valid_from", "last_used")
    missing = [name for name in required if not record.get(name)]
    if missing:
        raise InvalidInputError(f"fact record lacks {', '.join(missing)}")

    def iso(name: str) -> str | None:
        raw = record.get(name)
        return to_iso(parse_when(raw)) if raw else None

    return {
        "id": str(record["id"]),
        "ns": ns,
        "root": ns.split("/", 1)[0],
        "chain_id": str(record["chain_id"]),
        "version": int(record.get("version", 1)),
        "key": str(record["key"]),
        "statement": statement,
        "stemmed": " ".join(sorted(content_stems(statement))),
        "value": json.dumps(value, ensure_ascii=False, sort_keys=True)
        if value is not None
        else None,
        "category": str(record["category"]),
        "pinned": 1 if record.get("pinned") else 0,
        "subject": str(record.get("subject", "self")),
        "subject_kind": str(record.get("subject_kind", "self")),
        "about": str(record.get("about", "")),
        "party_terms": str(record.get("party_terms", "")),
        "event_start": record.get("event_start"),
        "event_end": record.get("event_end"),
        "valid_from": iso("valid_from"),
        "valid_to": iso("valid_to"),
        "superseded_by": record.get("superseded_by"),
        "source_turn": record.get("source_turn"),
        "session_id": record.get("session_id"),
        "origin": str(record.get("origin", "import")),
        "strength": float(record.get("strength", 1.0)),
        "last_used": iso("last_used"),
        "reinforcements": int(record.get("reinforcements", 0)),
        "archived": 1 if record.get("archived") else 0,
        "archived_at": iso("archived_at"),
        "indexed": 0 if record.get("indexed") is False else 1,
        "created_at": iso("created_at") or iso("valid_from"),
    }


def _turn_values(record: Mapping[str, Any]) -> dict[str, Any]:
    ns = encode_namespace(normalize_namespace(record.get("namespace")))
    at = to_iso(parse_when(record.get("at")))
    focus = record.get("focus")
    return {
        "id": str(record["id"]),
        "ns": ns,
        "root": ns.split("/", 1)[0],
        "session_id": record.get("session_id"),
        "role": str(record.get("role", "user")),
        "text": str(record.get("text", "")),
        "at": at,
        "decision": str(record.get("decision", "drop")),
        "score": float(record.get("score", 0)),
        "focus": json.dumps(focus) if focus else None,
        "created_at": at,
    }


def _message_values(record: Mapping[str, Any]) -> dict[str, Any]:
    ns = encode_namespace(normalize_namespace(record.get("namespace")))
    return {
        "id": str(record["id"]),
        "ns": ns,
        "session_key": str(record["session_key"]),
        "seq": int(record.get("seq", 0)),
        "role": str(record.get("role", "user")),
        "content": str(record.get("content", "")),
        "metadata": json.dumps(record.get("metadata") or {}, ensure_ascii=False),
        "at": to_iso(parse_when(record.get("at"))),
        "turn_id": record.get("turn_id"),
    }
