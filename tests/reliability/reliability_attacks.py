"""The second round of attacks (issue 16), shared by tests/reliability and bench/stress.py.

Each ``attack_*`` function runs ``trials`` hostile attempts of one family and
returns an :class:`AttackTally`:

* ``survived``: the defence held (a typed one-line error, a refused address, a
  cut connection, a redacted secret, a value sourced literally...);
* ``leaked``: the attack got through (a command ran, a secret stayed readable, a
  private address passed the guard, a raw exception escaped, a document was
  embedded twice, a raw control character reached the output);
* ``lost``: something legitimate was harmed (a value read back differently, a
  stored record changed or went missing).

Tests call these with CI-sized counts and assert ``leaked == lost == 0`` and
``survived == trials``; the bench runs them bigger and reports the counts.
Child processes import this module by name, so it must stay importable without pytest.
"""

from __future__ import annotations

import math
import random
import string
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memo_core.errors import InvalidInputError, MemoError
from memo_core.kb import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.setup_wizard import write_secrets


@dataclass
class AttackTally:
    """Outcomes of one attack family: what the bench reports and a test asserts on."""

    trials: int = 0
    survived: int = 0
    lost: int = 0
    leaked: int = 0
    failures: list[str] = field(default_factory=list)

    def record(
        self, *, survived: bool, lost: bool = False, leaked: bool = False, why: str = ""
    ) -> None:
        self.trials += 1
        self.survived += survived
        self.lost += lost
        self.leaked += leaked
        if (lost or leaked or not survived) and len(self.failures) < 5:
            self.failures.append(why[:300])

    @property
    def held(self) -> bool:
        return self.trials > 0 and self.survived == self.trials and not (self.lost or self.leaked)

    def to_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "survived": self.survived,
            "lost": self.lost,
            "leaked": self.leaked,
            "first_failures": self.failures,
        }


def one_line_typed(call: Callable[[], object], expected: type[MemoError] = MemoError) -> str:
    """``""`` when ``call`` raises ``expected`` with a one-line message, else what went wrong."""
    try:
        call()
    except expected as exc:
        message = str(exc)
        return "" if message and "\n" not in message else f"unclear message {message!r}"
    except Exception as exc:  # the defect this exists to find
        return f"raw {type(exc).__name__}: {exc}"
    return "accepted"


# -- spend: a negative, NaN or infinite cost must not lower the month's spend ------------


def hostile_amounts(rng: random.Random) -> list[object]:
    return [
        -100.0,
        -1e-9,
        -0.0001 * rng.randint(1, 10_000),
        math.nan,
        -math.nan,
        math.inf,
        -math.inf,
        float("1e400"),
        "0.5",
        True,
        [1.0],
        -(2**70),
    ]


def attack_spend(path: Path, rng: random.Random, trials: int) -> AttackTally:
    """Charge hostile costs and units; survived = typed error and the spend unchanged.

    A real charge after every attempt must still be recorded and still be
    refused at the ceiling (``lost`` when the ledger stopped working).
    """
    tally = AttackTally()
    ledger = SpendLedger(path, ceilings={"cohere": 1000.0})
    try:
        amounts = hostile_amounts(rng)
        for i in range(trials):
            bad = amounts[i % len(amounts)]
            before = ledger.month_spend("cohere")
            as_cost = i % 2 == 0
            problem = one_line_typed(
                lambda bad=bad, as_cost=as_cost: ledger.charge(
                    "cohere",
                    "rerank",
                    1 if as_cost else bad,
                    cost_usd=bad if as_cost else 0.01,  # type: ignore[arg-type]
                ),
                InvalidInputError,
            )
            after = ledger.month_spend("cohere")
            ledger.charge("cohere", "rerank", 1, cost_usd=0.001)
            recorded = math.isclose(ledger.month_spend("cohere"), after + 0.001, abs_tol=1e-9)
            tally.record(
                survived=not problem and after == before,
                leaked=after != before,
                lost=not recorded,
                why=f"{'cost' if as_cost else 'units'}={bad!r}: {problem or 'spend changed'}",
            )
    finally:
        ledger.db.close()
    return tally


# -- secrets.env: what a shell sourcing the file sees ------------------------------------

