"""Obsidian vaults: metadata, wikilinks, skipped folders and attachments, escaping links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memo_core.errors import PathNotAllowedError
from memo_core.ingest import ExtractedDocument, IngestPolicy, ObsidianVault, extract, iter_sources


def _vault(root: Path) -> Path:
    vault = root / "vault"
    files = {
        ".obsidian/app.json": "{}",
        ".obsidian/workspace.md": "# settings masquerading as a note",
        ".trash/Deleted.md": "# deleted note",
        "Home.md": (
            "---\ntags: [index, start]\naliases: Start page\ntitle: Home page\n---\n"
            "# Welcome\nSee [[Projects/Alpha]], [[Alpha|the alpha project]], [[Beta#Budget]],\n"
            "[[Missing note]] and [[#Local heading]].\n![[chart.png]]\n![[Beta]]\n"
            "Inline #tag-one and #nested/tag, but not a #1 number or `#code`.\n"
            "## Local heading\nBody text.\n"
        ),
        "Projects/Alpha.md": "---\ntitle: Project Alpha\n---\nAlpha body. Links back to [[Home]].\n",
        "Beta.md": "# Beta\n## Budget\nBeta budget is 10k.\n",
        "Empty.md": "",
        "attachments/chart.png": "\x89PNG fake",
        "attachments/spec.pdf": "%PDF-1.4 fake",
    }
    for name, text in files.items():
        path = vault / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return vault


def _by_path(docs: list[ExtractedDocument]) -> dict[str, ExtractedDocument]:
    return {doc.metadata["path"]: doc for doc in docs}


def test_vault_notes_metadata_and_links(tmp_path: Path, policy: IngestPolicy) -> None:
    vault = _vault(tmp_path)
    result = extract(vault, policy=policy)
    assert isinstance(result, list)
    docs = _by_path(result)
    assert sorted(docs) == [
        "Beta.md",
        "Home.md",
        "Projects/Alpha.md",
    ]  # no .obsidian, .trash, attachments, empty
    home = docs["Home.md"]
    assert home.kind == "obsidian" and home.title == "Home page"
    assert home.metadata["tags"] == ["index", "nested/tag", "start", "tag-one"]
    assert home.metadata["aliases"] == ["Start page"]
    assert home.metadata["links"] == ["Beta.md", "Projects/Alpha.md"]
    assert "See Project Alpha, the alpha project, Beta (Budget)," in home.text
    assert "Missing note and Local heading." in home.text
    assert "chart.png" not in home.text and "[[" not in home.text
    body_at = home.text.index("Body text")
    assert next(s.locator for s in home.sections if s.start <= body_at < s.end) == {
        "heading": "Welcome > Local heading"
    }
    assert docs["Projects/Alpha.md"].title == "Project Alpha"
    assert "Links back to Home page." in docs["Projects/Alpha.md"].text
    assert docs["Beta.md"].title == "Beta"  # the file name, as Obsidian shows it


def test_vault_is_read_only(tmp_path: Path, policy: IngestPolicy) -> None:
    vault = _vault(tmp_path)
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in vault.rglob("*") if p.is_file()}
    extract(vault, policy=policy)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in vault.rglob("*") if p.is_file()}
    assert before == after


def test_single_note_inside_a_vault_resolves_links(tmp_path: Path, policy: IngestPolicy) -> None:
    vault = _vault(tmp_path)
    doc = extract(vault / "Projects" / "Alpha.md", policy=policy)
    assert isinstance(doc, ExtractedDocument) and doc.kind == "obsidian"
    assert "Links back to Home page." in doc.text


def test_symlinks_escaping_the_vault_are_refused(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Private\nnot part of the vault", encoding="utf-8")
    os.symlink(outside / "secret.md", vault / "Leak.md")
    os.symlink(outside, vault / "LeakDir")
    policy = IngestPolicy(allowed_roots=[tmp_path])  # even though the target is allowed
    vault_obj = ObsidianVault(vault, policy)
    assert vault_obj.refused == ["Leak.md"]
    docs = vault_obj.extract_all()
    assert all("not part of the vault" not in d.text for d in docs)
    with pytest.raises(PathNotAllowedError):
        vault_obj.extract_note(vault / "Leak.md")


def test_symlink_inside_the_vault_is_one_note_under_two_names(
    tmp_path: Path, policy: IngestPolicy
) -> None:
    vault = _vault(tmp_path)
    os.symlink(vault / "Beta.md", vault / "Budget link.md")
    (vault / "Linker.md").write_text("See [[Budget link]].", encoding="utf-8")
    docs = _by_path(ObsidianVault(vault, policy).extract_all())
    assert sorted(docs) == ["Beta.md", "Home.md", "Linker.md", "Projects/Alpha.md"]  # no duplicate
    assert docs["Linker.md"].text == "See Beta." and docs["Linker.md"].metadata["links"] == [
        "Beta.md"
    ]


def test_iter_sources_yields_the_vault_once(tmp_path: Path, policy: IngestPolicy) -> None:
    vault = _vault(tmp_path)
    (tmp_path / "loose.md").write_text("# Loose\ntext", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    sources = list(iter_sources([tmp_path], policy))
    assert sources == [vault, tmp_path / "loose.md"]
