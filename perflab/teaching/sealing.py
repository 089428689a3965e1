"""Sealing for mystery labs: planted values kept out of plain sight, and edits detected.

A keyed stream cipher (HMAC-SHA256 in counter mode) with an authentication tag, signatures, and the
deterministic draw every variant comes from. The key derives from a constant in this file and the
lab name: this hides, it does not keep a secret (see perflab.teaching's docstring, "Hiding, honestly").
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json

from perflab.errors import Refused

_PEPPER = b"perflab mystery labs: sealed, not secret"


class MysteryError(Refused, ValueError):
    """A mystery spec, variant file or sealed text is missing, malformed or does not fit."""


def canonical(obj) -> bytes:
    """The one byte string a JSON value signs as: sorted keys, no spaces, ASCII."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _stream(key: bytes, nonce: bytes, n: int) -> bytes:
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hmac.new(key, nonce + i.to_bytes(8, "big"), hashlib.sha256).digest()
        i += 1
    return bytes(out[:n])


def _seal_key(context: str) -> bytes:
    return hmac.new(_PEPPER, b"seal|" + context.encode(), hashlib.sha256).digest()


def seal(obj, context: str) -> str:
    """JSON value -> "sealed1:<base64>" (not readable in plain text; any edit is detected)."""
    key, data = _seal_key(context), canonical(obj)
    nonce = hmac.new(key, b"nonce|" + data, hashlib.sha256).digest()[:16]  # deterministic output
    ct = bytes(a ^ b for a, b in zip(data, _stream(key, nonce, len(data))))
    tag = hmac.new(key, nonce + ct, hashlib.sha256).digest()[:16]
    return "sealed1:" + base64.b64encode(nonce + tag + ct).decode()


def unseal(text: str, context: str):
    if not isinstance(text, str) or not text.startswith("sealed1:"):
        raise MysteryError("not sealed text")
    try:
        raw = base64.b64decode(text[8:], validate=True)
    except ValueError:
        raise MysteryError("sealed text is damaged (not base64)") from None
    key = _seal_key(context)
    nonce, tag, ct = raw[:16], raw[16:32], raw[32:]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + ct, hashlib.sha256).digest()[:16]):
        raise MysteryError("sealed text was edited or belongs to another lab")
    return json.loads(bytes(a ^ b for a, b in zip(ct, _stream(key, nonce, len(ct)))))


def sign(obj, key_hex: str) -> str:
    return hmac.new(bytes.fromhex(key_hex), canonical(obj), hashlib.sha256).hexdigest()


def verify(obj, key_hex: str, signature: str) -> bool:
    return isinstance(signature, str) and hmac.compare_digest(sign(obj, key_hex), signature)


def draw(seed: str, *parts: str) -> int:
    """A 256-bit integer from the seed and a purpose/lab/student path: stable everywhere."""
    return int.from_bytes(hmac.new(seed.encode(), "|".join(parts).encode(), hashlib.sha256).digest(), "big")

