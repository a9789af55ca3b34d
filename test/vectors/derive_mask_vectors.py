#!/usr/bin/env python3
"""Writes mask.tsv: flakeid's mask tokens, from a second, independent FF1.

This is NIST SP 800-38G Algorithm 7 written out with Python's integers and
the `cryptography` package's AES (src/format/ff1.c keeps the halves in
64-bit words and the PRF's chain precomputed), with the token layout of
src/format/mask.h.  It first checks itself against NIST's FF1 samples 1-9
(FF1samples.pdf), then prints the tokens of fixed IDs.

Usage: python3 derive_mask_vectors.py > mask.tsv
"""
import hashlib
import math
import base64
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def ciph(key, block):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def num(x, radix):
    v = 0
    for d in x:
        v = v * radix + d
    return v


def str_(v, radix, m):
    out = []
    for _ in range(m):
        out.append(v % radix)
        v //= radix
    return out[::-1]


def ff1_encrypt(key, tweak, radix, x):
    n = len(x)
    t = len(tweak)
    u = n // 2
    v = n - u
    a, b = x[:u], x[u:]
    bb = math.ceil(math.ceil(v * math.log2(radix)) / 8)
    # exact for powers of two and for NIST's radixes
    bits = 0
    while (1 << bits) < radix ** v:
        bits += 1
    bb = (bits + 7) // 8
    d = 4 * math.ceil(bb / 4) + 4
    p = bytes([1, 2, 1]) + radix.to_bytes(3, 'big') + bytes([10, u % 256]) + n.to_bytes(4, 'big') + t.to_bytes(4, 'big')
    for i in range(10):
        q = tweak + bytes((-t - bb - 1) % 16) + bytes([i]) + num(b, radix).to_bytes(bb, 'big')
        y = bytes(16)
        pq = p + q
        for k in range(0, len(pq), 16):
            y = ciph(key, bytes(s ^ r for s, r in zip(y, pq[k:k + 16])))
        r = y
        s = r
        j = 1
        while len(s) < d:
            s += ciph(key, bytes(s_ ^ r_ for s_, r_ in zip(r, j.to_bytes(16, 'big'))))
            j += 1
        yv = int.from_bytes(s[:d], 'big')
        m = u if i % 2 == 0 else v
        c = (num(a, radix) + yv) % radix ** m
        a, b = b, str_(c, radix, m)
    return a + b


NIST = [
    ("2B7E151628AED2A6ABF7158809CF4F3C", "", 10, "0123456789", "2433477484"),
    ("2B7E151628AED2A6ABF7158809CF4F3C", "39383736353433323130", 10, "0123456789", "6124200773"),
    ("2B7E151628AED2A6ABF7158809CF4F3C", "3737373770717273373737", 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "", 10, "0123456789", "2830668132"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "39383736353433323130", 10, "0123456789", "2496655549"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", "3737373770717273373737", 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "", 10, "0123456789", "6657667009"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "39383736353433323130", 10, "0123456789", "1001623463"),
    ("2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", "3737373770717273373737", 36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"),
]
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
for key, tweak, radix, pt, ct in NIST:
    got = ff1_encrypt(bytes.fromhex(key), bytes.fromhex(tweak), radix, [DIGITS.index(c) for c in pt])
    assert "".join(DIGITS[g] for g in got) == ct, (key, tweak, radix)


def token(key, key_id, type_, purpose, id_bytes):
    tweak = hashlib.sha256(b"flakeid mask 1\0" + type_.encode() + b"\0" + purpose.encode()).digest()[:16]
    ct = bytes(ff1_encrypt(key, tweak, 256, list(id_bytes)))
    header = (20 << 10 | key_id).to_bytes(2, 'big')
    return base64.urlsafe_b64encode(header + ct).decode().rstrip("=")


WIDTHS = [("sno", 10), ("flax", 12), ("siq", 14), ("kuid", 8), ("kuid96", 12), ("snowflake", 8)]
KEYS = [(1, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
        (1023, "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94")]
print("# flakeid mask tokens (src/format/mask.h), written by derive_mask_vectors.py")
print("type\tkey_id\tkey\tpurpose\tid\ttoken")
for type_, width in WIDTHS:
    ids = [bytes(width), bytes([0xff] * width), bytes(range(1, width + 1)),
           (1).to_bytes(width, 'big'), (2).to_bytes(width, 'big')]
    for key_id, key in KEYS:
        for purpose in ["", "orders", "invoices", "ünïcode/purpose with spaces"]:
            for i in ids:
                print(f"{type_}\t{key_id}\t{key.lower()}\t{purpose}\t{i.hex()}\t{token(bytes.fromhex(key), key_id, type_, purpose, i)}")
