#!/usr/bin/env python3
"""An independent implementation of the sync exchange's messages of SECURITY.md §19.9, written from
that section alone; it shares no code with the Swift implementation. SHA-256 from hashlib.

    /usr/bin/python3 testvectors/independent/sync_exchange.py           # write testvectors/sync/exchange-messages.json
    /usr/bin/python3 testvectors/independent/sync_exchange.py --check   # exit 1 if the file differs

Both modes parse every message they make with their own strict parser and check it gives back the
fields it was made from, and check that each refused variant is refused, so the file rests on
messages this code can read back.
"""

import hashlib
import os
import struct
import sys
import unicodedata

import nacl.exceptions
import nacl.signing

from known_answer_file import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "sync", "exchange-messages.json")

VERSION = 3  # §19.9: version 3 came with §19.3's merge rule of block conflicts; 1 and 2 are refused
MAX_ROLE_SINCE = 2 ** 63 - 1
DEVICE_ID_LABEL = b"SealedVault device id v1"
MAX_TIPS = 512
MAX_DEVICES, MAX_RECORDS, MAX_OFFERS, MAX_ROSTER, MAX_NAME, MAX_REASONS = 1024, 4096, 64, 256, 512, 4096
MAX_DEMOTIONS = 256
# Projects a `sync.projects` request may name as held by the asker (their offers then carry no name).
MAX_HELD_PROJECTS = 1024
MAX_DEMOTED_AT = 2 ** 63 - 1
# What a demoting device signs (§19.9, "Demotions among own devices"): this label, the demoted
# device's id and signing key, the demoting device's id, the time (u64 big-endian).
DEMOTION_LABEL = b"SealedVault sync demotion v1\x00"
DEMOTION_ENTRY = 16 + 32 + 8 + 16 + 64
MAX_RECORD = 4 * 1024 * 1024
ACCESS = {1: "mine", 2: "editor", 3: "viewer"}
KINDS = {1: "document", 2: "long-form"}
REGISTERS = ["healthcare", "legal", "journalism", "academic", "founder", "general", "fiction", "screenwriting", "marketing", "technical"]


class Refused(Exception):
    pass


def fixed(label, n):
    out, counter = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"vaultctl test vector " + label.encode() + (b"#%d" % counter if counter else b"")).digest()
        counter += 1
    return out[:n]


def device_id(signing, noise):
    return hashlib.sha256(DEVICE_ID_LABEL + signing + noise).digest()[:16]


# --- encoding ----------------------------------------------------------------------------------

def enc_vector(vector):
    items = sorted((bytes.fromhex(d), c) for d, c in vector)
    return struct.pack(">H", len(items)) + b"".join(d + struct.pack(">Q", c) for d, c in items)


def enc_tips(tips):
    items = sorted((bytes.fromhex(d), bytes.fromhex(h)) for d, h in tips)
    return struct.pack(">H", len(items)) + b"".join(d + h for d, h in items)


def enc_records(records):
    out = struct.pack(">I", len(records))
    for record in records:
        raw = bytes.fromhex(record)
        out += struct.pack(">I", len(raw)) + raw
    return out


def enc_offer(o):
    register, name = o["register"].encode(), o["name"].encode("utf-8")
    inverse_access = {v: k for k, v in ACCESS.items()}
    inverse_kind = {v: k for k, v in KINDS.items()}
    origin = bytes.fromhex(o["origin"]) if o["origin"] is not None else bytes(16)
    out = bytes.fromhex(o["project"]) + bytes([inverse_access[o["access"]]]) + origin + struct.pack(">Q", o["role_since"]) \
        + bytes([1 if o["privileged"] else 0, inverse_kind[o["kind"]]])
    out += bytes([len(register)]) + register + struct.pack(">H", len(name)) + name
    roster = sorted(o["roster"], key=lambda e: e["device"])
    out += struct.pack(">H", len(roster))
    for e in roster:
        out += bytes.fromhex(e["device"]) + bytes.fromhex(e["signing_key"]) + bytes.fromhex(e["noise_key"])
    return out


def enc_offers(offers):
    offers = sorted(offers, key=lambda o: o["project"])
    return struct.pack(">H", len(offers)) + b"".join(enc_offer(o) for o in offers)


