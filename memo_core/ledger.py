"""The spend ledger: every paid call recorded, and a monthly ceiling per provider.

Costs are *estimates* from the public price table below (not an invoice). The
ceiling check and the record happen in one ``BEGIN IMMEDIATE`` transaction, so
concurrent processes cannot together overspend: :meth:`SpendLedger.charge`
either records the call or raises :class:`BudgetExceededError` and records
nothing. Callers charge *before* the paid request and fall back (local path or a
clear error) when the ceiling is reached.
"""

from __future__ import annotations

import os

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memo_core.errors import BudgetExceededError, InvalidInputError
from memo_core.storage import open_database
from memo_core.storage.base import SQLDatabase
from memo_core.storage.migrations import Migrations

__all__ = ["PRICES_USD", "SpendLedger", "SpendRecord", "estimate_cost", "provider_for_url"]

#: Estimated USD price per unit, by (provider, kind); update here, nowhere else.
#:
#: Units: input tokens for embeddings (~4 characters a token); prompt tokens plus
#: ``max_tokens`` for LLMs (charged before the call, so an upper-bound estimate at
#: the output rate); searches for rerank; seconds of audio for transcription.
#: Sources (public price pages, read 2025; these are estimates, not invoices):
#:
#: * Cloudflare Workers AI pricing (developers.cloudflare.com/workers-ai/platform/pricing):
#:   ``@cf/baai/bge-m3`` 1,075 neurons per M input tokens at $0.011 per 1,000 neurons.
#: * Cohere pricing (cohere.com/pricing): Rerank 3.5, $2.00 per 1,000 searches.
#: * OpenAI pricing (openai.com/api/pricing): gpt-4o-mini output $0.60 per M tokens;
#:   whisper-1 $0.006 per minute.
#: * Groq pricing (groq.com/pricing): llama-3.1-8b-instant output $0.08 per M tokens;
#:   whisper-large-v3-turbo $0.04 per hour of audio.
#: * Google Gemini API pricing (ai.google.dev/pricing): gemini-2.0-flash output $0.40 per M.
#: * ``openai-compatible`` (Ollama, llama.cpp, vLLM, any self-hosted server): free by
#:   default; calls are still recorded (units, zero cost) so the ledger shows them.
PRICES_USD: dict[tuple[str, str], float] = {
    ("cloudflare", "embedding"): 0.012 / 1_000_000,  # per input token
    ("cohere", "rerank"): 2.0 / 1_000,  # per search (up to 100 documents)
    ("openai", "llm"): 0.60 / 1_000_000,  # per token
    ("groq", "llm"): 0.08 / 1_000_000,  # per token
    ("gemini", "llm"): 0.40 / 1_000_000,  # per token
    ("openai-compatible", "llm"): 0.0,
    ("groq", "transcription"): 0.04 / 3_600,  # per second of audio
    ("openai", "transcription"): 0.006 / 60,  # per second of audio
    ("openai-compatible", "transcription"): 0.0,
}

ledger_schema = Migrations("ledger")


@ledger_schema
def create_spend_table(db: SQLDatabase) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS spend ("
        " id INTEGER PRIMARY KEY, at TEXT NOT NULL, month TEXT NOT NULL,"
        " provider TEXT NOT NULL, kind TEXT NOT NULL, units REAL NOT NULL,"
        " cost_usd REAL NOT NULL, note TEXT)"
    )
    db.execute("CREATE INDEX IF NOT EXISTS spend_month ON spend (provider, month)")


#: Hosts of priced OpenAI-compatible endpoints -> their name in :data:`PRICES_USD`.
_HOSTS = (("api.openai.com", "openai"), ("groq.com", "groq"), ("googleapis.com", "gemini"))


def provider_for_url(base_url: str) -> str:
    """The price-table name of an OpenAI-compatible endpoint (``openai-compatible`` if unknown)."""
    for host, name in _HOSTS:
        if host in base_url:
            return name
    return "openai-compatible"


def estimate_cost(provider: str, kind: str, units: float) -> float:
    """Estimated USD cost of ``units`` of ``kind`` at ``provider`` (0 if unpriced)."""
    return PRICES_USD.get((provider, kind), 0.0) * units


@dataclass(frozen=True)
class SpendRecord:
    provider: str
    kind: str
    units: float
    cost_usd: float


class SpendLedger:
    """Monthly spend per provider with ceilings (USD); ``None`` means no ceiling."""

    def __init__(
        self,
        path: str | Path | SQLDatabase,
        ceilings: Mapping[str, float] | None = None,
    ) -> None:
        self.db = (
            open_database(path, load_vec=False) if isinstance(path, (str, os.PathLike)) else path
        )
        ledger_schema.apply(self.db)
        self.ceilings = dict(ceilings or {})

    @staticmethod
    def _month(at: datetime) -> str:
        return at.strftime("%Y-%m")

    def month_spend(self, provider: str | None = None, at: datetime | None = None) -> float:
        month = self._month(at or datetime.now(UTC))
        if provider is None:
            row = self.db.query_one("SELECT sum(cost_usd) FROM spend WHERE month = ?", [month])
        else:
            row = self.db.query_one(
                "SELECT sum(cost_usd) FROM spend WHERE month = ? AND provider = ?",
                [month, provider],
            )
        return float(row[0] or 0.0)

    def by_provider(self, at: datetime | None = None) -> dict[str, float]:
        month = self._month(at or datetime.now(UTC))
        rows = self.db.query(
            "SELECT provider, sum(cost_usd) FROM spend WHERE month = ? GROUP BY provider", [month]
        )
        return {str(p): float(c) for p, c in rows}

    def charge(
        self,
        provider: str,
        kind: str,
        units: float,
        *,
        cost_usd: float | None = None,
        note: str = "",
        at: datetime | None = None,
    ) -> SpendRecord:
        """Record a paid call, or raise BudgetExceededError if it would pass the ceiling."""
        if units < 0:
            raise InvalidInputError("units must be non-negative")
        cost = estimate_cost(provider, kind, units) if cost_usd is None else cost_usd
        when = at or datetime.now(UTC)
        month = self._month(when)
        with self.db.transaction():
            ceiling = self.ceilings.get(provider)
            if ceiling is not None:
                row = self.db.query_one(
                    "SELECT sum(cost_usd) FROM spend WHERE month = ? AND provider = ?",
                    [month, provider],
                )
                spent = float(row[0] or 0.0)
                if spent + cost > ceiling:
                    raise BudgetExceededError(
                        f"{provider}: monthly ceiling ${ceiling:.2f} reached "
                        f"(spent ${spent:.4f}, this call ${cost:.4f}); paid calls stop until "
                        "next month or a higher ceiling"
                    )
            self.db.execute(
                "INSERT INTO spend (at, month, provider, kind, units, cost_usd, note)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [when.isoformat(timespec="seconds"), month, provider, kind, units, cost, note],
            )
        return SpendRecord(provider, kind, units, cost)
