"""Root restriction: `..` and symlinks that leave the allowed folders are refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memo_core.errors import IngestError, InvalidInputError, PathNotAllowedError
from memo_core.ingest import ExtractedDocument, IngestPolicy, check_path, extract, iter_sources


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "allowed"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "ok.txt").write_text("inside the root", encoding="utf-8")
    (outside / "secret.txt").write_text("outside the root", encoding="utf-8")
    return root, outside


def test_dotdot_escape_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    policy = IngestPolicy(allowed_roots=[root])
    with pytest.raises(PathNotAllowedError, match="outside the allowed folders"):
        extract(root / ".." / "outside" / "secret.txt", policy=policy)
    with pytest.raises(PathNotAllowedError):
        extract(str(root) + "/../outside/secret.txt", policy=policy)


def test_symlink_escape_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    os.symlink(outside / "secret.txt", root / "innocent.txt")
    os.symlink(outside, root / "linked-dir")
    policy = IngestPolicy(allowed_roots=[root])
    with pytest.raises(PathNotAllowedError):
        extract(root / "innocent.txt", policy=policy)
    with pytest.raises(PathNotAllowedError):
        extract(root / "linked-dir" / "secret.txt", policy=policy)
    # The walker yields the link as found; extract then refuses it, visibly.
    sources = list(iter_sources([root], policy))
    assert root / "innocent.txt" in sources
    assert all("secret" not in str(s) for s in sources)  # the linked folder is not walked
    refused = []
    for source in sources:
        try:
            extract(source, policy=policy)
        except PathNotAllowedError:
            refused.append(source)
    assert refused == [root / "innocent.txt"]


def test_symlink_within_root_is_allowed(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    os.symlink(root / "ok.txt", root / "alias.txt")
    doc = extract(root / "alias.txt", policy=IngestPolicy(allowed_roots=[root]))
    assert isinstance(doc, ExtractedDocument) and doc.source == str((root / "ok.txt").resolve())


def test_root_given_through_a_symlink_is_resolved(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    root, _ = layout
    os.symlink(root, tmp_path / "root-link")
    policy = IngestPolicy(allowed_roots=[tmp_path / "root-link"])
    assert policy.allowed_roots == (root.resolve(),)
    assert check_path(root / "ok.txt", policy) == (root / "ok.txt").resolve()


def test_top_level_folder_outside_roots_is_refused_by_iter_sources(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    with pytest.raises(PathNotAllowedError):
        list(iter_sources([outside], IngestPolicy(allowed_roots=[root])))


def test_default_policy_allows_only_the_working_directory(
    layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = layout
    monkeypatch.chdir(root)
    policy = IngestPolicy()
    assert policy.allowed_roots == (root.resolve(),)
    assert isinstance(extract("ok.txt", policy=policy), ExtractedDocument)
    with pytest.raises(PathNotAllowedError):
        extract(outside / "secret.txt", policy=policy)
    with pytest.raises(PathNotAllowedError):
        extract(root / "ok.txt", policy=IngestPolicy(allowed_roots=[]))  # explicit: nothing local


def test_missing_file_is_an_ingest_error(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        extract(tmp_path / "nope.txt", policy=IngestPolicy(allowed_roots=[tmp_path]))


def test_policy_validation() -> None:
    with pytest.raises(InvalidInputError):
        IngestPolicy(secrets="ignore")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        IngestPolicy(max_file_bytes=0)


def test_iter_sources_order_and_filters(tmp_path: Path) -> None:
    for name in [
        "b.md",
        "a.txt",
        "sub/c.pdf",
        "sub/d.exe",
        ".hidden/e.md",
        "node_modules/f.md",
        "z/.g.txt",
    ]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    policy = IngestPolicy(allowed_roots=[tmp_path])
    urls = ["https://example.org/page", "dQw4w9WgXcQ"]
    found = list(iter_sources([tmp_path, *urls], policy))
    assert found == [tmp_path / "a.txt", tmp_path / "b.md", tmp_path / "sub" / "c.pdf", *urls]