def enc_demotions(demotions):
    items = sorted(demotions, key=lambda d: d["device"])
    return struct.pack(">H", len(items)) + b"".join(
        bytes.fromhex(d["device"]) + bytes.fromhex(d["signing_key"]) + struct.pack(">Q", d["demoted_at"]) + bytes.fromhex(d["demoted_by"])
        + bytes.fromhex(d["signature"])
        for d in items)


def demotion_signing_input(device, signing_key, demoted_by, demoted_at):
    return DEMOTION_LABEL + bytes.fromhex(device) + bytes.fromhex(signing_key) + bytes.fromhex(demoted_by) + struct.pack(">Q", demoted_at)


def sign_demotion(seed, device, signing_key, demoted_by, demoted_at):
    """A demotion entry's fields, signed by the demoting device's Ed25519 seed."""
    signature = nacl.signing.SigningKey(seed).sign(demotion_signing_input(device, signing_key, demoted_by, demoted_at)).signature
    return {"device": device, "signing_key": signing_key, "demoted_at": demoted_at, "demoted_by": demoted_by, "signature": signature.hex()}


def demotion_verifies(d, public_key):
    try:
        nacl.signing.VerifyKey(bytes.fromhex(public_key)).verify(
            demotion_signing_input(d["device"], d["signing_key"], d["demoted_by"], d["demoted_at"]), bytes.fromhex(d["signature"]))
        return True
    except nacl.exceptions.BadSignatureError:
        return False


def encode(kind, direction, f):
    v = bytes([VERSION])
    if kind == "sync.demotions":
        return v + enc_demotions(f["demotions"])
    if (kind, direction) == ("sync.projects", "request"):
        held = sorted(f.get("held_projects", []))
        listed = struct.pack(">H", len(held)) + b"".join(bytes.fromhex(p) for p in held) if held else b""
        return v + listed + (bytes.fromhex(f["after"]) if "after" in f else b"")
    if (kind, direction) == ("sync.projects", "answer"):
        return v + bytes([1 if f["more"] else 0]) + enc_offers(f["offers"])
    if (kind, direction) == ("sync.offer", "request"):
        return v + enc_offers(f["offers"])
    if kind == "sync.offer":
        taken = sorted(f["taken"], key=lambda t: t[0])
        return v + struct.pack(">H", len(taken)) + b"".join(bytes.fromhex(p) + bytes([1 if t else 0]) for p, t in taken)
    if kind == "sync.pull" and direction == "request":
        return v + bytes.fromhex(f["project"]) + enc_vector(f["held"]) + enc_tips(f["tips"])
    if kind == "sync.pull":
        return v + bytes([1 if f["more"] else 0]) + enc_vector(f["held"]) + enc_tips(f["tips"]) + enc_records(f["records"])
    if kind == "sync.push" and direction == "request":
        return v + bytes.fromhex(f["project"]) + enc_records(f["records"])
    out = v + struct.pack(">IH", f["stored"], len(f["refused"]))
    for reason in f["refused"]:
        out += bytes([len(reason)]) + reason.encode("ascii")
    return out


# --- strict parsing ----------------------------------------------------------------------------

class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if n < 0 or self.at + n > len(self.data):
            raise Refused("a length runs past the end")
        self.at += n
        return self.data[self.at - n:self.at]

    def int(self, size, low=0, high=None, what="a value"):
        value = int.from_bytes(self.take(size), "big")
        if value < low or (high is not None and value > high):
            raise Refused("%s out of range" % what)
        return value

    def count(self, size, maximum, item, what):
        n = self.int(size, 0, maximum, what)
        if n * item > len(self.data) - self.at:
            raise Refused("%s cannot fit" % what)
        return n

    def version(self):
        if self.int(1) != VERSION:
            raise Refused("version")

    def end(self):
        if self.at != len(self.data):
            raise Refused("trailing bytes")


def ascending(items):
    if any(not a < b for a, b in zip(items, items[1:])):
        raise Refused("not strictly ascending")


def dec_vector(r):
    n = r.count(2, MAX_DEVICES, 24, "devices")
    items = [(r.take(16).hex(), r.int(8, 1, 2 ** 63 - 1, "a counter")) for _ in range(n)]
    ascending([d for d, _ in items])
    return [[d, c] for d, c in items]


