#!/usr/bin/env python3
"""Our verdict for every decoder input of uid_invalid.tsv, by API.md's rules.

uid_invalid.tsv records what the Erlang library did; API.md decides what
flakeid accepts: kuid text is exactly 11 symbols of the ordered base64
alphabet whose last 2 padding bits are zero, kuid96 text exactly 16 symbols,
and binary input exactly 8 or 12 bytes.  (The library also ignores set
padding bits and a 17th character; we reject both.)  Accepted values are
taken from the library's decoded term, packed again here with I = 8, so
the expected bytes do not come from the code under test.
Only rows whose interval is the library default (I = 8) are used.
Run: python3 test/vectors/derive_uid_verdicts.py (from the project root).
"""
import csv
import re
import sys

ALPHABET = ".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"


def unescape(s):
    return re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def text_verdict(kind, s):
    if not all(c in ALPHABET for c in s):
        return False
    if kind == "kuid":
        return len(s) == 11 and ALPHABET.index(s[-1]) & 3 == 0
    return len(s) == 16


def pack(term):
    """The library's decoded term to bytes (spec §2, §3 with I = 8)."""
    m = re.fullmatch(r"\{uid,(?:<<(\d+),(\d+),(\d+),(\d+)>>,)?\{(\d+),(\d+),(\d+)\},(\d+)\}", term)
    if not m:
        return None
    node = m.group(1) and bytes(int(m.group(i)) for i in range(1, 5))
    mega, sec, micro, seq = (int(m.group(i)) for i in range(5, 9))
    low = ((micro >> 10) << 14) | seq
    if node is None:
        return ((mega << 44) | (sec << 24) | low).to_bytes(8, "big")
    return (((mega << 12) | (sec >> 8)).to_bytes(4, "big") + node +
            (((sec & 0xFF) << 24) | low).to_bytes(4, "big"))


def main(src, dst):
    out = csv.writer(dst, delimiter="\t", lineterminator="\n")
    out.writerow(["id", "function", "form", "input", "type", "verdict", "value_hex"])
    for row in csv.DictReader(src, delimiter="\t", quoting=csv.QUOTE_NONE):
        args = row["args"]
        if not row["function"].startswith("uid:decode"):
            continue
        if row["function"].endswith("/2") and not args.startswith("[8,"):
            continue  # another interval: not our format
        text = re.fullmatch(r"text:(.*) \((\d+) chars\)", row["input"])
        binary = re.fullmatch(r"hex:([0-9a-f]*) \((\d+) bits\)", row["input"])
        if text:
            form, value = "text", text.group(1)
            verdicts = {k: text_verdict(k, unescape(value)) for k in ("kuid", "kuid96")}
        elif binary and int(binary.group(2)) % 8 == 0:
            form, value = "binary", binary.group(1)
            verdicts = {"kuid": len(value) == 16, "kuid96": len(value) == 24}
        else:
            continue  # not a string or byte string: nothing SQL can pass
        for kind, accept in verdicts.items():
            if accept and row["outcome"] != "accepted":
                sys.exit(f"row {row['id']}: we accept what the library refused")
            expected = pack(row["detail"]) if accept else b""
            if accept and (expected is None or len(expected) != (8 if kind == "kuid" else 12)):
                sys.exit(f"row {row['id']}: cannot pack {row['detail']}")
            out.writerow([row["id"], row["function"], form, value, kind,
                          "accept" if accept else "reject", expected.hex()])


if __name__ == "__main__":
    with open("test/vectors/uid_invalid.tsv", newline="") as src, \
            open("test/vectors/uid_invalid_verdicts.tsv", "w", newline="") as dst:
        main(src, dst)
