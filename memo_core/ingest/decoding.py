"""Bytes to text: binary sniffing and careful encoding detection.

UTF-8 (with or without a BOM) and BOM-marked UTF-16 are decoded as such. Anything
else is decoded with a legacy code page only when the bytes look like text (few
control bytes) and the decoded letters look like a language (Cyrillic words for
cp1251, letters for cp1252); otherwise it is an error rather than mojibake.
"""

from __future__ import annotations

import codecs
import unicodedata

from memo_core.errors import ExtractionError, UnsupportedSourceError

__all__ = ["decode_text", "looks_binary", "sniff_format"]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "pdf"),
    (b"PK\x03\x04", "zip"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"\x7fELF", "elf"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"SQLite format 3\x00", "sqlite"),
    (b"OggS", "ogg"),
    (b"fLaC", "flac"),
    (b"ID3", "mp3"),
    (b"RIFF", "riff"),
    (b"\xd0\xcf\x11\xe0", "ole"),
)

_CONTROL_BYTES = frozenset(range(0x20)) - {0x09, 0x0A, 0x0C, 0x0D}
#: Share of control bytes above which data is not text.
_MAX_CONTROL_SHARE = 0.05
_SNIFF = 8192


def sniff_format(data: bytes) -> str | None:
    """Name the binary format ``data`` starts with, or ``"html"``; None for other text."""
    head = data[:1024].lstrip()
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if b"%PDF-" in data[:1024]:  # some writers put junk before the header
        return "pdf"
    lowered = head[:256].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or (
        lowered.startswith(b"<?xml") and b"<html" in data[:1024].lower()
    ):
        return "html"
    return None


def looks_binary(data: bytes) -> bool:
    """True when ``data`` is evidently not text (NUL bytes, a known magic, control bytes)."""
    head = data[:_SNIFF]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in head:
        return True
    fmt = sniff_format(head)
    if fmt not in (None, "html"):
        return True
    return _control_share(head) > _MAX_CONTROL_SHARE


def _control_share(data: bytes) -> float:
    if not data:
        return 0.0
    return sum(1 for byte in data if byte in _CONTROL_BYTES) / len(data)


def decode_text(data: bytes, *, name: str = "file") -> tuple[str, str]:
    """Decode ``data`` as text; return ``(text, encoding)``.

    Raises UnsupportedSourceError for empty or binary data, ExtractionError for
    bytes that are neither UTF-8 nor recognisable legacy-encoded text.
    """
    if not data.strip():
        raise UnsupportedSourceError(f"{name} is empty")
    if looks_binary(data):
        raise UnsupportedSourceError(f"{name} is a binary file, not text")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return _non_empty(data.decode("utf-16"), name), "utf-16"
        except UnicodeDecodeError:
            raise ExtractionError(f"{name} has a UTF-16 mark but is not valid UTF-16") from None
    try:
        return _non_empty(data.decode("utf-8-sig"), name), "utf-8"
    except UnicodeDecodeError:
        pass
    for encoding, accept in (("cp1251", _is_cyrillic_text), ("cp1252", _is_latin_text)):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if accept(text):
            return _non_empty(text, name), encoding
    raise ExtractionError(
        f"{name} is not valid UTF-8 and not recognisably text in another encoding"
    )


def _non_empty(text: str, name: str) -> str:
    if not text.strip():
        raise UnsupportedSourceError(f"{name} is empty")
    return text


def _letters(text: str) -> list[str]:
    return [ch for ch in text if ch.isalpha()]


def _has_words(text: str) -> bool:
    """Prose has spaces between words; a blob of high bytes does not."""
    return len(text) < 40 or sum(1 for ch in text if ch.isspace()) / len(text) >= 0.02


def _is_cyrillic_text(text: str) -> bool:
    # cp1251 maps nearly every high byte to a letter, so "café" would decode as
    # "cafй": demand that most letters be Cyrillic, and mostly the common alphabet
    # (А-я, Ё, ё) rather than the rare letters of 0x80-0xBF that garbage produces.
    letters = _letters(text)
    cyrillic = [ch for ch in letters if "CYRILLIC" in unicodedata.name(ch, "")]
    if not letters or len(cyrillic) / len(letters) < 0.5:
        return False
    common = sum(1 for ch in cyrillic if "\u0410" <= ch <= "\u044f" or ch in "Ёё")
    return common / len(cyrillic) >= 0.8 and _has_words(text)


def _is_latin_text(text: str) -> bool:
    high = [ch for ch in text if ord(ch) >= 0x80]
    if not high:
        return _has_words(text)
    plausible = sum(
        1
        for ch in high
        if ch.isalpha() or unicodedata.category(ch) in ("Pd", "Pi", "Pf", "Po", "Sc", "Zs")
    )
    return plausible / len(high) >= 0.8 and _has_words(text)