def dec_tips(r, vector):
    n = r.count(2, MAX_TIPS, 48, "tips")
    items = [(r.take(16).hex(), r.take(32).hex()) for _ in range(n)]
    ascending([d for d, _ in items])
    named = {d for d, _ in vector}
    if any(d not in named for d, _ in items):
        raise Refused("a tip of a device the vector does not name")
    return [[d, h] for d, h in items]


def dec_records(r):
    n = r.count(4, MAX_RECORDS, 5, "records")
    return [r.take(r.int(4, 1, MAX_RECORD, "a record length")).hex() for _ in range(n)]


def dec_offer(r, nameless=False):
    project = r.take(16).hex()
    access = r.int(1)
    if access not in ACCESS:
        raise Refused("access")
    origin = r.take(16)
    origin = None if origin == bytes(16) else origin.hex()
    if origin is not None and ACCESS[access] == "mine":
        raise Refused("access mine with an origin")
    role_since = r.int(8, 0, MAX_ROLE_SINCE, "a role's time")
    if role_since != 0 and ACCESS[access] == "mine":
        raise Refused("access mine with a role's time")
    privileged = r.int(1, 0, 1, "a privileged flag") == 1
    kind = KINDS[r.int(1, 1, 2, "a kind")]
    register = r.take(r.int(1, 1, 32, "a register length")).decode("ascii", "replace")
    if register not in REGISTERS:
        raise Refused("register")
    # Name length 0: an offer not described (a `sync.projects` answer's, of a project the asker holds).
    raw = r.take(r.int(2, 0 if nameless else 1, MAX_NAME, "a name length"))
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("name not UTF-8")
    if unicodedata.normalize("NFC", name) != name or any(unicodedata.category(c) == "Cc" for c in name):
        raise Refused("name not NFC or has a control character")
    roster = []
    for _ in range(r.count(2, MAX_ROSTER, 80, "roster")):
        device, signing, noise = r.take(16), r.take(32), r.take(32)
        if device_id(signing, noise) != device:
            raise Refused("roster id")
        roster.append({"device": device.hex(), "signing_key": signing.hex(), "noise_key": noise.hex()})
    ascending([e["device"] for e in roster])
    return {"project": project, "access": ACCESS[access], "origin": origin, "role_since": role_since, "privileged": privileged, "kind": kind, "register": register,
            "name": name, "roster": roster}


def dec_offers(r, nameless=False):
    offers = [dec_offer(r, nameless) for _ in range(r.count(2, MAX_OFFERS, 40, "projects"))]
    ascending([o["project"] for o in offers])
    return offers


def dec_demotions(r):
    demotions = []
    for _ in range(r.count(2, MAX_DEMOTIONS, DEMOTION_ENTRY, "demotions")):
        device, signing = r.take(16).hex(), r.take(32).hex()
        demoted_at = r.int(8, 0, MAX_DEMOTED_AT, "a demotion's time")
        demoted_by = r.take(16).hex()
        demotions.append({"device": device, "signing_key": signing, "demoted_at": demoted_at, "demoted_by": demoted_by,
                          "signature": r.take(64).hex()})
    ascending([d["device"] for d in demotions])
    return demotions


def dec_projects_request(r, length):
    """1 byte: the first page; 17: the page after a project; else the projects the asker holds
    (count 1...1024, ascending), then `after` or nothing; each held project after `after`."""
    if length == 1:
        return {}
    if length == 17:
        return {"after": r.take(16).hex()}
    held = [r.take(16).hex() for _ in range(r.count(2, MAX_HELD_PROJECTS, 16, "held projects"))]
    if not held:
        raise Refused("a list of held projects that names none")
    ascending(held)
    fields = {"held_projects": held}
    if len(r.data) - r.at == 16:
        fields["after"] = r.take(16).hex()
        if held[0] <= fields["after"]:
            raise Refused("a held project not after the page's project")
    return fields


