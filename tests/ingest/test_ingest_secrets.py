"""The secret scanner, redaction, and the block/redact/allow policy on extract.

Fake credentials are assembled at run time so that no secret-shaped string is
committed (and no repository scanner trips over the test file).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.errors import SecretFoundError
from memo_core.ingest import (
    DocumentBuilder,
    ExtractedDocument,
    IngestPolicy,
    apply_secret_policy,
    extract,
    redact_secrets,
    redact_text,
    scan_secrets,
)

R = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY"  # 32 mixed characters to build fakes from


def fake(prefix: str, length: int, alphabet: str = R) -> str:
    body = (alphabet * (length // len(alphabet) + 1))[:length]
    return prefix + body


SECRETS = {
    "aws_access_key": "AK" + "IA" + "IOSFODNN7EXAMPLE",
    "github_token": fake("gh" + "p_", 36),
    "gitlab_token": fake("gl" + "pat-", 20),
    "slack_token": "xo" + "xb-" + "1234567890-abcdefghij",
    "openai_key": fake("s" + "k-proj-", 40),
    "anthropic_key": fake("s" + "k-ant-api03-", 80),
    "groq_key": fake("gs" + "k_", 48),
    "google_api_key": fake("AI" + "za", 35),
    "jwt": "ey"
    + "JhbGciOiJIUzI1NiJ9.ey"
    + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize(("kind", "secret"), sorted(SECRETS.items()))
def test_shaped_tokens_are_found_anywhere(kind: str, secret: str) -> None:
    text = f"Deploy notes: use {secret} for the staging box."
    findings = scan_secrets(text)
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, secret)]


def test_private_key_block() -> None:
    block = (
        "-----BEGIN "
        + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabcDEF123+/=\n-----END "
        + "RSA PRIVATE KEY-----"
    )
    text = f"key below\n{block}\nafter"
    (finding,) = scan_secrets(text)
    assert finding.kind == "private_key" and text[finding.start : finding.end] == block
    unterminated = (
        "-----BEGIN "
        + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAABG5vbmU\n\nprose after"
    )
    (cut,) = scan_secrets(unterminated)
    assert "prose after" not in unterminated[cut.start : cut.end]
    assert "AAAABG5vbmU" in unterminated[cut.start : cut.end]


@pytest.mark.parametrize(
    ("line", "kind", "value"),
    [
        ("api_key = " + fake("", 24), "generic_assignment", fake("", 24)),
        ('"client_secret": "' + fake("", 30) + '"', "generic_assignment", fake("", 30)),
        ("DB_PASSWORD=Xk9#mQ2$vL7@pR4w", "generic_assignment", "Xk9#mQ2$vL7@pR4w"),
        ("cohere_api_key: " + fake("", 40), "cohere_key", fake("", 40)),
        ("CLOUDFLARE_API_TOKEN=" + fake("", 40), "cloudflare_token", fake("", 40)),
        (
            "aws_secret_access_key = " + fake("", 40, R + "/+"),
            "aws_secret_key",
            fake("", 40, R + "/+"),
        ),
    ],
)
def test_assignments(line: str, kind: str, value: str) -> None:
    findings = scan_secrets(f"config:\n{line}\n")
    text = f"config:\n{line}\n"
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, value)]


@pytest.mark.parametrize(
    "text",
    [
        "password: see the wiki page for details",
        "api_key = ${OPENAI_API_KEY}",
        "token = <your-token-here>",
        "secret_santa = Christmasgifts",
        "The AKIA prefix alone is not a key.",
        "sk-learn is a library; ghp is a prefix.",
        "api_key = xxxxxxxxxxxxxxxxxxxx",
        "token: os.environ['TOKEN']",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert scan_secrets(text) == []


def test_redaction_keeps_the_name() -> None:
    text = "api_key = " + fake("", 24) + "\nand " + SECRETS["github_token"]
    redacted = redact_secrets(text, scan_secrets(text))
    assert redacted == "api_key = [REDACTED:generic_assignment]\nand [REDACTED:github_token]"


def _doc_with_secret(secret: str) -> ExtractedDocument:
    builder = DocumentBuilder()
    builder.add("# Page one\nNothing to see.", {"page": 1})
    builder.add(f"Credentials: {secret} keep safe.", {"page": 2})
    builder.add("Closing page text.", {"page": 3})
    return builder.build(source="/doc.pdf", title="doc", kind="pdf")


def test_redact_moves_sections_and_reports_marker_spans() -> None:
    secret = SECRETS["openai_key"]
    doc = _doc_with_secret(secret)
    out = apply_secret_policy(doc, IngestPolicy(allowed_roots=[], secrets="redact"))
    assert secret not in out.text and "Credentials: [REDACTED:openai_key] keep safe." in out.text
    assert [out.text[s.start : s.end] for s in out.sections] == [
        "# Page one\nNothing to see.",
        "Credentials: [REDACTED:openai_key] keep safe.",
        "Closing page text.",
    ]
    (reported,) = out.metadata["secrets"]
    assert out.text[reported["start"] : reported["end"]] == "[REDACTED:openai_key]"
    assert out.metadata["secrets_action"] == "redacted"
    assert out.content_hash != doc.content_hash


def test_allow_keeps_text_and_reports() -> None:
    secret = SECRETS["github_token"]
    out = apply_secret_policy(
        _doc_with_secret(secret), IngestPolicy(allowed_roots=[], secrets="allow")
    )
    (reported,) = out.metadata["secrets"]
    assert out.text[reported["start"] : reported["end"]] == secret
    assert "value" not in reported  # the report never carries the secret itself


def test_block_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / ".env.txt"
    path.write_text("OPENAI_API_KEY=" + SECRETS["openai_key"] + "\n", encoding="utf-8")
    with pytest.raises(SecretFoundError, match="openai_key"):
        extract(path, policy=IngestPolicy(allowed_roots=[tmp_path], secrets="block"))
    doc = extract(path, policy=IngestPolicy(allowed_roots=[tmp_path]))  # default: redact
    assert isinstance(doc, ExtractedDocument)
    assert doc.text == "OPENAI_API_KEY=[REDACTED:openai_key]"


def test_clean_document_is_untouched() -> None:
    doc = _doc_with_secret("nothing")
    assert apply_secret_policy(doc, IngestPolicy(allowed_roots=[], secrets="block")) is doc


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["plain words", "more text.", *SECRETS.values()]), st.integers(1, 9)
        ),
        min_size=1,
        max_size=8,
    )
)
def test_redacted_sections_still_cover_their_text(pieces: list[tuple[str, int]]) -> None:
    builder = DocumentBuilder()
    for text, page in pieces:
        builder.add(f"before {text} after", {"page": page})
    doc = builder.build(source="/d", title="d", kind="pdf")
    out = apply_secret_policy(doc, IngestPolicy(allowed_roots=[], secrets="redact"))
    ExtractedDocument(
        text=out.text, source="/d", title="d", kind="pdf", sections=out.sections
    )  # valid spans
    assert scan_secrets(out.text) == []
    for original, moved in zip(doc.sections, out.sections, strict=True):
        assert (
            redact_secrets(
                doc.text[original.start : original.end],
                scan_secrets(doc.text[original.start : original.end]),
            )
            == out.text[moved.start : moved.end]
        )


def test_text_whose_lowercase_changes_length_is_still_scanned() -> None:
    value = fake("", 24)
    text = "İstanbul office config: api_key = " + value  # "İ".lower() is two characters
    assert len(text.lower()) != len(text)
    (finding,) = scan_secrets(text)
    assert text[finding.start : finding.end] == value


AWS_SECRET = fake("", 38, R + "/+") + "/K"  # 40 base64 characters, both cases


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Connect with postgres" + "://app:" + R[:14] + "@db.internal:5432/main", R[:14]),
        ("mysql" + "://root:" + R[:9] + "@10.0.0.5/app", R[:9]),
        ("cache at redis" + "://:" + R[:11] + "@cache:6379/0", R[:11]),
        ("queue amqp" + "://guest:" + R[:8] + "@rabbit//", R[:8]),
        ("mirror https" + "://bob:" + R[:10] + "@example.org/x", R[:10]),
        (
            "mongodb+srv" + "://app:" + R[:6] + "@" + R[6:9] + "@cluster0.example.net/db",
            R[:6] + "@" + R[6:9],
        ),
        ("jdbc:postgresql://db/app?user=app&pass" + "word=" + R[:7] + "&ssl=true", R[:7]),
    ],
)
def test_passwords_in_url_userinfo_are_redacted(text: str, value: str) -> None:
    assert value in text
    (finding,) = scan_secrets(text)
    assert finding.kind == "url_password" and text[finding.start : finding.end].endswith(value)
    assert value not in redact_secrets(text, [finding])


@pytest.mark.parametrize(
    "text",
    [
        "Key " + SECRETS["aws_access_key"] + "\nand its partner " + AWS_SECRET,
        "Access key ID,Secret access key\n" + SECRETS["aws_access_key"] + "," + AWS_SECRET,
        "my aws secret is " + AWS_SECRET + " until June",
        "| secret | " + AWS_SECRET + " |",
    ],
)
def test_aws_secret_keys_away_from_their_assignment_line(text: str) -> None:
    kinds = {f.kind for f in scan_secrets(text)}
    assert "aws_secret_key" in kinds
    assert AWS_SECRET not in redact_secrets(text, scan_secrets(text))


@pytest.mark.parametrize(
    "text",
    [
        "See http://example.com:8080/path@v2 for the tag.",
        "postgres://${DB_USER}:${DB_PASSWORD}@db/app is the template",
        "Commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the secret leak.",
        "random text " + AWS_SECRET + " with no label or key id nearby",
    ],
)
def test_url_and_aws_look_alikes_are_left_alone(text: str) -> None:
    assert scan_secrets(text) == []


def test_redact_text_is_the_one_call_for_captured_text() -> None:
    turn = "my db is postgres" + "://me:" + R[:12] + "@localhost/notes, thanks"
    result = redact_text(turn)
    assert result.found and result.kinds == ("url_password",)
    assert R[:12] not in result.text
    assert result.text == "my db is postgres://me:[REDACTED:url_password]@localhost/notes, thanks"
    (marker,) = result.findings
    assert result.text[marker.start : marker.end] == "[REDACTED:url_password]"
    clean = "nothing secret here"
    assert redact_text(clean).text is clean and not redact_text(clean).found
