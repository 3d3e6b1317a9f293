"""config.yaml loading, the secrets file (environment wins), and where the ledger lives."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from memo_core.config import (
    EmbedderSpec,
    build_embedder,
    build_ledger,
    build_search_settings,
    config_dir,
    load_settings,
    read_secrets,
    secrets_path,
)
from memo_core.errors import BudgetExceededError, ConfigError

ISSUE_SHAPE = """
memobase:
  embedder: {provider: local, model: memo/all-MiniLM-L6-v2-int8, dims: 384}
  roots: [~/Documents, /srv/notes]
  rerank: {provider: cohere, model: rerank-v3.5}
  llm: {base_url: http://localhost:11434/v1, model: llama3.1, api_key_env: OLLAMA_KEY}
memohood:
  embedder: same
spend:
  ceilings: {cloudflare: 5, cohere: 2.5}
"""


def _write(folder: Path, text: str, name: str = "config.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_shape_users_know(tmp_path: Path) -> None:
    path = _write(tmp_path, ISSUE_SHAPE)
    settings = load_settings(path, env={"HOME": str(tmp_path / "home")})
    assert settings.kb_embedder == EmbedderSpec("local", "memo/all-MiniLM-L6-v2-int8", 384)
    assert settings.memory_embedder == settings.kb_embedder  # "same"
    assert settings.roots == (str(Path("~/Documents").expanduser()), "/srv/notes")
    assert dict(settings.rerank) == {"provider": "cohere", "model": "rerank-v3.5"}
    assert settings.llm["api_key_env"] == "OLLAMA_KEY"
    assert settings.ceilings == {"cloudflare": 5.0, "cohere": 2.5}


def test_memory_embedder_can_differ(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
        memobase: {embedder: {provider: hash, dims: 64}}
        memohood: {embedder: {provider: hash, dims: 32}}
        """,
    )
    settings = load_settings(path, env={})
    assert settings.kb_embedder.dims == 64 and settings.memory_embedder.dims == 32
    assert build_embedder(settings.memory_embedder, settings).dimensions == 32  # type: ignore[union-attr]


def test_defaults_without_a_file(tmp_path: Path) -> None:
    env = {"MEMO_CONFIG": str(tmp_path / "absent" / "config.yaml")}
    settings = load_settings(env=env)
    assert settings.kb_embedder == EmbedderSpec() and settings.ceilings == {}
    assert settings.spend_db == str(tmp_path / "absent" / "spend.db")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("memobase: [1, 2", "invalid YAML"),
        ("- just\n- a list\n", "top level must be a mapping"),
        ("memobase: {embedder: {provider: local, colour: red}}", "unknown embedder keys"),
        ("memobase: {embedder: 42}", "embedder must be a mapping"),
    ],
)
def test_bad_files_are_config_errors(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError, match=message):
        load_settings(path, env={})


def test_an_explicit_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.yaml", env={})


def test_secrets_file_is_read_and_the_environment_wins(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    config = _write(folder, "memobase: {embedder: {provider: hash}}")
    _write(
        folder,
        """
        # written by memo setup
        COHERE_API_KEY=from-file
        export CLOUDFLARE_ACCOUNT_ID="quoted-account"
        CLOUDFLARE_API_TOKEN='single'
        not a pair
        """,
        name="secrets.env",
    )
    env = {"MEMO_CONFIG": str(config), "COHERE_API_KEY": "from-env"}
    settings = load_settings(env=env)
    assert settings.secret("COHERE_API_KEY") == "from-env"
    assert settings.secret("CLOUDFLARE_ACCOUNT_ID") == "quoted-account"
    assert settings.secret("CLOUDFLARE_API_TOKEN") == "single"
    assert settings.secret("not a pair") is None
    # An explicit environment that names no location reads no secrets file at all.
    assert load_settings(config, env={}).secret("CLOUDFLARE_API_TOKEN") is None


def test_secret_locations(tmp_path: Path) -> None:
    assert config_dir({"HOME": str(tmp_path)}) == tmp_path / ".config" / "memo"
    assert config_dir({"MEMO_CONFIG": str(tmp_path / "x" / "c.yaml")}) == tmp_path / "x"
    assert secrets_path({"MEMO_SECRETS": str(tmp_path / "s.env")}) == tmp_path / "s.env"
    assert secrets_path({"HOME": str(tmp_path)}) == tmp_path / ".config/memo/secrets.env"
    assert read_secrets(tmp_path / "absent.env") == {}
    custom = tmp_path / "elsewhere.env"
    custom.write_text("GROQ_API_KEY=g\n", encoding="utf-8")
    assert load_settings(env={"MEMO_SECRETS": str(custom)}).secret("GROQ_API_KEY") == "g"


def test_ledger_location_and_ceilings(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    config = _write(folder, "spend: {ceilings: {cohere: 0.003}}")
    settings = load_settings(env={"MEMO_CONFIG": str(config)})
    assert settings.spend_db == str(folder / "spend.db")
    ledger = build_ledger(settings)
    ledger.charge("cohere", "rerank", 1)
    with pytest.raises(BudgetExceededError):
        ledger.charge("cohere", "rerank", 1)
    ledger.db.close()
    moved = _write(folder, f"spend: {{ledger: {tmp_path / 'l.db'}}}", name="other.yaml")
    assert load_settings(moved, env={}).spend_db == str(tmp_path / "l.db")
    env = {"MEMO_CONFIG": str(config), "MEMO_SPEND_DB": str(tmp_path / "env.db")}
    assert load_settings(env=env).spend_db == str(tmp_path / "env.db")


def test_cloudflare_embedder_gets_keys_base_url_and_ledger(tmp_path: Path) -> None:
    env = {
        "CLOUDFLARE_ACCOUNT_ID": "acc",
        "CLOUDFLARE_API_TOKEN": "tok",
        "MEMO_CLOUDFLARE_BASE_URL": "http://127.0.0.1:9/client/v4",
        "MEMO_SPEND_DB": str(tmp_path / "spend.db"),
    }
    settings = load_settings(env=env)
    ledger = build_ledger(settings)
    embedder = build_embedder(EmbedderSpec("cloudflare"), settings, ledger)
    assert embedder is not None and embedder.dimensions == 1024
    assert embedder.url.startswith("http://127.0.0.1:9/client/v4/accounts/acc/")  # type: ignore[attr-defined]
    assert embedder.ledger is ledger  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="CLOUDFLARE_ACCOUNT_ID"):
        build_embedder(EmbedderSpec("cloudflare"), load_settings(env={}))


def test_search_settings_come_from_the_memobase_section(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "memobase:\n  search: {vector_index: hnsw, keyword_index: memory, candidates: 60}\n"
    )
    search = build_search_settings(load_settings(path, env={}))
    assert (search.vector_index, search.keyword_index, search.candidates) == ("hnsw", "memory", 60)
    assert build_search_settings(load_settings(tmp_path / "config.yaml", env={})).rrf_k == 60
    (tmp_path / "plain.yaml").write_text("memobase: {roots: []}\n")
    default = build_search_settings(load_settings(tmp_path / "plain.yaml", env={}))
    assert default.keyword_index == "auto" and default.vector_index == "auto"


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("{keyword_index: lucene}", "keyword_index"),
        ("{vector_idx: hnsw}", "unknown search keys"),
    ],
)
def test_bad_search_settings_are_config_errors(tmp_path: Path, section: str, message: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(f"memobase:\n  search: {section}\n")
    with pytest.raises(ConfigError, match=message):
        build_search_settings(load_settings(path, env={}))
