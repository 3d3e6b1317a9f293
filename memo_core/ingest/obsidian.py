"""Obsidian vaults, read-only: notes with front matter, tags and resolved wikilinks.

A vault is a folder with a ``.obsidian/`` settings folder. Only Markdown notes are
read: ``.obsidian/``, ``.trash/`` and every hidden folder are pruned, attachments
(images, PDFs...) are skipped, and a symlink whose target leaves the vault (or the
allowed roots) is refused. Nothing in the vault is ever written.

``[[Note]]`` becomes the linked note's title (its front matter ``title`` or its file
name), ``[[Note|alias]]`` becomes the alias, ``[[Note#Heading]]`` "Title (Heading)",
and embedded attachments (``![[diagram.png]]``) disappear from the text.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memo_core.display import printable
from memo_core.errors import PathNotAllowedError, UnsupportedSourceError
from memo_core.ingest.decoding import decode_text
from memo_core.ingest.frontmatter import split_front_matter
from memo_core.ingest.markdown import extract_markdown
from memo_core.ingest.policy import IngestPolicy, check_path, read_bytes_limited
from memo_core.ingest.types import ExtractedDocument

__all__ = ["ObsidianVault", "find_vault_root", "is_vault"]

logger = logging.getLogger(__name__)

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]|#^]*)(?:([#^])([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]")
_TAG = re.compile(r"(?<![\w/#&`(\[])#([\w/-]*[^\W\d][\w/-]*)", re.UNICODE)
_CODE = re.compile(r"```.*?```|~~~.*?~~~|`[^`\n]*`", re.DOTALL)
_NOTE_SUFFIXES = (".md", ".markdown")


def is_vault(folder: Path) -> bool:
    """A folder is an Obsidian vault when it holds a ``.obsidian/`` folder."""
    return (folder / ".obsidian").is_dir()


def find_vault_root(note: Path, policy: IngestPolicy) -> Path | None:
    """The allowed vault folder containing ``note`` (already resolved), if any."""
    for parent in note.parents:
        if not policy.is_allowed(parent):
            return None
        if is_vault(parent):
            return parent
    return None


@dataclass
class _Note:
    path: Path
    relative: str
    front_matter: dict[str, Any]
    body: str
    error: str | None

    @property
    def title(self) -> str:
        title = self.front_matter.get("title")
        return title.strip() if isinstance(title, str) and title.strip() else self.path.stem


class ObsidianVault:
    """One vault, indexed once so every wikilink resolves without re-reading notes."""

    def __init__(self, root: str | Path, policy: IngestPolicy) -> None:
        self.root = check_path(root, policy)
        if not is_vault(self.root):
            raise UnsupportedSourceError(f"{self.root} is not an Obsidian vault (no .obsidian/)")
        self.policy = policy
        self.refused: list[str] = []
        self._notes: dict[Path, _Note | None] = {}
        self._by_path: dict[str, Path] = {}
        self._by_name: dict[str, list[Path]] = {}
        self._order: list[Path] = []
        for found, real in self._walk():
            key = found.relative_to(self.root).with_suffix("").as_posix().lower()
            self._by_path.setdefault(key, real)
            self._by_name.setdefault(found.stem.lower(), []).append(real)
            if real not in self._order:
                self._order.append(real)

    def _walk(self) -> list[tuple[Path, Path]]:
        """``(path as found, real path)`` of every note; a symlink counts under both names."""
        found: list[tuple[Path, Path]] = []
        for folder, dirs, files in os.walk(self.root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith(".") or not name.lower().endswith(_NOTE_SUFFIXES):
                    continue  # attachments and hidden files are not notes
                path = Path(folder) / name
                if not path.is_symlink():
                    found.append((path, path))
                elif self._inside(path):
                    found.append((path, path.resolve()))
                else:
                    self.refused.append(path.relative_to(self.root).as_posix())
                    logger.warning(
                        "skipping %s: its link target is outside the vault", printable(path)
                    )
        return found

    def _inside(self, path: Path) -> bool:
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return False
        return target.is_relative_to(self.root) and self.policy.is_allowed(target)

    @property
    def note_paths(self) -> list[Path]:
        """Real paths of the vault's notes, each once, in walk order."""
        return list(self._order)

    def _load(self, path: Path) -> _Note | None:
        if path not in self._notes:
            try:
                data = read_bytes_limited(path, self.policy.max_file_bytes)
                text, _ = decode_text(data, name=str(path))
            except UnsupportedSourceError as exc:  # an empty note is not worth failing a vault
                logger.info("skipping note: %s", printable(exc))
                self._notes[path] = None
                return None
            fields, body, error = split_front_matter(text)
            relative = path.relative_to(self.root).as_posix()
            self._notes[path] = _Note(path, relative, fields, body, error)
        return self._notes[path]

    def _resolve(self, target: str) -> Path | None:
        name = target.strip().removesuffix(".md").strip("/").lower()
        if not name:
            return None
        if name in self._by_path:
            return self._by_path[name]
        candidates = self._by_name.get(name.rsplit("/", 1)[-1], [])
        if not candidates:
            return None
        return min(candidates, key=lambda p: (len(p.parts), p.as_posix()))

    def _title_of(self, path: Path) -> str:
        note = self._load(path)
        return note.title if note else path.stem

    def _render_links(self, body: str, links: list[str]) -> str:
        def replace(match: re.Match[str]) -> str:
            embed, target, marker, anchor, alias = match.groups()
            resolved = self._resolve(target) if target.strip() else None
            if resolved is not None:
                links.append(resolved.relative_to(self.root).as_posix())
            if alias is not None and alias.strip():
                return alias.strip()
            if embed and resolved is None and "." in target.rsplit("/", 1)[-1]:
                return ""  # an embedded attachment: nothing to read
            if resolved is not None:
                title = self._title_of(resolved)
            else:
                title = target.strip().rsplit("/", 1)[-1].removesuffix(".md")
            if marker == "#" and anchor and anchor.strip():
                return f"{title} ({anchor.strip()})" if title else anchor.strip()
            return title

        return _WIKILINK.sub(replace, body)

    def extract_note(self, path: str | Path) -> ExtractedDocument | None:
        """One note as a document; None for an empty note."""
        resolved = check_path(path, self.policy)
        if not resolved.is_relative_to(self.root):
            raise PathNotAllowedError(f"{path} is outside the vault {self.root}")
        note = self._load(resolved)
        if note is None:
            return None
        links: list[str] = []
        body = self._render_links(note.body, links)
        metadata: dict[str, Any] = {
            "vault": str(self.root),
            "path": note.relative,
            "tags": _tags(note.front_matter, note.body),
            "links": sorted(set(links)),
        }
        if note.front_matter:
            metadata["front_matter"] = note.front_matter
        aliases = note.front_matter.get("aliases") or note.front_matter.get("alias")
        if aliases:
            metadata["aliases"] = [aliases] if isinstance(aliases, str) else list(aliases)
        if note.error:
            metadata["front_matter_error"] = note.error
        doc = extract_markdown(
            body,
            source=str(note.path),
            default_title=note.title,
            kind="obsidian",
            metadata=metadata,
            front_matter=False,
        )
        # Obsidian names a note by its file (or front matter), not by its first heading.
        return replace(doc, title=note.title)

    def extract_all(self) -> list[ExtractedDocument]:
        """Every note of the vault with text, in path order."""
        docs = (self.extract_note(path) for path in self.note_paths)
        return [doc for doc in docs if doc is not None and doc.text]


def _tags(front_matter: dict[str, Any], body: str) -> list[str]:
    tags: set[str] = set()
    declared = front_matter.get("tags") or front_matter.get("tag") or []
    if isinstance(declared, str):
        declared = re.split(r"[,\s]+", declared)
    if isinstance(declared, list):
        tags.update(str(tag).strip().lstrip("#") for tag in declared if str(tag).strip())
    tags.update(_TAG.findall(_CODE.sub(" ", body)))
    return sorted(tag for tag in tags if tag)
