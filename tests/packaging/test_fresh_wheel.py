"""The wheel on a fresh machine: no ../shared beside it, the model hub unreachable.

The wheel is built from this checkout and installed (``--no-deps``) into a new
virtual environment in a temporary folder. The heavy dependencies come from the
test interpreter's own site-packages through one ``.pth`` line (a plain path: the
checkout's editable-install hooks there are *not* run), so what is tested is the
wheel's own contents. ``HF_HUB_OFFLINE=1``, a bogus ``HF_ENDPOINT``, a fresh
``HOME`` and a socket guard that records and refuses every connection make any
download attempt visible. Then ``memo demo`` and the README's Python snippets run
from a folder holding only ``samples/``: no download attempt, no fallback warning.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Building, installing and running the demo: minutes on a loaded 2-core machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

pytest.importorskip("model2vec", reason="the local extra is not installed")
pytest.importorskip("fastembed", reason="the local extra is not installed")

# Loaded in the fresh environment before anything else (a .pth "import" line).
SOCKET_GUARD = """
import os, socket

_log = os.environ["MEMO_TEST_CONNECTIONS"]
_connect = socket.socket.connect


def _refuse(self, address):
    with open(_log, "a", encoding="utf-8") as handle:
        handle.write(repr(address) + "\\n")
    raise OSError(f"connection attempted from the fresh install: {address!r}")


socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = lambda address, *a, **k: _refuse(None, address)
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fresh")
    wheels = root / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheels), str(REPO)],
        check=True, capture_output=True, timeout=600, cwd=root,
    )  # fmt: skip
    (wheel,) = wheels.glob("memo-*.whl")
    venv = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300
    )
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no checkout on the path
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-index", "--force-reinstall", "-q", str(wheel)],
        check=True, capture_output=True, timeout=600, env=clean,
    )  # fmt: skip
    assert (site / "memo_core" / "data" / "gate-model" / "model.safetensors").is_file()
    # The heavy dependencies, from this interpreter (a path line: its .pth hooks do not run).
    (site / "zz_dev_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (site / "memo_socket_guard.py").write_text(SOCKET_GUARD, encoding="utf-8")
    (site / "aa_memo_socket_guard.pth").write_text("import memo_socket_guard\n")
    clone = root / "clone"  # a checkout's samples, and no ../shared beside it
    shutil.copytree(REPO / "samples", clone / "samples")
    assert not (root / "shared").exists() and not (clone.parent / "shared").exists()
    home = root / "home"
    home.mkdir()
    return {"venv": venv, "clone": clone, "home": home, "log": root / "connections.log"}


def _env(fresh: dict[str, Path]) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL")}
    return {
        **keep,
        "HOME": str(fresh["home"]),
        "XDG_CACHE_HOME": str(fresh["home"] / ".cache"),
        "TMPDIR": str(fresh["home"]),
        "HF_HUB_OFFLINE": "1",
        "HF_ENDPOINT": "http://hub.invalid:9",
        "MEMO_TEST_CONNECTIONS": str(fresh["log"]),
    }


def _run(fresh: dict[str, Path], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), cwd=fresh["clone"], env=_env(fresh), capture_output=True, text=True,
        timeout=900, check=False,
    )  # fmt: skip


def _assert_offline_and_quiet(
    fresh: dict[str, Path], done: subprocess.CompletedProcess[str]
) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    assert not fresh["log"].exists(), fresh["log"].read_text()  # no connection attempted
    noisy = [
        line for line in done.stderr.splitlines()
        if re.search(r"warn|fall(s)? back|download|hub", line, re.IGNORECASE)
    ]  # fmt: skip
    assert noisy == []


def test_the_wheel_imports_from_itself(fresh: dict[str, Path]) -> None:
    done = _run(
        fresh,
        str(fresh["venv"] / "bin" / "python"),
        "-c",
        "import memo_core, memo_core.memory as m; from memo_core.memory import RecallGate; "
        "print(memo_core.__file__); print(m.DEFAULT_GATE_MODEL); "
        "print(RecallGate.default().uses_model)",
    )
    _assert_offline_and_quiet(fresh, done)
    where, model, uses_model = done.stdout.split()
    assert Path(where).is_relative_to(fresh["venv"]) and Path(model).is_relative_to(fresh["venv"])
    assert uses_model == "True"


def test_memo_demo_runs_with_no_download(fresh: dict[str, Path]) -> None:
    done = _run(fresh, str(fresh["venv"] / "bin" / "memo"), "demo")
    _assert_offline_and_quiet(fresh, done)
    assert "quote verified" in done.stdout and "REFUSED" in done.stdout
    assert "penicillin" in done.stdout and "(nothing recalled)" not in done.stdout


def test_the_readme_python_snippets_run_with_no_download(fresh: dict[str, Path]) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    local = [b for b in blocks if "from memo_core" in b and "postgresql://" not in b]
    assert len(local) >= 2  # the MemoBase and the MemoHood snippets
    for block in local:
        done = _run(fresh, str(fresh["venv"] / "bin" / "python"), "-c", block)
        _assert_offline_and_quiet(fresh, done)
    assert "penicillin" in done.stdout or "allerg" in done.stdout  # the memory block recalled
