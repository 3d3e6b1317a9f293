"""``memo setup`` driven without a terminal, against a fake paid API on 127.0.0.1."""

from __future__ import annotations

import io
import os
import shlex
import stat
from pathlib import Path

import hypothesis
import pytest
import yaml
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from ops_fakes import FakeAPI

from memo_core.cli import main
from memo_core.config import build_embedder, load_settings, read_secrets
from memo_core.errors import ConfigError
from memo_core.ledger import SpendLedger
from memo_core.setup_wizard import Endpoints, SetupWizard, mask, write_secrets

GOOD = "good-key-1234567890"
BAD = "bad-key-0000000000"


class Script:
    """Answers handed out in order; a question nobody scripted fails the test."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise AssertionError(f"unexpected question: {prompt!r}")
        return self.answers.pop(0)


def _wizard(
    folder: Path, api: FakeAPI, visible: Script, hidden: Script, out: list[str], **kw: str
) -> SetupWizard:
    endpoints = Endpoints(
        cloudflare=f"{api.base}/client/v4",
        cohere=api.base,
        whisper=kw.get("whisper", f"{api.base}/openai/v1"),
        llm_default=f"{api.base}/v1",
        local_llm_default=f"{api.base}/v1",
    )
    return SetupWizard(
        folder, ask=visible, ask_secret=hidden, say=out.append, endpoints=endpoints, env={}
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_cloud_flow_checks_each_key_and_stores_them_privately(
    tmp_path: Path, fake_api: FakeAPI
) -> None:
    folder = tmp_path / "cfg"
    visible = Script("cloud", "acct-1", "", "tiny", "2.5")  # mode, account, LLM url, model, ceiling
    hidden = Script(GOOD, GOOD, GOOD, GOOD)  # Cloudflare, Cohere, LLM, transcription
    out: list[str] = []
    result = _wizard(folder, fake_api, visible, hidden, out).run()

    assert result.mode == "cloud" and not result.skipped
    assert visible.answers == [] and hidden.answers == []
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["embedder"] == {
        "provider": "cloudflare",
        "model": "@cf/baai/bge-m3",
        "dims": 1024,
    }
    assert config["memobase"]["rerank"]["provider"] == "cohere"
    assert config["memobase"]["llm"] == {
        "base_url": f"{fake_api.base}/v1",
        "model": "tiny",
        "api_key_env": "MEMO_LLM_API_KEY",
    }
    assert config["memohood"] == {"embedder": "same"}
    assert config["spend"]["ceilings"]["cohere"] == 2.5
    secrets = folder / "secrets.env"
    assert _mode(secrets) == 0o600
    body = secrets.read_text()
    assert read_secrets(secrets) == {
        "CLOUDFLARE_ACCOUNT_ID": "acct-1",
        "CLOUDFLARE_API_TOKEN": GOOD,
        "COHERE_API_KEY": GOOD,
        "MEMO_LLM_API_KEY": GOOD,
        "MEMO_WHISPER_API_KEY": GOOD,
        "MEMO_WHISPER_API_BASE": f"{fake_api.base}/openai/v1",
    }
    assert f"CLOUDFLARE_API_TOKEN={shlex.quote(GOOD)}" in body.splitlines()
    assert GOOD not in (folder / "config.yaml").read_text()
    assert not any(GOOD in line for line in out)  # only masked keys reach the screen
    assert any(mask(GOOD) in line for line in out)
    # one live request per service, each carrying the typed key
    assert fake_api.requests == [
        ("POST", "/client/v4/accounts/acct-1/ai/run/@cf/baai/bge-m3", GOOD),
        ("POST", "/v2/rerank", GOOD),
        ("GET", "/v1/models", GOOD),
        ("GET", "/openai/v1/models", GOOD),
    ]
    # the paid checks are in the ledger beside the config
    ledger = SpendLedger(folder / "spend.db")
    assert set(ledger.by_provider()) == {"cloudflare", "cohere"}
    ledger.db.close()


def test_what_setup_wrote_is_what_memo_reads(tmp_path: Path, fake_api: FakeAPI) -> None:
    folder = tmp_path / "cfg"
    visible = Script("acct-1", "-", "2")
    hidden = Script(GOOD, "", "")
    _wizard(folder, fake_api, visible, hidden, [], whisper=f"{fake_api.base}/w").run("cloud")
    env = {
        "MEMO_CONFIG": str(folder / "config.yaml"),
        "MEMO_CLOUDFLARE_BASE_URL": f"{fake_api.base}/client/v4",
    }
    settings = load_settings(env=env)
    assert settings.secret("CLOUDFLARE_API_TOKEN") == GOOD
    assert settings.ceilings["cloudflare"] == 2.0
    ledger = SpendLedger(settings.spend_db, settings.ceilings)
    embedder = build_embedder(settings.kb_embedder, settings, ledger)
    assert embedder is not None
    before = ledger.month_spend("cloudflare")
    assert len(embedder.embed_query("a question")) == 4
    assert ledger.month_spend("cloudflare") > before
    ledger.db.close()


def test_rejected_keys_are_asked_again_or_skipped(tmp_path: Path, fake_api: FakeAPI) -> None:
    folder = tmp_path / "cfg"
    # Cloudflare: bad token, then give up (empty account id); Cohere: bad then good.
    visible = Script("acct-1", "", "-", "")  # account, account (skip), LLM (skip), ceiling
    hidden = Script(BAD, BAD, GOOD, "")  # CF token, Cohere x2, transcription (skip)
    out: list[str] = []
    result = _wizard(folder, fake_api, visible, hidden, out).run("cloud")

    assert any("Cloudflare: the key was rejected (HTTP 401)" in line for line in out)
    assert any("Cohere: the key was rejected" in line for line in out)
    assert "Cohere: accepted" in " ".join(out)
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["embedder"] == {"provider": "local"}
    assert config["memobase"]["rerank"]["provider"] == "cohere"
    assert "llm" not in config["memobase"]
    secrets = (folder / "secrets.env").read_text()
    assert "CLOUDFLARE" not in secrets and BAD not in secrets
    assert read_secrets(folder / "secrets.env") == {"COHERE_API_KEY": GOOD}
    assert "embeddings: local model" in result.skipped
    assert "transcription: local faster-whisper" in result.skipped
    assert "answers: extractive (verified sentences, no LLM)" in result.skipped


def test_three_rejections_then_the_service_is_skipped(tmp_path: Path, fake_api: FakeAPI) -> None:
    visible = Script("", "-", "")  # Cloudflare account (skip), LLM (skip), ceiling
    hidden = Script(BAD, BAD, BAD, "")  # Cohere x3, transcription skip
    out: list[str] = []
    result = _wizard(tmp_path / "cfg", fake_api, visible, hidden, out).run("cloud")
    assert "Cohere: skipped after 3 failed checks" in [line.strip() for line in out]
    assert "rerank: fused order" in result.skipped
    assert [p for m, p, _ in fake_api.requests] == ["/v2/rerank"] * 3


def test_local_mode_asks_no_cloud_key(tmp_path: Path, fake_api: FakeAPI) -> None:
    fake_api.has_models = False  # the check falls back to a 1-token chat completion
    folder = tmp_path / "cfg"
    visible = Script("nope", "local", "", "", "tiny")  # a wrong mode is asked again
    hidden = Script(GOOD)  # the LLM key only
    out: list[str] = []
    result = _wizard(folder, fake_api, visible, hidden, out).run()
    assert result.mode == "local" and "  please answer local or cloud" in out
    assert fake_api.paths() == ["/v1/models", "/v1/chat/completions"]
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["embedder"] == {"provider": "local"}
    assert "spend" not in config
    assert not [p for p in hidden.prompts if "Cloudflare" in p or "Cohere" in p]


def test_rerun_keeps_stored_keys_on_enter_and_removes_on_dash(
    tmp_path: Path, fake_api: FakeAPI
) -> None:
    folder = tmp_path / "cfg"
    _wizard(folder, fake_api, Script("acct-1", "-", ""), Script(GOOD, GOOD, ""), []).run("cloud")
    secrets = folder / "secrets.env"
    assert read_secrets(secrets)["COHERE_API_KEY"] == GOOD
    os.chmod(secrets, 0o644)  # someone loosened it: the rewrite tightens it again
    # Enter keeps the account id and token; '-' removes the Cohere key.
    hidden = Script("", "-", "")
    _wizard(folder, fake_api, Script("", "-"), hidden, []).run("cloud")
    assert "Enter: keep the stored one" in hidden.prompts[0]
    stored = read_secrets(secrets)
    assert stored["CLOUDFLARE_API_TOKEN"] == GOOD and "COHERE_API_KEY" not in stored
    assert _mode(secrets) == 0o600
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert "rerank" not in config["memobase"]  # Cohere removed: fused order
    assert config["spend"]["ceilings"]["cloudflare"] == 5.0  # kept, not asked again


def test_write_secrets_never_exposes_the_file(tmp_path: Path) -> None:
    old = os.umask(0)  # even with the most permissive umask
    try:
        path = tmp_path / "deep" / "secrets.env"
        write_secrets(path, {"B": "2", "A": "1"})
    finally:
        os.umask(old)
    assert _mode(path) == 0o600
    assert path.read_text().splitlines()[1:] == ["A=1", "B=2"]
    assert [p.name for p in path.parent.iterdir()] == ["secrets.env"]


def test_setup_command_reads_piped_answers(
    tmp_path: Path, fake_api: FakeAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cfg"
    answers = "\n".join(["", "", "tiny", GOOD]) + "\n"  # embeddings, LLM url, model, key
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    code = main(
        [
            "setup",
            "--config-dir",
            str(folder),
            "--mode",
            "local",
            "--llm-url",
            f"{fake_api.base}/v1",
            "--stdin",
        ]
    )
    assert code == 0
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["llm"]["model"] == "tiny"
    assert _mode(folder / "secrets.env") == 0o600
    assert fake_api.requests == [("GET", "/v1/models", GOOD)]


_VALUES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"),
    max_size=40,
)
_KEYS = st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True)


@hypothesis.settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.dictionaries(_KEYS, _VALUES, max_size=5))
def test_secrets_round_trip_exactly(tmp_path: Path, values: dict[str, str]) -> None:
    path = tmp_path / "round" / "secrets.env"
    write_secrets(path, values)
    assert read_secrets(path) == values


@pytest.mark.parametrize(
    "values", [{"BAD KEY": "x"}, {"A=B": "x"}, {"": "x"}, {"KEY": "two\nlines"}, {"KEY": "nul\x00"}]
)
def test_write_secrets_refuses_what_it_could_not_read_back(
    tmp_path: Path, values: dict[str, str]
) -> None:
    with pytest.raises(ConfigError):
        write_secrets(tmp_path / "s.env", values)
    assert not (tmp_path / "s.env").exists()


def test_setup_without_a_terminal_refuses_unless_options_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cfg"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # like `memo setup < /dev/null`
    code = main(["setup", "--config-dir", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--stdin" in err and "--mode" in err
    assert not folder.exists()  # no configuration nobody chose
    local = ["setup", "--config-dir", str(folder), "--mode", "local"]
    assert main(local) == 2 and "Embeddings" in capsys.readouterr().err and not folder.exists()
    assert main([*local, "--embedding", "english"]) == 2
    assert "LLM base URL" in capsys.readouterr().err and not folder.exists()
    code = main([*local, "--embedding", "english", "--no-llm"])
    assert code == 0, capsys.readouterr().err
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["embedder"] == {"provider": "local"}
    assert "llm" not in config["memobase"]
    assert main([*local, "--embedding", "multilingual", "--no-llm"]) == 0
    out = capsys.readouterr().out
    assert "intfloat/multilingual-e5-large" in out and "2.2 GB" in out  # the size is said
    config = yaml.safe_load((folder / "config.yaml").read_text())
    assert config["memobase"]["embedder"] == {
        "provider": "local",
        "model": "intfloat/multilingual-e5-large",
        "dims": 1024,
    }