#: Values a hostile or unlucky key could hold; ``{marker}`` is a file an injection would create.
INJECTIONS = (
    "abc'; touch {marker}; echo '",
    "$(touch {marker})",
    "`touch {marker}`",
    "x' $(touch {marker}) 'y",
    '"; touch {marker}; "',
    "a\\'; touch {marker} #",
    "${{IFS}}$(touch${{IFS}}{marker})",
    "'\"'\"'; touch {marker}; '",
    "; touch {marker}",
    "&& touch {marker} &&",
    "|touch {marker}",
    "$HOME ~ * ? [a] {{a,b}} !! %s \\n \\",
    "",
    "  leading and trailing  ",
    "tab\there",
)


def _random_value(rng: random.Random, marker: Path) -> str:
    if rng.random() < 0.6:
        return rng.choice(INJECTIONS).format(marker=marker)
    alphabet = (
        string.printable.replace("\n", "").replace("\r", "").replace("\x0b", "").replace("\x0c", "")
    )
    alphabet += "é€😀\u00a0"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))


def source_with_bash(path: Path, names: list[str], cwd: Path) -> list[str]:
    """The values bash assigns to ``names`` after ``. path`` (NUL-separated, exact)."""
    script = f'. "{path}" && printf "%s\\0" ' + " ".join(f'"${{{n}}}"' for n in names)
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        capture_output=True,
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bash failed: {done.stderr.decode(errors='replace')[:200]}")
    return done.stdout.decode("utf-8").split("\0")[:-1]


def attack_secrets_env(folder: Path, rng: random.Random, trials: int) -> AttackTally:
    """Write hostile values with ``write_secrets`` and source the file with bash.

    leaked = an injected command ran (its marker file exists); lost = bash or
    ``read_secrets`` read a value back differently; survived = neither.
    """
    from memo_core.config import read_secrets

    tally = AttackTally()
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(trials):
        marker = folder / f"pwned-{i}"
        values = {f"KEY_{j}": _random_value(rng, marker) for j in range(3)}
        path = folder / f"secrets-{i}.env"
        write_secrets(path, values)
        try:
            sourced = source_with_bash(path, list(values), folder)
        except RuntimeError as exc:
            sourced = [str(exc)]
        ran = marker.exists()
        exact = sourced == list(values.values()) and read_secrets(path) == values
        tally.record(
            survived=exact and not ran,
            leaked=ran,
            lost=not exact,
            why=f"{values!r} -> {sourced!r}",
        )
    return tally


# -- vectors: hostile query vectors get one typed line ----------------------------------


def hostile_vectors(dims: int, rng: random.Random) -> list[object]:
    def some(value: object) -> list[object]:
        return [value] * dims

    return [
        some(0.0),
        some(-0.0),
        some(math.inf),
        some(math.nan),
        [math.inf] + [0.0] * (dims - 1),
        [rng.random() for _ in range(dims - 1)] + [math.nan],
        some("0.5"),
        "0.1 " * dims,
        b"\x00" * (dims * 4),
        None,
        3.5,
        {"a": 1.0},
        [[0.1] * dims],
        [rng.random() for _ in range(rng.randint(0, dims - 1))],
        [rng.random() for _ in range(dims + rng.randint(1, 9))],
        some(True),
        some(None),
        [2**2000] + [0] * (dims - 1),
        [0.1] * (dims - 1) + [[0.1]],
        some(complex(1, 1)),
    ]


def attack_vectors(kb: MemoBase, dims: int, rng: random.Random, trials: int) -> AttackTally:
    """``search_by_vector`` with hostile vectors: survived = a typed one-line MemoError.

    Extreme but meaningful vectors (1e300, 1e-300 components) must still answer:
    lost = such a search failed or returned nothing; leaked = a raw exception escaped.
    """
    tally = AttackTally()
    vectors = hostile_vectors(dims, rng)
    for i in range(trials):
        if i % 5 == 4:  # a direction with extreme magnitudes: a valid query
            scale = rng.choice([1e300, 1e-300, 1e39, 1e-45])
            query = [scale * (rng.random() - 0.5) for _ in range(dims)]
            try:
                hits = kb.search_by_vector(query, k=3)
                ok, why = bool(hits), "no hits"
            except Exception as exc:
                ok, why = False, f"{type(exc).__name__}: {exc}"
            tally.record(survived=ok, lost=not ok, why=f"scale {scale}: {why}")
            continue
        vector = vectors[i % len(vectors)]
        problem = one_line_typed(lambda vector=vector: kb.search_by_vector(vector, k=3))  # type: ignore[arg-type]
        tally.record(
            survived=not problem,
            leaked=problem.startswith("raw") or problem == "accepted",
            why=f"{str(vector)[:60]}: {problem}",
        )
    return tally
