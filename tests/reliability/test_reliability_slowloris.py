"""One deadline for the whole web fetch, against a real dripping server on 127.0.0.1.

A server that accepts and says nothing, drips its status line or its headers one
byte at a time, drips its body, or answers every hop of a long redirect chain in
a fraction of the timeout: each is cut at ``http_timeout`` with a typed error,
long before the server would have finished (the server counts what it managed
to send), and a prompt server is still fetched through the same code path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reliability_attacks import DRIP_PHASES, REDIRECT_HOPS, DripServer, attack_slow_loris, held

from memo_core.errors import ExtractionError
from memo_core.ingest import IngestPolicy, extract

pytest.importorskip("httpx", reason="httpx (the web extra) is not installed")

pytestmark = pytest.mark.network


def _policy(timeout: float) -> IngestPolicy:
    return IngestPolicy(
        allowed_roots=[],
        allow_hosts=frozenset({"127.0.0.1"}),
        http_timeout=timeout,
        http_max_redirects=REDIRECT_HOPS + 1,
    )


@pytest.mark.parametrize("phase", DRIP_PHASES)
def test_a_dripping_server_is_cut_at_the_deadline(phase: str) -> None:
    with DripServer(phase) as server, pytest.raises(ExtractionError, match="http_timeout"):
        extract(server.url(), policy=_policy(0.5))
    if phase == "redirects":
        assert 1 <= server.hops < REDIRECT_HOPS // 2
    else:
        assert server.hops == 1 and max(server.sent, default=0) < server.drip_bytes // 2


def test_a_prompt_redirect_chain_still_arrives() -> None:
    with DripServer("redirects", interval=0.0) as server:
        doc = extract(server.url(), policy=_policy(20.0))
    assert not isinstance(doc, list) and doc.text == "arrived"
    assert server.hops == REDIRECT_HOPS + 1


def test_slow_loris_attack_holds(tmp_path: Path) -> None:
    tally = attack_slow_loris(tmp_path, 5, seed=2)
    assert held(tally), tally.as_dict()
