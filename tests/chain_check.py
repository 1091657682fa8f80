"""Recomputes a Limina JSONL trace's sha256 chain independently of Limina.

hash(ev) = "sha256:" + sha256(canonical(ev without integrity) + (previousHash or "")).hexdigest()
where canonical is sorted-key JSON without whitespace. Prints the recomputed
hashes, one per line; exits 1 on the first event whose stored hash differs.
"""
import hashlib
import json
import sys


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


previous = None
with open(sys.argv[1], encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        event = json.loads(line)
        integrity = event.pop("integrity")
        digest = hashlib.sha256((canonical(event) + (previous or "")).encode("utf-8")).hexdigest()
        h = "sha256:" + digest
        if integrity["previousHash"] != previous or integrity["hash"] != h:
            print(f"line {number}: stored {integrity}, recomputed {h}", file=sys.stderr)
            sys.exit(1)
        print(h)
        previous = h
