"""The second round of attacks (issue 16), shared by tests/reliability and bench/stress.py.

Each ``attack_*`` function runs ``trials`` hostile attempts of one family and
returns an ``AttackTally`` (the one reliability_sidecars defines for the bench);
all take ``(folder, trials, seed)``, ``folder`` being scratch space:

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

import contextlib
import math
import random
import re
import string
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reliability_harness import DIMS, WORDS, doc_text, embedder
from reliability_sidecars import AttackTally

from memo_core.errors import InvalidInputError, MemoError
from memo_core.kb import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.setup_wizard import write_secrets


def record(
    tally: AttackTally, *, survived: bool, lost: bool = False, leaked: bool = False, why: str = ""
) -> None:
    """Count one trial; a trial that did not survive keeps its reason in ``errors``."""
    tally.trials += 1
    tally.survived += survived
    tally.lost += lost
    tally.leaked += leaked
    if lost or leaked or not survived:
        tally.errors.append(why[:300])


def held(tally: AttackTally) -> bool:
    """Every trial survived, nothing lost, nothing leaked (and there were trials)."""
    return tally.trials > 0 and tally.survived == tally.trials and not (tally.lost or tally.leaked)


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


def attack_spend(folder: Path, trials: int, seed: int) -> AttackTally:
    """Charge hostile costs and units; survived = typed error and the spend unchanged.

    A real charge after every attempt must still be recorded and still be
    refused at the ceiling (``lost`` when the ledger stopped working).
    """
    rng, tally = random.Random(seed), AttackTally()
    folder.mkdir(parents=True, exist_ok=True)
    ledger = SpendLedger(folder / "spend.db", ceilings={"cohere": 1000.0})
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
            record(
                tally,
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


def attack_secrets_env(folder: Path, trials: int, seed: int) -> AttackTally:
    """Write hostile values with ``write_secrets`` and source the file with bash.

    leaked = an injected command ran (its marker file exists); lost = bash or
    ``read_secrets`` read a value back differently; survived = neither.
    """
    from memo_core.config import read_secrets

    rng, tally = random.Random(seed), AttackTally()
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
        record(
            tally,
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


def attack_vectors(folder: Path, trials: int, seed: int) -> AttackTally:
    """``search_by_vector`` with hostile vectors: survived = a typed one-line MemoError.

    Extreme but meaningful vectors (1e300, 1e-300 components) must still answer:
    lost = such a search failed or returned nothing; leaked = a raw exception escaped.
    """
    rng, tally = random.Random(seed), AttackTally()
    folder.mkdir(parents=True, exist_ok=True)
    with MemoBase(folder / "vectors.db", embedder=embedder()) as kb:
        kb.add_texts([f"Harbour lantern note {i} about the meadow." for i in range(12)])
        _vector_trials(kb, DIMS, rng, trials, tally)
    return tally


def _vector_trials(
    kb: MemoBase, dims: int, rng: random.Random, trials: int, tally: AttackTally
) -> None:
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
            record(tally, survived=ok, lost=not ok, why=f"scale {scale}: {why}")
            continue
        vector = vectors[i % len(vectors)]
        problem = one_line_typed(lambda vector=vector: kb.search_by_vector(vector, k=3))  # type: ignore[arg-type]
        record(
            tally,
            survived=not problem,
            leaked=problem.startswith("raw") or problem == "accepted",
            why=f"{str(vector)[:60]}: {problem}",
        )


# -- secrets inside URLs and AWS keys away from their assignment line --------------------

_SCHEMES = ("postgres", "postgresql", "mysql", "mariadb", "redis", "rediss", "amqp", "amqps")
_SCHEMES += ("mongodb", "mongodb+srv", "https", "http", "ftp", "smtp", "ldap", "mssql")
_B64 = string.ascii_letters + string.digits + "/+"


def _password(rng: random.Random) -> str:
    alphabet = string.ascii_letters + string.digits + "!$%^*()-_=~.,@"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(6, 24)))


def _aws_secret(rng: random.Random) -> str:
    while True:  # random base64 of 30 bytes, as AWS issues them
        value = "".join(rng.choice(_B64) for _ in range(40))
        if any(c.islower() for c in value) and any(c.isupper() for c in value):
            return value


def _aws_key_id(rng: random.Random) -> str:
    return (
        rng.choice(["AK", "AS"])
        + "IA"
        + "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(16))
    )


def secret_samples(rng: random.Random) -> tuple[str, list[str]]:
    """A sentence holding one or two credentials, and the credential values."""
    shape = rng.randrange(6)
    if shape == 0:
        pw = _password(rng)
        user = rng.choice(["app", "admin", "", "svc_reader", "u.ser"])
        url = f"{rng.choice(_SCHEMES)}://{user}:{pw}@db-{rng.randint(1, 99)}.internal:5432/main"
        return f"The service connects with {url} at start-up.", [pw]
    if shape == 1:
        pw = _password(rng).replace("@", "")
        return f"DATABASE_URL={rng.choice(_SCHEMES)}://worker:{pw}@10.0.0.5/app", [pw]
    if shape == 2:
        key_id, secret = _aws_key_id(rng), _aws_secret(rng)
        gap = rng.choice([" ", "\n", "\n\nThe matching one is ", ", "])
        return f"Access key {key_id}{gap}{secret}", [key_id, secret]
    if shape == 3:
        secret = _aws_secret(rng)
        label = rng.choice(["aws secret", "Secret:", "the secret access key is", "| secret |"])
        return f"Rotate soon. {label} {secret} (expires in June)", [secret]
    if shape == 4:
        key_id, secret = _aws_key_id(rng), _aws_secret(rng)
        return f"Access key ID,Secret access key\n{key_id},{secret}\n", [key_id, secret]
    pw = _password(rng).replace("&", "").replace(";", "").replace("#", "")
    return f"jdbc:postgresql://db/app?user=app&password={pw}&ssl=true", [pw]


#: Look-alikes that hold no secret: redacting any of them is ``lost`` text.
BENIGN = (
    "See http://example.com:8080/path@v2 for the tag.",
    "Clone https://github.com/org/repo.git and run make.",
    "Write to team@example.org or call +1 555 0100.",
    "Commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the build.",
    "The config names postgres://${DB_USER}:${DB_PASSWORD}@db/app as a template.",
    "A heading: Asia and Akiak are places; akia is not a key.",
    "The secret of a good bread is time and a hot oven, says the baker.",
)


def attack_secret_text(folder: Path, trials: int, seed: int) -> AttackTally:
    """``redact_text`` over credentials in URLs and loose AWS keys, and over look-alikes.

    leaked = a credential value is still in the redacted text; lost = a benign
    look-alike was changed.
    """
    from memo_core.ingest import redact_text

    rng, tally = random.Random(seed), AttackTally()
    for i in range(trials):
        if i % 4 == 3:
            text = BENIGN[(i // 4) % len(BENIGN)]
            changed = redact_text(text).text != text
            record(tally, survived=not changed, lost=changed, why=f"benign changed: {text}")
            continue
        text, values = secret_samples(rng)
        safe = redact_text(text).text
        left = [v for v in values if v in safe]
        record(tally, survived=not left, leaked=bool(left), why=f"{text!r} -> {safe!r}")
    return tally


# -- the SSRF guard and special-purpose address ranges ------------------------------------

#: Blocks a fetch must never reach, whatever Python's own tables say (IANA special-purpose).
SPECIAL_PURPOSE = (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
    "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
    "::/128", "::1/128", "64:ff9b:1::/48", "100::/64", "2001::/23", "2001:db8::/32",
    "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
)  # fmt: skip


def _spellings(address: Any) -> list[str]:
    """``address`` as a URL host, plus its IPv6 disguises when it is IPv4."""
    import ipaddress

    if address.version == 6:
        return [f"[{address}]"]
    v4 = int(address)
    return [
        str(address),
        f"[::ffff:{address}]",  # IPv4-mapped
        f"[{ipaddress.IPv6Address((0x2002 << 112) | (v4 << 80))}]",  # 6to4
        f"[{ipaddress.IPv6Address((0x64FF9B << 96) | v4)}]",  # well-known NAT64
    ]


def attack_ssrf_ranges(folder: Path, trials: int, seed: int) -> AttackTally:
    """A random address of every special-purpose block, in every spelling, through ``check_url``.

    leaked = the guard let it through; lost = a public address was refused
    (one in five trials is a public control address).
    """
    import ipaddress

    from memo_core.errors import UnsafeURLError
    from memo_core.ingest import IngestPolicy, check_url

    policy = IngestPolicy(allowed_roots=[])
    public = ("93.184.216.34", "2606:4700::1111", "8.8.8.8", "2001:4860:4860::8888")
    rng, tally = random.Random(seed), AttackTally()
    for i in range(trials):
        if i % 5 == 4:
            host = public[(i // 5) % len(public)]
            host = f"[{host}]" if ":" in host else host
            try:
                check_url(f"http://{host}/", policy)
                record(tally, survived=True)
            except MemoError as exc:
                record(tally, survived=False, lost=True, why=f"public {host} refused: {exc}")
            continue
        block = ipaddress.ip_network(SPECIAL_PURPOSE[i % len(SPECIAL_PURPOSE)])
        address = block[rng.randrange(block.num_addresses)]
        for host in _spellings(address):
            url = f"http://{host}:{rng.choice([80, 8080, 443])}/latest/meta-data/"
            problem = one_line_typed(lambda url=url: check_url(url, policy), UnsafeURLError)
            record(tally, survived=not problem, leaked=bool(problem), why=f"{url}: {problem}")
    return tally


# -- documents that expand within the zip limits ------------------------------------------


class CountingEmbedder:
    """The reliability hash embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.inner = embedder()
        self.texts = 0
        self.dimensions = self.inner.dimensions
        self.fingerprint = self.inner.fingerprint

    def embed_documents(self, texts: Any) -> list[list[float]]:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def expanding_docx(text_chars: int, rng: random.Random) -> bytes:
    """A real DOCX whose body holds about ``text_chars`` characters of run text.

    The words repeat enough to compress 20-60x (inside the zip-bomb ratio limit),
    like the attack: a small file whose XML is tens of megabytes.
    """
    import io
    import zipfile

    import docx

    document = docx.Document()
    document.add_paragraph("Quarterly harbour report", style="Heading 1")
    buffer = io.BytesIO()
    document.save(buffer)
    phrase = " ".join(rng.choice(WORDS) for _ in range(12)) + ". "
    run = f"<w:p><w:r><w:t>{phrase * 8}</w:t></w:r></w:p>"
    body = run * (text_chars // (len(phrase) * 8) + 1)
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                xml = data.decode("utf-8")
                cut = xml.rindex("<w:sectPr")
                data = (xml[:cut] + body + xml[cut:]).encode("utf-8")
            target.writestr(item.filename, data)
    return out.getvalue()


def _many_headings(sections: int, rng: random.Random) -> str:
    return "\n\n".join(f"# Part {i}\n\n{rng.choice(WORDS)} {i}." for i in range(sections))


def attack_expanding_documents(folder: Path, trials: int, seed: int) -> AttackTally:
    """Documents past the text or chunk bound, through ``ingest_sources`` with a counting embedder.

    Each trial is a DOCX expanding to 3-12x the text bound, a Markdown file of
    more headings than the chunk bound, or a plain text file past the text
    bound. survived = refused with SourceTooLargeError and nothing embedded;
    leaked = any text embedded for it; lost = a document within the bounds,
    ingested beside it, missing.
    """
    from memo_core.errors import SourceTooLargeError
    from memo_core.ingest import IngestPolicy
    from memo_core.kb.ingest import ingest_sources

    rng, tally = random.Random(seed), AttackTally()
    folder.mkdir(parents=True, exist_ok=True)
    policy = IngestPolicy.for_roots([folder], max_text_chars=60_000, max_chunks_per_document=300)
    for i in range(trials):
        shape = i % 3
        if shape == 0:
            path = folder / f"expanding-{i}.docx"
            path.write_bytes(expanding_docx(policy.max_text_chars * rng.randint(3, 12), rng))
        elif shape == 1:
            path = folder / f"headings-{i}.md"
            path.write_text(_many_headings(policy.max_chunks_per_document + 50, rng))
        else:
            path = folder / f"long-{i}.txt"
            path.write_text(doc_text(f"t{i}", 1, paragraphs=400, seed=i))
        control = folder / f"control-{i}.md"
        control.write_text(f"# Note {i}\n\nThe {rng.choice(WORDS)} shipment arrives on Monday.")
        counting = CountingEmbedder()
        with MemoBase(folder / f"kb-{i}.db", embedder=counting) as kb:  # type: ignore[arg-type]
            report = ingest_sources(kb, [path, control], policy=policy)
            embedded_for_control = 1
            types = {f["source"]: f["type"] for f in report.failed}
            refused = types.get(str(path)) == SourceTooLargeError.__name__
            kept = str(control) in report.added
        leaked = counting.texts > embedded_for_control or str(path) in report.added
        record(
            tally,
            survived=refused and not leaked and kept,
            leaked=leaked,
            lost=not kept,
            why=f"{path.name}: failed={report.failed} embedded={counting.texts}",
        )
    return tally


# -- slow loris: one deadline for the whole fetch -------------------------------------------

#: What a dripping server sends before it would finish (far longer than any deadline used).
DRIP_PHASES = ("silent", "status", "headers", "body", "redirects")
#: The redirect chain's length: at four drip intervals a hop, several deadlines long.
REDIRECT_HOPS = 40


class DripServer:
    """A real HTTP server on 127.0.0.1 that answers as slowly as it likes.

    ``phase`` says where it drips one byte every ``interval`` seconds: nothing
    after accepting (``silent``), the status line, the headers, the body, or a
    chain of redirects each of which drips its headers briefly. ``sent`` counts
    the bytes each connection managed to send before the client hung up, and
    ``hops`` the requests served.
    """

    def __init__(self, phase: str, *, interval: float = 0.05, drip_bytes: int = 200) -> None:
        import socket
        import threading

        self.phase, self.interval, self.drip_bytes = phase, interval, drip_bytes
        self.sent: list[int] = []
        self.hops = 0
        self._stop = threading.Event()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def url(self, path: str = "/page") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> DripServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _serve(self) -> None:
        import threading

        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _drip(self, conn: Any, data: bytes) -> bool:
        sent = 0
        try:
            for i in range(len(data)):
                if self._stop.wait(self.interval):
                    return False
                conn.sendall(data[i : i + 1])
                sent += 1
        except OSError:  # the client hung up: the deadline worked
            return False
        finally:
            self.sent.append(sent)
        return True

    def _answer(self, conn: Any) -> None:
        with conn:
            try:
                request = conn.recv(65536)
            except OSError:
                return
            self.hops += 1
            pad = b"X-Pad: " + b"p" * self.drip_bytes + b"\r\n"
            body = b"slow body " * (self.drip_bytes // 10 + 1)
            if self.phase == "silent":
                self._drip(conn, b"\0" * 0)  # accept, then say nothing
                self._stop.wait(self.interval * self.drip_bytes)
            elif self.phase == "status":
                self._drip(conn, b"HTTP/1.1 200 OK" + b" " * self.drip_bytes + b"\r\n\r\n")
            elif self.phase == "headers":
                self._drip(conn, b"HTTP/1.1 200 OK\r\n" + pad + b"\r\nlate")
            elif self.phase == "body":
                head = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}"
                conn.sendall(head.encode() + b"\r\n\r\n")
                self._drip(conn, body)
            else:  # redirects: each hop answers in a fraction of the deadline, the chain in many
                line = request.split(b" ", 2)
                if len(line) < 2:
                    return  # the client closed before its request line (it gave up, loaded)
                path = line[1].decode()
                hop = int(path.rsplit("/", 1)[-1]) if path.startswith("/hop/") else 0
                if self._stop.wait(self.interval * 4):
                    return
                if hop >= REDIRECT_HOPS:
                    head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 7"
                    conn.sendall(head.encode() + b"\r\n\r\narrived")
                    return
                head = f"HTTP/1.1 302 Found\r\nLocation: /hop/{hop + 1}\r\nContent-Length: 0"
                with contextlib.suppress(OSError):
                    conn.sendall(head.encode() + b"\r\n\r\n")


def attack_slow_loris(folder: Path, trials: int, seed: int) -> AttackTally:
    """Fetch from a dripping local server with a short ``http_timeout``.

    survived = a typed ExtractionError and the server cut off well before its
    drip ended (fewer than half its bytes or hops); leaked = the fetch ran on
    (it got most of the drip, or succeeded); lost = a prompt server's page, tried
    after every attack, failed to fetch.
    """
    from memo_core.errors import ExtractionError
    from memo_core.ingest import IngestPolicy, fetch_url

    rng, tally = random.Random(seed), AttackTally()
    policy = IngestPolicy(
        allowed_roots=[], allow_hosts=frozenset({"127.0.0.1"}), http_timeout=0.6,
        http_max_redirects=REDIRECT_HOPS + 1,
    )  # fmt: skip
    for i in range(trials):
        phase = DRIP_PHASES[(i + rng.randrange(len(DRIP_PHASES))) % len(DRIP_PHASES)]
        with DripServer(phase) as server:
            problem = one_line_typed(lambda: fetch_url(server.url(), policy), ExtractionError)
        most = max(server.sent, default=0)
        if phase == "redirects":
            ran_on = server.hops > REDIRECT_HOPS // 2
        else:
            ran_on = most > server.drip_bytes // 2
        ran_on = ran_on or problem == "accepted"
        with DripServer("body", interval=0.0) as prompt:  # the same path, answering at once
            try:
                fetched = fetch_url(prompt.url(), policy).body.startswith(b"slow body")
            except MemoError:
                fetched = False
        record(
            tally,
            survived=not problem and not ran_on and fetched,
            leaked=ran_on,
            lost=not fetched,
            why=f"{phase}: {problem or 'refused'}, sent {most} bytes in {server.hops} hops",
        )
    return tally


# -- file names with control characters -------------------------------------------------

#: What a hostile name holds to forge a line, clear the screen or reorder text.
NAME_TRICKS = (
    "\nmemo: error: FORGED",
    "\r\x1b[2KFORGED",
    "\x1b[2J\x1b[HFORGED",
    "\u2028FORGED",
    "\x85FORGED",
    "\u202eFORGED",
    "\x00FORGED"[1:] + "\x07\x08FORGED",
    "\x0bFORGED\x0c",
)
#: Characters no output line may carry raw (the line break itself aside).
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def forged_lines(output: str) -> list[str]:
    """Lines that begin with a name's text, or raw control characters anywhere."""
    bad = [line for line in output.split("\n") if line.lstrip().startswith("FORGED")]
    return bad + RAW_CONTROL.findall(output)


def hostile_names(folder: Path, rng: random.Random, tag: str) -> list[Path]:
    """A readable note, a binary file with a text suffix and an empty file, all badly named."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for kind, suffix in (("note", ".md"), ("binary", ".txt"), ("empty", ".txt")):
        name = f"{kind}-{tag}{rng.choice(NAME_TRICKS)}{suffix}"
        path = folder / name.replace("/", "_")
        if kind == "note":
            path.write_text(f"The harbour lantern is lit at dusk on {tag}.")  # titled by its name
        elif kind == "binary":
            path.write_bytes(bytes(range(256)) * 4)
        else:
            path.write_bytes(b"")
        files.append(path)
    return files


def run_cli(argv: list[str]) -> tuple[int, str]:
    """``memo`` in this process, stdout and stderr (its log lines included) captured."""
    import contextlib
    import io
    import logging

    from memo_core.cli import PrintableFormatter, main

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(PrintableFormatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("memo_core")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(argv)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    return code, out.getvalue()


def attack_control_names(folder: Path, trials: int, seed: int) -> AttackTally:
    """``memo kb ingest``, ``list`` and ``search`` over files with hostile names.

    leaked = an output or log line began with a name's text or carried a raw
    control character; lost = the readable note did not go in.
    """
    rng, tally = random.Random(seed), AttackTally()
    for i in range(trials):
        here = folder / f"names-{i}"
        files = hostile_names(here / "docs", rng, f"t{i}")
        db = str(here / "kb.db")
        common = ["--db", db, "--embedder", "hash"]
        code, output = run_cli(["kb", "ingest", str(here / "docs"), *common])
        _, listing = run_cli(["kb", "list", *common])
        _, found = run_cli(["kb", "search", "lantern harbour", *common])
        forged = forged_lines(output + "\n" + listing + "\n" + found)
        with MemoBase(db, embedder=None) as kb:
            kept = any(d.source == str(files[0]) for d in kb.list_documents())
        record(
            tally,
            survived=code == 1 and not forged and kept,
            leaked=bool(forged),
            lost=not kept,
            why=f"exit {code}, forged {forged[:3]!r}: {output[-300:]!r}",
        )
    return tally


# -- overlapping ingests: each new document embedded once ----------------------------------


class LoggedEmbedder(CountingEmbedder):
    """Appends one line per embedded text (``pid sha``) to a shared log; ``delay`` widens races."""

    def __init__(self, log: str, delay: float = 0.0, block_first: bool = False) -> None:
        super().__init__()
        self.log, self.delay, self.block_first = log, delay, block_first

    def embed_documents(self, texts: Any) -> list[list[float]]:
        import hashlib
        import os
        import time

        if self.block_first:  # a claimer that will be killed while it embeds
            time.sleep(600)
        time.sleep(self.delay)
        lines = "".join(f"{os.getpid()} {hashlib.sha256(t.encode()).hexdigest()}\n" for t in texts)
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, lines.encode())
        finally:
            os.close(fd)
        return super().embed_documents(texts)


def overlap_ingest_worker(
    db: str, sources: list[str], root: str, log: str, start_at: float, block_first: bool = False
) -> None:
    """One process of an overlapping ingest (module level, so ``spawn`` can start it)."""
    import time

    from memo_core.ingest import IngestPolicy
    from memo_core.kb.ingest import ingest_sources

    time.sleep(max(0.0, start_at - time.time()))
    embedder_ = LoggedEmbedder(log, delay=0.02, block_first=block_first)
    with MemoBase(db, embedder=embedder_) as kb:  # type: ignore[arg-type]
        report = ingest_sources(kb, sources, policy=IngestPolicy.for_roots([root]))
    if report.failed:
        raise SystemExit(f"failed: {report.failed}")


def _overlap_folders(root: Path, tag: str, docs: int) -> dict[Path, str]:
    """``shared/`` reached by every process, ``a/`` and ``b/`` by some: path -> text."""
    texts = {}
    for where in ("shared", "shared/deeper", "a", "b"):
        (root / where).mkdir(parents=True, exist_ok=True)
    for i in range(docs):
        where = ("shared", "shared/deeper", "a", "b")[i % 4]
        path = root / where / f"doc-{tag}-{i}.md"
        text = doc_text(f"{tag}-{i}", 1, paragraphs=3, seed=i)
        path.write_text(text)
        texts[path] = text
    return texts


def _embed_counts(log: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            sha = line.split()[1]
            counts[sha] = counts.get(sha, 0) + 1
    return counts


def _chunk_hashes(db: Path) -> dict[str, list[str]]:
    """Stored document source -> the sha256 of each of its chunk texts."""
    import hashlib

    out: dict[str, list[str]] = {}
    with MemoBase(db, embedder=None) as kb:
        for doc in kb.list_documents():
            rows = kb.db.query(
                "SELECT c.text FROM chunks c JOIN documents d ON d.rowid = c.doc_rowid"
                " WHERE d.id = ? ORDER BY c.ord",
                [doc.id],
            )
            out[doc.source] = [hashlib.sha256(str(r[0]).encode()).hexdigest() for r in rows]
    return out


def attack_overlapping_ingest(
    folder: Path, trials: int, seed: int, *, processes: int = 4, docs: int = 12
) -> AttackTally:
    """``processes`` real processes ingest overlapping folders of new documents at once.

    One trial per document: survived = stored, every chunk embedded exactly once
    across all processes; leaked = a chunk embedded more than once (paid twice);
    lost = the document is missing.
    """
    import multiprocessing
    import time

    ctx = multiprocessing.get_context("spawn")
    tally = AttackTally()
    rounds = max(1, -(-trials // docs))
    for r in range(rounds):
        here = folder / f"overlap-{seed}-{r}"
        texts = _overlap_folders(here / "docs", f"r{r}", docs)
        db, log = here / "kb.db", here / "embedded.log"
        MemoBase(db, embedder=embedder()).close()  # the base exists before the race
        views = [["."], ["shared"], ["shared", "a"], ["b", "shared/deeper", "a"]]
        start_at = time.time() + 2.0
        procs = [
            ctx.Process(
                target=overlap_ingest_worker,
                args=(
                    str(db),
                    [str(here / "docs" / v) for v in views[p % len(views)]],
                    str(here / "docs"),
                    str(log),
                    start_at,
                ),
            )
            for p in range(processes)
        ]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=300)
        counts = _embed_counts(log)
        stored = _chunk_hashes(db)
        for path in list(texts)[: trials - r * docs]:
            chunks = stored.get(str(path))
            times = [counts.get(h, 0) for h in chunks or []]
            record(
                tally,
                survived=bool(chunks) and all(t == 1 for t in times),
                leaked=any(t > 1 for t in times),
                lost=not chunks,
                why=f"{path.name}: embedded {times}, exit codes {[p.exitcode for p in procs]}",
            )
    return tally


def attack_crashed_claimer(folder: Path, trials: int, seed: int) -> AttackTally:
    """A process is SIGKILLed while it holds a claim (inside the embedder); another then ingests.

    One trial per round: survived = the second process stored every document,
    each embedded once by it; lost = it did not finish or a document is
    missing (a stale claim blocked it); leaked = a chunk embedded twice.
    """
    import multiprocessing
    import os
    import signal
    import time

    ctx = multiprocessing.get_context("spawn")
    tally = AttackTally()
    for r in range(trials):
        here = folder / f"crashed-{seed}-{r}"
        texts = _overlap_folders(here / "docs", f"c{r}", 4)
        db, log = here / "kb.db", here / "embedded.log"
        MemoBase(db, embedder=embedder()).close()
        args = (str(db), [str(here / "docs")], str(here / "docs"), str(log), 0.0)
        claimer = ctx.Process(target=overlap_ingest_worker, args=(*args, True))
        claimer.start()
        claimed = False
        deadline = time.time() + 120
        while time.time() < deadline and not claimed:
            time.sleep(0.1)
            with MemoBase(db, embedder=None) as kb:
                claimed = bool(kb.db.query_one("SELECT count(*) FROM kb_ingest_claims")[0])
        if claimer.pid is not None:
            os.kill(claimer.pid, signal.SIGKILL)
        claimer.join(timeout=30)
        second = ctx.Process(target=overlap_ingest_worker, args=args)
        second.start()
        second.join(timeout=240)
        finished = second.exitcode == 0
        if second.is_alive():
            second.kill()
            second.join()
        counts = _embed_counts(log)
        stored = _chunk_hashes(db)
        complete = finished and claimed and all(str(p) in stored for p in texts)
        twice = any(n > 1 for n in counts.values())
        record(
            tally,
            survived=complete and not twice,
            lost=not complete,
            leaked=twice,
            why=f"claimed {claimed}, second exit {second.exitcode}, stored {len(stored)}/{len(texts)}",
        )
    return tally


# -- a full disk (issue 16, item 6) ---------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


def _limit_file_size(limit: int) -> Callable[[], None]:
    import resource

    def apply() -> None:  # in the child: every write past ``limit`` bytes fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def attack_full_disk(folder: Path, trials: int, seed: int) -> AttackTally:
    """``memo kb ingest`` of a folder onto a disk that fills after a few pages.

    The child process may grow its files by only a few pages (``RLIMIT_FSIZE``, the
    way a full disk answers: a write fails with EFBIG, which SQLite reports as "database
    or disk is full"). survived = exit 2, one line naming where it stopped, nearly every
    file never read, and the base still opens with its earlier document; leaked = the
    run went on reading and embedding (exit 0 or 1) or a traceback escaped; lost = the
    earlier document is gone or the base does not pass its integrity check.
    """
    import os
    import sys

    rng, tally = random.Random(seed), AttackTally()
    for i in range(trials):
        here = folder / f"full-{i}"
        docs = here / "docs"
        docs.mkdir(parents=True)
        db = here / "kb.db"
        with MemoBase(db, embedder=embedder()) as kb:
            kb.add_texts([doc_text(f"before{i}", 1)], metadatas=[{"source": "before.txt"}])
        count = rng.randint(15, 40)
        for n in range(count):
            text = doc_text(f"full{i}", n, paragraphs=30, seed=seed)
            (docs / f"n{n:03}.txt").write_text(text, encoding="utf-8")
        limit = db.stat().st_size + rng.choice((16, 32, 64)) * 1024
        done = subprocess.run(
            # no --embedder: the CLI follows the hash embedder the base was built with
            [sys.executable, "-m", "memo_core", "kb", "ingest", str(docs), "--db", str(db)],
            capture_output=True, text=True, timeout=300, check=False,
            env={**os.environ, "PYTHONPATH": str(REPO)}, preexec_fn=_limit_file_size(limit),
        )  # fmt: skip
        err = done.stderr
        unread = re.search(r"(\d+) not stored\)", err)
        prompt = unread is not None and int(unread.group(1)) >= count - 5
        with MemoBase(db, embedder=None) as kb:
            kept = any(d.source == "before.txt" for d in kb.list_documents())
            sound = kb.db.query_one("PRAGMA integrity_check")[0] == "ok"
        record(
            tally,
            survived=done.returncode == 2 and err.count("\n") == 1 and prompt and kept and sound,
            leaked=done.returncode in (0, 1) or "Traceback" in err,
            lost=not (kept and sound),
            why=f"exit {done.returncode}: {err[-300:]!r}",
        )
    return tally
