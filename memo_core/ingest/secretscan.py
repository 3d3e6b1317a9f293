"""Find credentials in text before it is stored, and redact them.

Two families of patterns: tokens with a recognisable shape (``AKIA...``,
``ghp_...``, ``sk-ant-...``, PEM private key blocks, JWTs), found anywhere; and
keys without a shape (Cohere, Cloudflare, generic ``api_key = ...``), found only
in an assignment, and for the generic case only when the value looks random
(mixed character classes, high entropy), so "password: see the wiki" is left
alone. Two more need context: a password inside a URL's userinfo
(``postgres://user:pw@host``, ``redis://:pw@host``, ``https://user:pw@...``, any
scheme), and an AWS secret access key (40 base64 characters) that is not on an
``aws_secret_access_key =`` line but sits near an AWS access key id or after a
secret-ish label on its line. A finding covers the secret value itself, so
redaction keeps the name: ``api_key = [REDACTED:generic_assignment]``,
``postgres://app:[REDACTED:url_password]@db``.

:func:`redact_text` is the one call for text that is about to be stored outside
the ingest pipeline (memory capture scans every turn with it); its signature is
stable.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "SECRET_PATTERNS",
    "RedactedText",
    "SecretFinding",
    "SecretPattern",
    "redact_secrets",
    "redact_text",
    "scan_secrets",
    "shift_offset",
]


@dataclass(frozen=True)
class SecretFinding:
    """A secret of type ``kind`` at ``text[start:end]``."""

    kind: str
    start: int
    end: int

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "start": self.start, "end": self.end}


_ASSIGN = r"""["']?\s*(?:=|:|=>|:=)\s*["']?"""


@dataclass(frozen=True)
class SecretPattern:
    """One kind of secret: its regex, the group holding the value, and cheap hints.

    ``hints`` are substrings one of which must occur in the text for the regex to
    be worth running (most text contains none). A case-insensitive pattern has an
    ``anchor``: a lowercase, case-sensitive regex run over the lowercased text to
    find where the pattern can start, because Python's case-insensitive search is
    about ten times slower than a case-sensitive one.
    """

    kind: str
    regex: re.Pattern[str]
    group: int
    hints: tuple[str, ...]
    anchor: re.Pattern[str] | None = None


def _p(
    kind: str, regex: str, hints: tuple[str, ...], group: int = 0, anchor: str = ""
) -> SecretPattern:
    return SecretPattern(
        kind, re.compile(regex), group, hints, re.compile(anchor) if anchor else None
    )


_KEYWORDS = (
    r"(?:api_?key|apikey|secret|token|passw(?:or)?d|passwd|access_?key|auth_?key|credential)"
)

#: Most specific first: a span already claimed by an earlier pattern is not
#: reported again by a later one.
SECRET_PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "private_key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:\n[A-Za-z0-9+/=]+)*)",
        ("PRIVATE KEY",),
    ),
    _p(
        "url_password",
        # Anchored on "://" (a fast literal search), whatever the scheme; the user
        # part may be empty (redis://:pw@host); the password runs to the last "@"
        # of the authority, so an unescaped "@" inside it is still covered.
        r"://[^\s:/@?#\[\]\"'<>]*:([^\s/?#\"'<>]+)@(?=[A-Za-z0-9\[_\-])",
        ("://",),
        group=1,
    ),
    _p(
        "url_password",
        # A credential in a connection URL's query (jdbc:...?user=app&password=pw).
        r"(?i)[?&;](?:password|passwd|pwd|pass|secret|token|api_?key|access_?token)"
        r"=([^&;\s#\"'<>]+)",
        ("pass", "pwd", "secret", "token", "key"),
        group=1,
        anchor=r"[?&;](?:password|passwd|pwd|pass|secret|token|api_?key|access_?token)=",
    ),
    _p(
        "aws_access_key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    _p(
        "aws_secret_key",
        r"(?i)aws_?secret_?(?:access_?)?key" + _ASSIGN + r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("aws",),
        group=1,
        anchor=r"aws_?secret",
    ),
    _p(
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _p("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}", ("glpat-",)),
    _p("slack_token", r"\bxox[abeoprs]-[A-Za-z0-9\-]{10,}", ("xox",)),
    _p(
        "slack_webhook",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
        ("hooks.slack.com",),
    ),
    _p("anthropic_key", r"\bsk-ant-[a-z0-9]+-[A-Za-z0-9_\-]{40,}", ("sk-ant-",)),
    _p("openai_key", r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}", ("sk-",)),
    _p("groq_key", r"\bgsk_[A-Za-z0-9]{40,}", ("gsk_",)),
    _p("stripe_key", r"\b[rs]k_live_[A-Za-z0-9]{20,}", ("k_live_",)),
    _p("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}\b", ("AIza",)),
    _p("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", ("eyJ",)),
    _p(
        "cohere_key",
        r"(?i)\bco(?:here)?_?api_?key" + _ASSIGN + r"([A-Za-z0-9]{40})(?![A-Za-z0-9])",
        ("cohere", "co_api", "coapi"),
        group=1,
        anchor=r"\bco(?:here)?_?api_?key",
    ),
    _p(
        "cloudflare_token",
        r"(?i)\b(?:cloudflare|cf)_?(?:api_?)?(?:token|key)"
        + _ASSIGN
        + r"([A-Za-z0-9_\-]{37,40})(?![A-Za-z0-9_\-])",
        ("cloudflare", "cf"),
        group=1,
        anchor=r"\b(?:cloudflare|cf)_?(?:api_?)?(?:token|key)",
    ),
    _p(
        "generic_assignment",
        # Anchored on the keyword: "MY_API_KEY = v" is found from "API_KEY".
        r"(?i)" + _KEYWORDS + r"s?[\w.\-]{0,40}" + _ASSIGN + r"([^\s\"'`,;]{12,})",
        ("key", "secret", "token", "passw", "credential"),
        group=1,
        anchor=_KEYWORDS,
    ),
)