def decode(kind, direction, data):
    r = Reader(data)
    r.version()
    if kind == "sync.demotions":
        fields = {"demotions": dec_demotions(r)}
    elif (kind, direction) == ("sync.projects", "request"):
        fields = dec_projects_request(r, len(data))
    elif (kind, direction) == ("sync.projects", "answer"):
        more = r.int(1, 0, 1, "a more flag") == 1
        fields = {"more": more, "offers": dec_offers(r, nameless=True)}
        if more and not fields["offers"]:
            raise Refused("more follow and no offer")
    elif kind == "sync.offer" and direction == "request":
        fields = {"offers": dec_offers(r)}
    elif kind == "sync.offer":
        taken = [[r.take(16).hex(), r.int(1, 0, 1, "a taken flag") == 1] for _ in range(r.count(2, MAX_OFFERS, 17, "projects"))]
        ascending([p for p, _ in taken])
        fields = {"taken": taken}
    elif (kind, direction) == ("sync.pull", "request"):
        project = r.take(16).hex()
        held = dec_vector(r)
        fields = {"project": project, "held": held, "tips": dec_tips(r, held)}
    elif kind == "sync.pull":
        more = r.int(1, 0, 1, "a more flag") == 1
        held = dec_vector(r)
        fields = {"more": more, "held": held, "tips": dec_tips(r, held), "records": dec_records(r)}
    elif (kind, direction) == ("sync.push", "request"):
        fields = {"project": r.take(16).hex(), "records": dec_records(r)}
    else:
        stored = r.int(4, 0, MAX_RECORDS, "stored")
        refused = []
        for _ in range(r.count(2, MAX_REASONS, 2, "reasons")):
            reason = r.take(r.int(1, 1, 64, "a reason length"))
            if any(not 0x21 <= b <= 0x7E for b in reason):
                raise Refused("reason")
            refused.append(reason.decode("ascii"))
        fields = {"stored": stored, "refused": refused}
    r.end()
    return fields


# --- the cases ---------------------------------------------------------------------------------

def roster_entry(label):
    signing, noise = fixed(label + " signing", 32), fixed(label + " noise", 32)
    return {"device": device_id(signing, noise).hex(), "signing_key": signing.hex(), "noise_key": noise.hex()}


def signer_entry(label):
    """A device whose signing key is a real Ed25519 key (from a fixed seed), to sign demotions."""
    seed, noise = fixed(label + " seed", 32), fixed(label + " noise", 32)
    signing = bytes(nacl.signing.SigningKey(seed).verify_key)
    return {"seed": seed, "device": device_id(signing, noise).hex(), "signing_key": signing.hex()}


def demotion_signatures(owner_desk, laptop, stranger):
    """Known answers for the signature of a demotion entry: each with the demoting device's public
    key, the exact bytes signed and whether the signature verifies with that key."""
    honest = sign_demotion(owner_desk["seed"], laptop["device"], laptop["signing_key"], owner_desk["device"], 1765000000)
    cases = [("signed by the demoting device", honest, True),
             ("the time changed after signing", dict(honest, demoted_at=1765000001), False),
             ("another device named after signing", dict(honest, device=owner_desk["device"]), False),
             ("another signing key named after signing", dict(honest, signing_key=owner_desk["signing_key"]), False),
             ("signed by another device's key, naming the demoting device",
              dict(sign_demotion(stranger["seed"], laptop["device"], laptop["signing_key"], owner_desk["device"], 1765000000)), False),
             ("unsigned (a signature of zeros)", dict(honest, signature="00" * 64), False)]
    out = []
    for name, d, verifies in cases:
        if demotion_verifies(d, owner_desk["signing_key"]) != verifies:
            raise SystemExit("%s: verification does not give %s" % (name, verifies))
        out.append({"name": name, "public_key": owner_desk["signing_key"], "seed": owner_desk["seed"].hex() if verifies else None,
                    "device": d["device"], "signing_key": d["signing_key"], "demoted_by": d["demoted_by"], "demoted_at": d["demoted_at"],
                    "signing_input": demotion_signing_input(d["device"], d["signing_key"], d["demoted_by"], d["demoted_at"]).hex(),
                    "signature": d["signature"], "verifies": verifies})
    return out


