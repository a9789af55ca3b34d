#!/usr/bin/env python3
"""Our verdict for every input of siq_invalid.tsv, by API.md's rules.

siq_invalid.tsv records what the Python library did; API.md decides what
flakeid accepts.  This oracle implements those rules independently of the C
code (Python's own base32, zlib and integers) and writes
siq_invalid_verdicts.tsv, which the C and SQL tests check row by row.
Run: python3 test/vectors/derive_siq_verdicts.py (from the project root).
"""
import base64
import binascii
import csv
import re
import sys
import zlib

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ALIASES = {"I": "1", "L": "1", "O": "0"}


def numeral(s):
    """A Crockford numeral of 1..24 characters whose value fits in 112 bits."""
    if not 1 <= len(s) <= 24 or not s.isascii():
        return None
    value = 0
    for ch in s:
        c = ALIASES.get(ch.upper(), ch.upper())
        if c not in CROCKFORD:
            return None
        value = value * 32 + CROCKFORD.index(c)
    return value if value < 1 << 112 else None


def did(s):
    """did:siq: + 29 base32 characters: 2 zero bytes, CRC-32, exactly 14 bytes."""
    body = s[len("did:siq:"):]
    if len(body) != 29 or not body.isascii():
        return None
    try:
        raw = base64.b32decode("AAA" + body.upper())
    except binascii.Error:
        return None
    crc, payload = raw[2:6], raw[6:]
    if raw[:2] != b"\0\0" or len(payload) != 14 or zlib.crc32(payload) != int.from_bytes(crc, "big"):
        return None
    return int.from_bytes(payload, "big")


def unescape(s):
    return re.sub(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\n",
                  lambda m: chr(int(m.group(1) or m.group(2), 16)) if (m.group(1) or m.group(2)) else "\n", s)


def verdict(function, raw_input):
    if raw_input.startswith("bytes:"):   # binary input: exactly 14 bytes
        data = bytes.fromhex(raw_input[len("bytes:"):])
        return ("binary", int.from_bytes(data, "big") if len(data) == 14 else None)
    text = unescape(raw_input)
    return ("text", did(text) if text.startswith("did:siq:") else numeral(text))


def main():
    with open("test/vectors/siq_invalid.tsv", newline="") as f:
        rows = list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE))
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar=None)
    out.writerow(["function", "input", "form", "verdict", "value_hex"])
    for row in rows:
        form, value = verdict(row["function"], row["input"])
        out.writerow([row["function"], row["input"], form,
                      "reject" if value is None else "accept",
                      "" if value is None else format(value, "028x")])


if __name__ == "__main__":
    main()