_PLACEHOLDER = re.compile(
    r"^(?:\$|\{\{|<|%|\.\.\.)|x{6,}|\*{4,}|your|example|changeme|placeholder", re.I
)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """A generic assignment's value must look like a key, not like a word or a path."""
    if _PLACEHOLDER.search(value) or ("/" in value and value.count("/") > 2):
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )
    return classes >= 2 and any(c.isdigit() for c in value) and _entropy(value) >= 3.0


#: Template syntax, not a password: ``${DB_PASS}``, ``<password>``, ``{{pw}}``, ``%s``, ``***``.
_URL_TEMPLATE = re.compile(
    r"^(?:\$[A-Z_][A-Z0-9_]*|\$\{[^{}]+\}|\$\(\w+\)|\{\{?[^{}]*\}\}?|<[^<>]*>"
    r"|%s|%\(\w+\)s|\*+|[xX]+)$"
)

#: A candidate AWS secret access key: 40 base64 characters standing alone.
_AWS_SECRET_SHAPE = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
#: A label that makes a key-shaped value on the same line a secret (lowercased text).
_SECRET_LABEL = re.compile(r"secret|aws|credential|passw|private|access.?key")
_LABEL_REACH = 80  # characters before the value, on its line
_KEY_ID_REACH = 400  # characters either side of an access key id


def _accepts(kind: str, value: str) -> bool:
    if kind == "generic_assignment":
        return _looks_random(value)
    if kind == "url_password":
        return not _URL_TEMPLATE.search(value)
    return True


def _looks_like_aws_secret(value: str, *, strong_context: bool) -> bool:
    """Base64 of random bytes: both letter cases, high entropy (not hex, not a word).

    In a weak context (a "password" or "private" label) a digit or ``/+`` is also
    required, so a long CamelCase name is not taken for a key; beside an access
    key id or after "aws"/"secret" it is not, since one secret in a few thousand
    has none.
    """
    return (
        any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and (strong_context or any(c.isdigit() or c in "/+" for c in value))
        and _entropy(value) >= 3.5
    )


def _aws_secrets_in_context(
    text: str, lowered: str, key_ids: list[SecretFinding]
) -> Iterator[tuple[int, int]]:
    """Spans of 40-character AWS secret keys near an access key id or after a label."""
    if not key_ids and not _SECRET_LABEL.search(lowered):
        return
    for match in _AWS_SECRET_SHAPE.finditer(text):
        start, end = match.span()
        near_id = any(
            start - _KEY_ID_REACH <= k.start and k.end <= end + _KEY_ID_REACH for k in key_ids
        )
        line_start = text.rfind("\n", 0, start) + 1
        window = lowered[max(line_start, start - _LABEL_REACH) : start]
        if len(lowered) != len(text):  # lower() changed lengths: offsets do not line up
            window = ""
        labels = set(_SECRET_LABEL.findall(window))
        strong = near_id or bool(labels & {"aws", "secret"})
        if (near_id or labels) and _looks_like_aws_secret(match.group(), strong_context=strong):
            yield start, end