def build():
    desk, laptop, colleague = roster_entry("desk"), roster_entry("laptop"), roster_entry("colleague")
    owner_desk, stranger = signer_entry("owner desk"), signer_entry("stranger")
    p1, p2 = fixed("project one", 16).hex(), fixed("project two", 16).hex()
    d1, d2 = desk["device"], laptop["device"]
    record1, record2 = fixed("record one", 120).hex(), fixed("record two", 300).hex()
    offers = [
        {"project": p1, "access": "mine", "origin": None, "role_since": 0, "privileged": True, "kind": "document", "register": "healthcare",
         "name": "Patient A — visits", "roster": sorted([desk, laptop], key=lambda e: e["device"])},
        {"project": p2, "access": "viewer", "origin": colleague["device"], "role_since": 1765000000, "privileged": False, "kind": "long-form",
         "register": "fiction", "name": "Harbour", "roster": sorted([desk, colleague], key=lambda e: e["device"])},
    ]
    offers.sort(key=lambda o: o["project"])
    held = sorted([[d1, 3], [d2, 12]])
    demotions = sorted([
        sign_demotion(owner_desk["seed"], laptop["device"], laptop["signing_key"], owner_desk["device"], 1765000000),
        sign_demotion(owner_desk["seed"], colleague["device"], colleague["signing_key"], owner_desk["device"], 1765000100),
    ], key=lambda d: d["device"])
    tips = sorted([[d1, fixed("record of device one at 3", 32).hex()], [d2, fixed("record of device two at 12", 32).hex()]])
    valid = [
        ("projects request, first page", "sync.projects", "request", {}),
        ("projects request, the page after a project", "sync.projects", "request", {"after": p1}),
        ("projects answer, two offers, more follow", "sync.projects", "answer", {"more": True, "offers": offers}),
        ("projects answer, last page", "sync.projects", "answer", {"more": False, "offers": offers[1:]}),
        ("projects answer, none", "sync.projects", "answer", {"more": False, "offers": []}),
        ("projects request, first page, naming the projects the asker holds", "sync.projects", "request",
         {"held_projects": sorted([p1, p2])}),
        ("projects request, the page after a project, naming a project held after it", "sync.projects", "request",
         {"held_projects": [max(p1, p2)], "after": min(p1, p2)}),
        ("projects answer, an offer not described (the asker holds it)", "sync.projects", "answer",
         {"more": False, "offers": [dict(offers[0], name="")] + offers[1:]}),
        ("offer request", "sync.offer", "request", {"offers": offers[:1]}),
        ("offer answer", "sync.offer", "answer", {"taken": sorted([[p1, True], [p2, False]])}),
        ("pull request, empty vector", "sync.pull", "request", {"project": p1, "held": [], "tips": []}),
        ("pull request", "sync.pull", "request", {"project": p1, "held": held, "tips": tips}),
        ("pull request, a tip of one device", "sync.pull", "request", {"project": p1, "held": held, "tips": tips[1:]}),
        ("pull answer, more", "sync.pull", "answer", {"more": True, "held": held, "tips": tips, "records": [record1, record2]}),
        ("pull answer, nothing", "sync.pull", "answer", {"more": False, "held": [], "tips": [], "records": []}),
        ("push request", "sync.push", "request", {"project": p2, "records": [record2]}),
        ("push answer", "sync.push", "answer", {"stored": 1, "refused": ["badSignature", "replayedRecord"]}),
        ("demotions request, none", "sync.demotions", "request", {"demotions": []}),
        ("demotions answer, two devices", "sync.demotions", "answer", {"demotions": demotions}),
    ]
    cases = []
    for name, kind, direction, fields in valid:
        data = encode(kind, direction, fields)
        if decode(kind, direction, data) != fields:
            raise SystemExit("%s: does not read back" % name)
        cases.append({"name": name, "kind": kind, "direction": direction, "hex": data.hex(), "fields": fields})

    def variant(name, kind, direction, data):
        try:
            decode(kind, direction, data)
        except Refused:
            return {"name": name, "kind": kind, "direction": direction, "hex": data.hex(), "reason": "malformedMessage"}
        raise SystemExit("%s: was not refused" % name)

    pull = encode("sync.pull", "request", {"project": p1, "held": held, "tips": tips})
    answer = encode("sync.pull", "answer", {"more": False, "held": held, "tips": tips, "records": [record1]})
    unsorted = bytes([VERSION]) + bytes.fromhex(p1) + struct.pack(">H", 2) + bytes.fromhex(held[1][0]) + struct.pack(">Q", 1) \
        + bytes.fromhex(held[0][0]) + struct.pack(">Q", 1) + enc_tips([])
    zero_counter = bytes([VERSION]) + bytes.fromhex(p1) + struct.pack(">H", 1) + bytes.fromhex(d1) + struct.pack(">Q", 0) + enc_tips([])
    one_held = bytes([VERSION]) + bytes.fromhex(p1) + enc_vector(held[:1])
    tip_not_held = one_held + enc_tips(tips[1:])
    tips_unsorted = bytes([VERSION]) + bytes.fromhex(p1) + enc_vector(held) + struct.pack(">H", 2) \
        + b"".join(bytes.fromhex(d) + bytes.fromhex(h) for d, h in reversed(tips))
    short_tip = bytes([VERSION]) + bytes.fromhex(p1) + enc_vector(held) + struct.pack(">H", 1) + bytes.fromhex(tips[0][0]) \
        + bytes.fromhex(tips[0][1])[:31]
    no_tips = bytes([VERSION]) + bytes.fromhex(p1) + enc_vector(held)
    huge_count = bytes([VERSION]) + bytes.fromhex(p1) + struct.pack(">I", MAX_RECORDS)
    huge_record = bytes([VERSION]) + bytes.fromhex(p1) + struct.pack(">II", 1, MAX_RECORD + 1)
    bad_roster = bytearray(encode("sync.projects", "answer", {"more": False, "offers": [offers[1]]}))
    bad_roster[-1] ^= 1
    bad_register = encode("sync.projects", "answer", {"more": False, "offers": [dict(offers[1], register="poetry")]})
    mine_with_origin = encode("sync.projects", "answer", {"more": False, "offers": [dict(offers[1], access="mine", role_since=0)]})
    mine_with_time = encode("sync.projects", "answer", {"more": False, "offers": [dict(offers[1], access="mine", origin=None)]})
    one_offer = enc_offer(offers[0])
    one_demotion = enc_demotions(demotions[:1])[2:]
    demotions_unsorted = bytes([VERSION]) + struct.pack(">H", 2) + enc_demotions(demotions[1:])[2:] + one_demotion
    demotions_twice = bytes([VERSION]) + struct.pack(">H", 2) + one_demotion * 2
    demotions_over = bytes([VERSION]) + struct.pack(">H", MAX_DEMOTIONS + 1) + b"".join(
        bytes.fromhex(fixed("demoted %d" % i, 16).hex()) + bytes.fromhex(laptop["signing_key"]) + struct.pack(">Q", 1) + bytes.fromhex(d1)
        + bytes(64) for i in range(MAX_DEMOTIONS + 1))
    demotions_late = bytearray(encode("sync.demotions", "answer", {"demotions": demotions[:1]}))
    demotions_late[3 + 48] |= 0x80
    low, high = sorted([p1, p2])
    held_list = struct.pack(">H", 2) + bytes.fromhex(low) + bytes.fromhex(high)
    invalid = [
        variant("projects request, a list of held projects naming none", "sync.projects", "request", bytes([VERSION, 0, 0])),
        variant("projects request, held projects not ascending", "sync.projects", "request",
                bytes([VERSION]) + struct.pack(">H", 2) + bytes.fromhex(high) + bytes.fromhex(low)),
        variant("projects request, a held project not after the page's project", "sync.projects", "request",
                bytes([VERSION]) + held_list + bytes.fromhex(high)),
        variant("projects request, 1025 held projects", "sync.projects", "request",
                bytes([VERSION]) + struct.pack(">H", MAX_HELD_PROJECTS + 1)
                + b"".join(fixed("held %d" % i, 16) for i in sorted(range(MAX_HELD_PROJECTS + 1), key=lambda i: fixed("held %d" % i, 16)))),
        variant("projects request, held projects and a byte after them", "sync.projects", "request", bytes([VERSION]) + held_list + b"\x00"),
        variant("offer request, an offer not described", "sync.offer", "request",
                encode("sync.offer", "request", {"offers": [dict(offers[0], name="")]})),
        variant("version 1 (before offers named an origin and a role's time)", "sync.pull", "request", bytes([1]) + pull[1:]),
        variant("version 1 projects request", "sync.projects", "request", bytes([1])),
        variant("version 2 (before the merge rule of block conflicts)", "sync.pull", "request", bytes([2]) + pull[1:]),
        variant("version 2 projects request", "sync.projects", "request", bytes([2])),
        variant("version 4", "sync.pull", "request", bytes([4]) + pull[1:]),
        variant("trailing byte", "sync.pull", "request", pull + b"\x00"),
        variant("truncated", "sync.pull", "answer", answer[:-1]),
        variant("vector not ascending", "sync.pull", "request", unsorted),
        variant("counter zero", "sync.pull", "request", zero_counter),
        variant("more flag 2", "sync.pull", "answer", bytes([VERSION, 2]) + answer[2:]),
        variant("pull request without its tips (before tips)", "sync.pull", "request", no_tips),
        variant("a tip of a device the vector does not name", "sync.pull", "request", tip_not_held),
        variant("tips not ascending", "sync.pull", "request", tips_unsorted),
        variant("a tip's hash cut short", "sync.pull", "request", short_tip),
        variant("record count the message cannot hold", "sync.push", "request", huge_count),
        variant("record over 4 MiB", "sync.push", "request", huge_record),
        variant("roster id not derived from its keys", "sync.projects", "answer", bytes(bad_roster)),
        variant("unknown register", "sync.projects", "answer", bad_register),
        variant("access mine naming an origin", "sync.projects", "answer", mine_with_origin),
        variant("access mine giving a role's time", "sync.projects", "answer", mine_with_time),
        variant("projects request with a body shorter than a project id", "sync.projects", "request", bytes([VERSION, 0])),
        variant("projects request with a byte after the project id", "sync.projects", "request", bytes([VERSION]) + bytes.fromhex(p1) + b"\x00"),
        variant("projects answer, more follow and no offer", "sync.projects", "answer", bytes([VERSION, 1, 0, 0])),
        variant("projects answer, more flag 2", "sync.projects", "answer", bytes([VERSION, 2, 0, 0])),
        variant("projects answer of 65 offers", "sync.projects", "answer",
                bytes([VERSION, 0]) + struct.pack(">H", MAX_OFFERS + 1) + one_offer * (MAX_OFFERS + 1)),
        variant("offer request of 65 offers", "sync.offer", "request",
                bytes([VERSION]) + struct.pack(">H", MAX_OFFERS + 1) + one_offer * (MAX_OFFERS + 1)),
        variant("reason not printable", "sync.push", "answer", bytes([VERSION]) + struct.pack(">IH", 0, 1) + b"\x01\x07"),
        variant("empty", "sync.push", "answer", b""),
        variant("projects out of order", "sync.projects", "answer",
                bytes([VERSION, 0]) + struct.pack(">H", 2) + enc_offer(offers[1]) + enc_offer(offers[0])),
        variant("demotions not ascending", "sync.demotions", "answer", demotions_unsorted),
        variant("demotions naming a device twice", "sync.demotions", "answer", demotions_twice),
        variant("demotions, 257 of them", "sync.demotions", "answer", demotions_over),
        variant("demotions with a trailing byte", "sync.demotions", "request", encode("sync.demotions", "request", {"demotions": demotions}) + b"\x00"),
        variant("demotions, a count the message cannot hold", "sync.demotions", "request", bytes([VERSION]) + struct.pack(">H", 2) + one_demotion),
        variant("demotion time past 2^63 - 1", "sync.demotions", "answer", bytes(demotions_late)),
        variant("demotions of version 1", "sync.demotions", "request", bytes([1, 0, 0])),
        variant("a demotion without its signature", "sync.demotions", "answer", bytes([VERSION]) + struct.pack(">H", 1) + one_demotion[:-64]),
    ]
    return {"description": "Messages of the sync exchange (SECURITY.md §19.9): each valid one with the fields it encodes "
                           "(ids and bytes in lowercase hex, vectors, tips and taken lists as [id, value] pairs, ascending), "
                           "and variants every reader must refuse as malformedMessage; and known answers for the signature "
                           "of a demotion entry (the bytes signed, and whether the signature verifies with the demoting "
                           "device's public key).",
            "valid": cases, "invalid": invalid,
            "demotion_signatures": demotion_signatures(owner_desk, laptop, stranger)}


if __name__ == "__main__":
    sys.exit(write_or_check(OUT, build()))
