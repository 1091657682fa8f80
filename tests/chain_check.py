"""Recomputes a Limina JSONL trace's sha256 chain independently of Limina.

hash(ev) = "sha256:" + sha256(canonical(ev without integrity) + (previousHash or "")).hexdigest()
where canonical is sorted-key JSON without whitespace. The last line must be
the trace.sealed terminator, whose payload names the event count and the
last event's hash. Prints the recomputed hashes of the events (not the
terminator), one per line; exits 1 on the first line that does not check out.
"""
import hashlib
import json
import re
import sys

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical(value):
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # JSON.stringify escapes a lone surrogate; json.dumps leaves it raw.
    return LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


previous = None
events = 0
sealed = False
with open(sys.argv[1], encoding="utf-8") as f:
    for number, line in enumerate(f, 1):
        if sealed:
            fail(f"line {number}: follows the trace.sealed terminator")
        event = json.loads(line)
        integrity = event.pop("integrity")
        digest = hashlib.sha256((canonical(event) + (previous or "")).encode("utf-8")).hexdigest()
        h = "sha256:" + digest
        if integrity["previousHash"] != previous or integrity["hash"] != h:
            fail(f"line {number}: stored {integrity}, recomputed {h}")
        if event["type"] == "trace.sealed":
            if event["payload"] != {"events": events, "headHash": previous}:
                fail(f"line {number}: the terminator says {event['payload']}, the chain holds {events} events up to {previous}")
            sealed = True
        else:
            print(h)
            events += 1
        previous = h
if not sealed:
    fail("no trace.sealed terminator: the trace was cut short")