def scan_secrets(text: str) -> list[SecretFinding]:
    """Every secret found in ``text``, sorted by position, never overlapping."""
    findings: list[SecretFinding] = []
    claimed: list[tuple[int, int]] = []
    lowered = text.lower()
    for pattern in SECRET_PATTERNS:
        haystack = lowered if pattern.anchor is not None else text
        if not any(hint in haystack for hint in pattern.hints):
            continue
        kind, group = pattern.kind, pattern.group
        for match in _matches(pattern, text, lowered):
            start, end = match.span(group)
            if start < 0 or end <= start:
                continue
            if not _accepts(kind, match.group(group)):
                continue
            if any(start < c_end and c_start < end for c_start, c_end in claimed):
                continue
            claimed.append((start, end))
            findings.append(SecretFinding(kind, start, end))
    key_ids = [f for f in findings if f.kind == "aws_access_key"]
    for start, end in _aws_secrets_in_context(text, lowered, key_ids):
        if not any(start < c_end and c_start < end for c_start, c_end in claimed):
            claimed.append((start, end))
            findings.append(SecretFinding("aws_secret_key", start, end))
    return sorted(findings, key=lambda f: f.start)


@dataclass(frozen=True)
class RedactedText:
    """What :func:`redact_text` returns: the safe text and what was taken out of it.

    ``findings`` are the ``[REDACTED:kind]`` markers' spans in ``text`` (never
    the secret values); ``kinds`` their sorted distinct kinds.
    """

    text: str
    findings: tuple[SecretFinding, ...]

    @property
    def found(self) -> bool:
        return bool(self.findings)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(sorted({f.kind for f in self.findings}))


def redact_text(text: str) -> RedactedText:
    """Scan ``text`` and replace every secret with ``[REDACTED:kind]``.

    The one entry point for text stored outside the ingest pipeline, such as a
    captured conversation turn; stable signature: ``str`` in, :class:`RedactedText`
    out, no configuration (the ingest pipeline's block/redact/allow policy is
    :func:`memo_core.ingest.apply_secret_policy`). Text without secrets comes back
    unchanged (the same string), so callers can compare cheaply.
    """
    findings = scan_secrets(text)
    if not findings:
        return RedactedText(text, ())
    return RedactedText(redact_secrets(text, findings), tuple(redacted_findings(findings)))


def _matches(pattern: SecretPattern, text: str, lowered: str) -> Iterator[re.Match[str]]:
    if pattern.anchor is None or len(lowered) != len(text):  # lower() can change lengths
        yield from pattern.regex.finditer(text)
        return
    end = 0
    for anchor in pattern.anchor.finditer(lowered):
        if anchor.start() < end:
            continue
        match = pattern.regex.match(text, anchor.start())
        if match:
            end = match.end()
            yield match


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def redact_secrets(text: str, findings: list[SecretFinding]) -> str:
    """``text`` with every finding replaced by ``[REDACTED:kind]``."""
    parts: list[str] = []
    cursor = 0
    for finding in sorted(findings, key=lambda f: f.start):
        parts.append(text[cursor : finding.start])
        parts.append(_marker(finding.kind))
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


def shift_offset(position: int, findings: list[SecretFinding]) -> int:
    """Where ``position`` of the original text lands after :func:`redact_secrets`.

    A position inside a secret moves to the end of its marker.
    """
    shift = 0
    for finding in sorted(findings, key=lambda f: f.start):
        if position <= finding.start:
            break
        marker = len(_marker(finding.kind))
        if position < finding.end:
            return finding.start + shift + marker
        shift += marker - (finding.end - finding.start)
    return position + shift


def redacted_findings(findings: list[SecretFinding]) -> list[SecretFinding]:
    """The findings' positions in the redacted text (the markers' spans)."""
    out: list[SecretFinding] = []
    for finding in sorted(findings, key=lambda f: f.start):
        start = shift_offset(finding.start, findings)
        out.append(SecretFinding(finding.kind, start, start + len(_marker(finding.kind))))
    return out
