#!/usr/bin/env python3
"""An independent replay of the merge of SECURITY.md §19.3 (sync between one owner's devices): given a
set of verified change records (§19.2), the documents every replica holding them shows (their
blocks, as §15.2 content bytes) and the conflicts that become syncConflict branches. Written from
§19.2, §19.3, §14.2, §14.4 and §15.2 alone; it shares no code with the Swift implementation (the
record codec is change_record.py's, itself independent).

    /usr/bin/python3 testvectors/independent/sync_merge.py           # write testvectors/sync/merge-cases.json
    /usr/bin/python3 testvectors/independent/sync_merge.py --check   # exit 1 if the file differs

Both modes build every case's records, verify them, replay them in several orders and check that
every order gives one result, and replay change-records.json's `removal` known answer too.

Points §19.3 left open until this replay was written (now stated there; each a case here):
- a record sees its own earlier edits: a delete marks what its past typed and what the record itself
  inserted before that edit; of a record's inserts after one anchor the later comes first;
- a fold's value so far is that of the heads merged into it, or after a conflict of the kept head
  alone; a field both sides changed alike is no conflict;
- a register conflict is one between any two concurrent writes held, heads or not (one per losing
  write), and a removal conflict one between a removal and a concurrent write, so the conflicts only
  grow as records arrive; a branch proposes the document as the losing record saw it (never empty);
- a text conflict is one between any two concurrent records held that both edit the block's text,
  heads or not, so it stays whether or not a 0x03 records it;
- letters of two concurrent records "touch" when a word scalar one typed is next to one the other
  typed in the text of some holding: a set of the records held that holds each member's parents and
  both records (so both pasts), a replica holding exactly those would show (replayed here from those
  records alone, every such set tried). The pair's text (the two pasts) and the text shown (every
  record) are two holdings. More records only add holdings, so touching is a fact of the records
  held, never of their order: a later record (one parting the words, or a concurrent one typing
  between them) never ends it. For every case here each prefix of every order makes no branch the
  whole set does not make with the same proposal (checked). Words joined by deletes alone are no
  conflict. Word scalars here: str.isalpha() or str.isnumeric() (the cases use no scalar where
  that differs from Unicode Alphabetic or numeric).
- §19.4's fork rule: the replica's records are those kept by one walk of every record known, records
  not late first, then late ones, each in rank order (kept: not out, every parent kept and no kept
  record of its device and counter). A contested record's backing: 2 when a record of a device of the
  replaying vault's own set (`own`), other than its own device, is built on it; else 1 when one of any
  other device is; else 0. Late: a rival's backing is higher; out: its device is not in the own set,
  its number has three records or more and its backing is below 2; each with what is built on it. So
  of two records of one number with equal backing, the one of lower rank (Lamport time, then hash)
  stays wherever both are held, whatever order they came in, and the other and everything built on it
  go (`dropped`); a device's re-commit on the winner may reuse the number of its record built on the
  loser (never both kept).
- a 0x03 is founded (§19.4) when its name is that of a conflict a replica holding exactly the records
  in its record's past makes (replayed here from those records alone), or a fold's name of the
  earlier rule (§19.2); a receiving replica refuses any other (`refused_when_received`), and only a
  founded one takes the records' losing side and is seen from its losing record.
"""

import hashlib
import itertools
import json
import os
import random
import struct
import sys

from known_answer_file import write_or_check
import change_record as cr

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "sync", "merge-cases.json")
CHANGE_RECORDS = os.path.join(HERE, "..", "sync", "change-records.json")

SYNC_CONFLICT_LABEL = b"SealedVault sync conflict v1\x00"
TEXT_CONFLICT_LABEL = b"SealedVault text conflict v1\x00"
REMOVAL_CONFLICT_LABEL = b"SealedVault removal conflict v1\x00"
CONTINUATION_LABEL = b"SealedVault block continuation v1\x00"
MAX_BLOCK_BYTES = 983040  # §14.4: a block's text and cells (the writing store keeps no longer one)
OVERFLOW_LABEL = b"SealedVault document overflow v1\x00"
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024  # §14.4: a document's text and cells (the writing store keeps no longer one)
FOLD_NAME_BUDGET = 4096  # §19.2: writes considered and sets named per record in looking for the earlier rule's names
MISSING = object()
NO_BASE = object()
FOLD = object()  # a recorded conflict founded as a fold's name of the earlier rule (§19.2)  # a fold's base when no write is in the past of both sides
# §19.2's bounds on what one record may cost a block's text: its characters in the record's past
# (deleted ones included) with those the record types there, and over the record's 0x04 operations,
# each one's edits times that figure.
MAX_BLOCK_CHARACTERS = 4 * 983040
MAX_TEXT_WORK = 2 ** 25


def is_word_scalar(c):
    return c.isalpha() or c.isnumeric()


class Replay:
    """The state a replica holding exactly `raw_records` shows (§19.3), whatever order they came in."""

    def __init__(self, raw_records, keys, own=None):
        # `own`: the device ids the replaying vault trusts as its own (itself among them; §19.4).
        self.records, self.raw, self.keys = {}, {}, keys
        self.own = OWN if own is None else own
        for raw in raw_records:
            fields = cr.read(raw, keys)
            self.records[hashlib.sha256(raw).hexdigest()] = fields
            self.raw[hashlib.sha256(raw).hexdigest()] = raw
        # §19.4's fork rule: records not late first, then late ones, each in rank order; a record is kept
        # when it is not out, every parent is kept and no kept record has its (device, counter); the rest
        # (a fork's loser and what is built on it) leave the replica.
        late, out = self.weigh()
        kept, numbers = set(), set()
        for h in sorted(self.records, key=lambda h: (h in late, self.rank(h))):
            fields = self.records[h]
            assert all(p in self.records for p in fields["parents"]), "a record whose parent is not held"
            number = (fields["device"], fields["counter"])
            if h not in out and all(p in kept for p in fields["parents"]) and number not in numbers:
                kept.add(h)
                numbers.add(number)
        self.dropped = sorted(h for h in self.records if h not in kept)
        for h in self.dropped:
            del self.records[h], self.raw[h]
        # Lamport times rise along parents, so this order puts every record after its parents.
        self.order = sorted(self.records, key=self.rank)
        self.vectors = {}
        for h in self.order:
            fields = self.records[h]
            vector = {}
            for parent in fields["parents"]:
                assert parent in self.records, "a record whose parent is not held"
                for device, counter in self.vectors[parent].items():
                    vector[device] = max(vector.get(device, 0), counter)
            assert vector.get(fields["device"], 0) == fields["counter"] - 1, "a counter that skips"
            vector[fields["device"]] = fields["counter"]
            self.vectors[h] = vector
        self._read_operations()
        self._check_text_work()
        self._build_texts()

    def weigh(self):
        """§19.4: of the records of a contested number (another record has its device and counter), each
        rival's backing: 2 when a record of an own device other than its own is built on it, else 1 when a
        record of any other device is, else 0. Late: a rival backed less than another rival. Out: at a
        number a device outside the own set signed three times or more, a rival of backing below 2. Each
        with every record built on it."""
        children = {}
        for h, fields in self.records.items():
            for parent in fields["parents"]:
                children.setdefault(parent, []).append(h)

        def backing(h):
            device, seen, stack, found = self.records[h]["device"], {h}, [h], 0
            while stack:
                for child in children.get(stack.pop(), []):
                    if child not in seen:
                        other = self.records[child]["device"]
                        if other != device:
                            if other in self.own:
                                return 2
                            found = 1
                        seen.add(child)
                        stack.append(child)
            return found

        def with_descendants(roots):
            found, stack = set(roots), list(roots)
            while stack:
                for child in children.get(stack.pop(), []):
                    if child not in found:
                        found.add(child)
                        stack.append(child)
            return found

        numbers = {}
        for h, fields in self.records.items():
            numbers.setdefault((fields["device"], fields["counter"]), []).append(h)
        late, out = [], []
        for rivals in numbers.values():
            if len(rivals) < 2:
                continue
            levels = {h: backing(h) for h in rivals}
            top = max(levels.values())
            for h in rivals:
                if len(rivals) >= 3 and self.records[h]["device"] not in self.own and levels[h] < 2:
                    out.append(h)
                elif levels[h] < top:
                    late.append(h)
        return with_descendants(late), with_descendants(out)

    # --- causality and rank ---------------------------------------------------------------------

    def rank(self, h):
        fields = self.records[h]
        return (fields["lamport"], bytes.fromhex(fields["device"]), bytes.fromhex(h))

    def in_past(self, a, b):
        """Record a is in record b's past (b's version vector holds a's device and counter); b is in its own."""
        fields = self.records[a]
        return self.vectors[b].get(fields["device"], 0) >= fields["counter"]

    def concurrent(self, a, b):
        return not self.in_past(a, b) and not self.in_past(b, a)

    def maximal(self, hashes):
        """Those no other of `hashes` has in its past."""
        return [h for h in hashes if not any(o != h and self.in_past(h, o) for o in hashes)]

    # --- the operations ---------------------------------------------------------------------------

    def _read_operations(self):
        self.node_writes = {}      # node -> [(record, value or None)]
        self.block_writes = {}     # block -> {record: value or None}
        self.block_document = {}   # block -> document
        self.recorded = []         # 0x03 operations
        self.carrier = {}          # branch -> the lowest-ranked record with a 0x03 of it
        self.characters = {}       # block -> {character id: Character}
        self.deletes = {}          # block -> [(record, first, last, own offsets seen)]
        self.inserts = {}          # block -> {record: [(anchor, [character ids])]}
        self.text_writers = {}     # block -> set of records with a 0x04 of it
        for h in self.order:
            fields = self.records[h]
            offset = 0  # the k-th scalar the record inserts is its offset k, whatever block it is in
            for op in fields["operations"]:
                if op["op"] == "node":
                    self.node_writes.setdefault(op["node"], []).append((h, op["value"]))
                elif op["op"] == "block":
                    held = self.block_document.setdefault(op["block"], op["document"])
                    assert held == op["document"], "a block written in two documents (blockMoved)"
                    self.block_writes.setdefault(op["block"], {})[h] = op["value"]
                elif op["op"] == "conflict":
                    self.recorded.append((op, h))
                    self.carrier.setdefault(op["branch"], h)  # records come in rank order: the lowest-ranked
                elif op["op"] == "text":
                    block = op["block"]
                    assert self.block_writes.get(block, {}).get(h) is not None, "text edits before the block's present write"
                    self.text_writers.setdefault(block, set()).add(h)
                    for edit in op["edits"]:
                        if edit["edit"] == "insert":
                            anchor = self._name(edit["after"])
                            run, parent = [], anchor
                            for scalar in edit["text"]:
                                cid = (fields["device"], fields["counter"], offset)
                                self.characters.setdefault(block, {})[cid] = Character(cid, parent, h, self.rank(h), scalar)
                                run.append(cid)
                                parent, offset = cid, offset + 1
                            self.inserts.setdefault(block, {}).setdefault(h, []).append((anchor, run))
                        else:
                            self.deletes.setdefault(block, []).append(
                                (h, self._name(edit["first"]), self._name(edit["last"]), offset))

    def _check_text_work(self):
        """§19.2: a block's characters in a record's past with those it types, and the record's
        edits times those, within their bounds (a replica refuses the record otherwise)."""
        for h in self.order:
            fields, work = self.records[h], 0
            for op in fields["operations"]:
                if op["op"] != "text":
                    continue
                past = sum(1 for c in self.characters.get(op["block"], {}).values() if c.record != h and self.in_past(c.record, h))
                typed = sum(len(e["text"]) for e in op["edits"] if e["edit"] == "insert")
                assert past + typed <= MAX_BLOCK_CHARACTERS, "a block over its characters (malformedRecord)"
                work += len(op["edits"]) * (past + typed)
            assert work <= MAX_TEXT_WORK, "text edits over the work bound (malformedRecord)"

    @staticmethod
    def _name(character):
        return None if character is None else (character["device"], character["counter"], character["offset"])

    # --- §19.3 a block's text: an RGA ------------------------------------------------------------

    def _build_texts(self):
        """An insert goes right after its anchor, past the characters there whose record ranks above
        it (and everything typed after those): as a tree (parent: the anchor), each character's
        children in descending (rank, offset), read depth first. A delete marks, from first through
        last, what its record had seen."""
        self.sequence, self.deleted_by = {}, {}
        for block, characters in self.characters.items():
            children = {}
            for character in characters.values():
                assert character.parent is None or character.parent in characters, "an anchor not in the block"
                children.setdefault(character.parent, []).append(character)
            for siblings in children.values():
                siblings.sort(key=lambda c: (c.rank, c.cid[2]), reverse=True)
            sequence, stack = [], list(reversed(children.get(None, [])))
            while stack:
                character = stack.pop()
                sequence.append(character)
                stack.extend(reversed(children.get(character.cid, [])))
            self.sequence[block] = sequence
        for block, deletes in self.deletes.items():
            sequence = self.sequence[block]
            where = {c.cid: i for i, c in enumerate(sequence)}
            for h, first, last, own_seen in deletes:
                assert first in where and last in where and where[first] <= where[last], "a delete outside the block"

                def typed_before(character):
                    mine = character.record == h
                    return (mine and character.cid[2] < own_seen) or (not mine and self.in_past(character.record, h))

                def seen(character):
                    # Typed before the delete, and deleted neither in its record's past nor by that record.
                    return typed_before(character) and not any(self.in_past(d, h) for d in self.deleted_by.get(character.cid, ()))
                # §19.2: both ends seen (causalityViolation), and no character the record deleted
                # already between them: a record's deletes do not overlap (malformedRecord).
                assert seen(sequence[where[first]]) and seen(sequence[where[last]]), "a delete of characters deleted already"
                for character in sequence[where[first]:where[last] + 1]:
                    if typed_before(character):
                        assert h not in self.deleted_by.get(character.cid, ()), "two deletes of one record overlap"
                        self.deleted_by.setdefault(character.cid, set()).add(h)

    def seen(self, block, writes):
        """The characters the records `writes` saw together: typed in their pasts, not deleted there."""
        def in_view(record):
            return any(self.in_past(record, w) for w in writes)
        return [c for c in self.sequence.get(block, [])
                if in_view(c.record) and not any(in_view(d) for d in self.deleted_by.get(c.cid, ()))]

    def shown(self, block):
        return [c for c in self.sequence.get(block, []) if not self.deleted_by.get(c.cid)]

    def text_seen(self, block, writes):
        return "".join(c.scalar for c in self.seen(block, writes))

    # --- §19.3 registers -------------------------------------------------------------------------

    def node_value(self, node):
        """The head of highest rank (the write of highest rank is always a head)."""
        return max(self.node_writes[node], key=lambda w: self.rank(w[0]))

    def block_heads(self, block):
        return sorted(self.maximal(list(self.block_writes[block])), key=self.rank)

    def write_value(self, block, writes):
        """A value as compared: its fields and the text its writes saw; None: deleted."""
        value = self.block_writes[block][writes[-1]]
        if value is None:
            return None
        rows = tuple(tuple(row) for row in value["rows"])
        return (value["order_key"], value["kind"], rows, self.text_seen(block, writes))

    def fold(self, block, heads):
        """Heads in ascending rank: each next one merged with the value so far against their base.
        Returns (value, [(losing value, losing writes, winning value, winning write)])."""
        heads = sorted(heads, key=self.rank)
        folded, value, conflicts = [heads[0]], self.write_value(block, [heads[0]]), []
        for head in heads[1:]:
            other = self.write_value(block, [head])
            common = [w for w in self.block_writes[block]
                      if self.in_past(w, head) and any(self.in_past(w, f) for f in folded)]
            base = self.fold(block, self.maximal(common))[0] if common else NO_BASE
            merged = merge(value, other, base)
            if merged is CONFLICT:
                # The kept head's value goes on alone: the writes folded so far lost with theirs.
                conflicts.append((value, list(folded), other, head))
                value, folded = other, [head]
                continue
            folded.append(head)
            value = None if merged is None else merged[:3] + (self.text_seen(block, folded),)
        return value, conflicts

    # --- conflicts -----------------------------------------------------------------------------

    def register_conflicts(self, block):
        """Every two concurrent writes of the block (heads or not) whose values, with the texts their
        records saw, do not merge against their base: the lower-ranked loses, once, to the
        highest-ranked write it conflicts with; its branch is seen from its record."""
        writes = list(self.block_writes[block])
        beaten = {}
        for p, q in itertools.combinations(writes, 2):
            if not self.concurrent(p, q):
                continue
            low, high = sorted((p, q), key=self.rank)
            common = [w for w in writes if self.in_past(w, low) and self.in_past(w, high)]
            base = self.fold(block, self.maximal(common))[0] if common else NO_BASE
            if merge(self.write_value(block, [low]), self.write_value(block, [high]), base) is CONFLICT:
                if low not in beaten or self.rank(high) > self.rank(beaten[low]):
                    beaten[low] = high
        out = []
        for low, high in beaten.items():
            branch = hashlib.sha256(SYNC_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(low)).digest()[:16]
            out.append(self.conflict(branch, block, self.write_value(block, [low]), self.write_value(block, [high])))
        return out

    def touching(self, block, p, q):
        """§19.3: a letter or digit p typed is next to one q typed in the text some holding shows: a set
        of the records held holding every member's parents, p and q (so both pasts), as a replica
        holding exactly those records would show it (replayed here from those records alone). Every
        such set is tried: the pair's text (the two pasts) and the text shown (every record) among them."""
        for held in self.holdings(p, q):
            shown = holding_text(self.keys, tuple(self.raw[h] for h in self.order if h in held), block)
            if any(is_word_scalar(left.scalar) and is_word_scalar(right.scalar) and {left.record, right.record} == {p, q}
                   for left, right in zip(shown, shown[1:])):
                return True
        return False

    def holdings(self, p, q):
        """Every set of the records held that holds p, q and each member's parents."""
        pasts = {h for h in self.order if self.in_past(h, p) or self.in_past(h, q)}
        rest = [h for h in self.order if h not in pasts]
        for chosen in itertools.product((False, True), repeat=len(rest)):
            held = pasts | {h for h, keep in zip(rest, chosen) if keep}
            if all(parent in held for h in held for parent in self.records[h]["parents"]):
                yield held

    def text_conflicts(self, block):
        writers = sorted(self.text_writers.get(block, ()), key=self.rank)
        out = []
        for p, q in itertools.combinations(writers, 2):
            if self.concurrent(p, q) and (self.overlap(block, p, q) or self.touching(block, p, q)):
                lower, higher = sorted((p, q), key=self.rank)
                # A branch for each side that typed letters or digits (the merged text may run its
                # words into others'), else for the lower-ranked side.
                typed = [h for h in (lower, higher) if self.typed_words(block, h)]
                for losing in typed or [lower]:
                    winning = higher if losing == lower else lower
                    branch = hashlib.sha256(TEXT_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(losing)
                                            + bytes.fromhex(winning)).digest()[:16]
                    out.append(self.conflict(branch, block, self.write_value(block, [losing]),
                                             self.write_value(block, [winning])))
        return out

    def typed_words(self, block, h):
        """Whether record h typed a letter or digit in the block."""
        return any(c.record == h and is_word_scalar(c.scalar) for c in self.characters.get(block, {}).values())

    def deleted(self, block, h):
        return {cid for cid, by in self.deleted_by.items() if h in by and cid in self.characters[block]}

    def overlap(self, block, p, q):
        """Both deleted one character, or one inserted right after, or right before as it saw the text,
        a character the other deleted."""
        if self.deleted(block, p) & self.deleted(block, q):
            return True
        for mine, theirs in ((p, q), (q, p)):
            gone = self.deleted(block, theirs)
            view = [c.cid for c in self.seen(block, [mine])]
            where = {c.cid: i for i, c in enumerate(self.sequence[block])}
            for anchor, run in self.inserts.get(block, {}).get(mine, []):
                if anchor in gone:
                    return True
                # The character after the run, as `mine` saw the text.
                after = [cid for cid in view if where[cid] > where[run[-1]]]
                if after and after[0] in gone:
                    return True
        return False

    def removal_conflicts(self):
        """Documents whose winning value is a removal while one of their blocks has a present write not
        in the removal's past: they stay (with their removed folders). And every removal of a document
        with a block that has a present write concurrent with it: a conflict, whatever came later."""
        kept, out = set(), []
        for node in self.node_writes:
            removal, value = self.node_value(node)
            if value is not None:
                continue
            for block, document in sorted(self.block_document.items()):
                if document == node and any(v is not None and not self.in_past(w, removal) for w, v in self.block_writes[block].items()):
                    kept.add(node)
        for node in self.node_writes:
            for removal, value in self.node_writes[node]:
                if value is not None:
                    continue
                for block, document in sorted(self.block_document.items()):
                    if document != node:
                        continue
                    concurrent = [w for w, v in self.block_writes[block].items() if v is not None and self.concurrent(w, removal)]
                    if not concurrent:
                        continue
                    latest = max(concurrent, key=self.rank)
                    # A removal whose record saw no block of the document present makes none (its
                    # branch would propose an empty document; its side holds no words).
                    if not self.proposal(node, block, None, removal):
                        continue
                    branch = hashlib.sha256(REMOVAL_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(removal)).digest()[:16]
                    out.append(self.conflict(branch, block, None, self.write_value(block, [latest])))
        return kept, out

    def conflict(self, branch, block, losing, winning):
        return {"op": "conflict", "branch": branch.hex(), "document": self.block_document[block], "block": block,
                "losing": as_json(losing), "winning": as_json(winning)}

    # --- what the replica shows ----------------------------------------------------------------

    def nodes(self):
        """Every node's value: the winning write's, or for a removed node kept by a removal conflict
        (or above one) its highest-ranked present write's."""
        kept, _ = self.removal_conflicts()
        values = {node: self.node_value(node)[1] for node in self.node_writes}

        def last_present(node):
            present = [(h, v) for h, v in self.node_writes[node] if v is not None]
            return max(present, key=lambda w: self.rank(w[0]))[1] if present else None
        def show_present(node):
            at, depth = node, 0
            while at is not None and at in values and depth <= 32:
                if values[at] is None:
                    values[at] = last_present(at)
                at = values[at]["parent"] if values[at] else None
                depth += 1
        for node in kept:
            show_present(node)
        # Whatever is present keeps the removed folders above it (review 17, F5).
        for node in sorted(values):
            if values[node] is not None:
                show_present(node)
        return {node: value for node, value in values.items() if value is not None}

    def blocks_of(self, document):
        out = []
        for block, held in self.block_document.items():
            if held != document:
                continue
            value = self.fold(block, self.block_heads(block))[0]
            if value is not None:
                out.append((value[0].encode(), bytes.fromhex(block), {
                    "block": block, "order_key": value[0], "kind": value[1], "rows": [list(r) for r in value[2]],
                    "text": "".join(c.scalar for c in self.shown(block))}))
        return [b for _, _, b in sorted(out, key=lambda t: (t[0], t[1]))]

    def conflicts(self):
        """Those recorded by 0x03 operations and those the writes make; for one branch id, the least
        encoding."""
        found = [op for op, _ in self.recorded_conflicts()]
        for block in self.block_writes:
            found += self.register_conflicts(block) + self.text_conflicts(block)
        found += self.removal_conflicts()[1]
        least = {}
        for c in found:
            encoded = cr.encode_operation(c)
            if c["branch"] not in least or encoded < least[c["branch"]][0]:
                least[c["branch"]] = (encoded, c)
        return [least[b][1] for b in sorted(least)]

    def recorded_conflicts(self):
        """Each 0x03 as the replica takes it (`words_of_the_records`), with the losing record its name
        gives when founded (§19.4), or FOLD for a fold's name of the earlier rule, or None: unfounded."""
        if not hasattr(self, "_recorded"):
            budgets = {}  # per carrying record: FOLD_NAME_BUDGET (writes considered, sets named) for all its 0x03s
            self._recorded = [self.words_of_the_records(op, h, budgets.setdefault(h, [FOLD_NAME_BUDGET])) for op, h in self.recorded]
        return self._recorded

    def refused_when_received(self):
        """§19.4: the records a receiving replica refuses as `unfoundedConflict`: one of their 0x03s
        names no conflict the records in their past make (nor a fold's name of the earlier rule)."""
        refused = {h for (op, h), (_, loser) in zip(self.recorded, self.recorded_conflicts()) if loser is None}
        return [{"record": h, "reason": "unfoundedConflict"} for h in self.order if h in refused]

    def made_before(self, carrier):
        """The conflicts (register, text, removal: §19.3) a replica holding exactly the records in
        `carrier`'s past (without it) makes, as (branch, document, block)."""
        if not hasattr(self, "_made_before"):
            self._made_before = {}
        if carrier not in self._made_before:
            past = [self.raw[h] for h in self.order if h != carrier and self.in_past(h, carrier)]
            replay = Replay(past, self.keys, self.own)
            made = replay.removal_conflicts()[1]
            for block in replay.block_writes:
                made += replay.register_conflicts(block) + replay.text_conflicts(block)
            self._made_before[carrier] = {(c["branch"], c["document"], c["block"]) for c in made}
        return self._made_before[carrier]

    def words_of_the_records(self, op, carrier, budget):
        """§19.3, §19.4: a recorded conflict is founded when its name is one of the conflicts a replica
        holding exactly the records in its carrier's past makes (`made_before`): its losing side is
        then that conflict's (the losing write's or record's value, deleted for a removal), whatever
        words the 0x03 carries; or a fold's name of the earlier rule (§19.2), its losing side the
        fold. Else (unfounded: refused when received) as carried. Returns the 0x03 as taken and its
        losing record (FOLD for a fold's name, None when unfounded)."""
        block, branch = op["block"], bytes.fromhex(op["branch"])
        if (op["branch"], op["document"], block) not in self.made_before(carrier):
            if self.block_document.get(block) == op["document"]:
                value = self.fold_name_value(block, branch, carrier, budget)
                if value is not MISSING:
                    return dict(op, losing=as_json(value)), FOLD
            return op, None

        def names(data):
            return hashlib.sha256(data).digest()[:16] == branch
        named = None
        if self.block_document.get(block) == op["document"]:
            writes = list(self.block_writes.get(block, {}))
            named = next(((w, self.write_value(block, [w])) for w in writes
                          if names(SYNC_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(w))), None)
            if named is None:
                named = next(((p, self.write_value(block, [p])) for p, q in itertools.permutations(writes, 2)
                              if self.concurrent(p, q)
                              and names(TEXT_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(p) + bytes.fromhex(q))), None)
        if named is None:
            named = next(((removal, None) for removal, value in self.node_writes.get(op["document"], [])
                          if value is None and names(REMOVAL_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(removal))), None)
        assert named is not None and self.in_past(named[0], carrier), "a conflict made has its losing side in the past"
        if as_json(named[1]) == op["losing"]:
            return op, named[0]
        return dict(op, losing=as_json(named[1])), named[0]

    def fold_name_value(self, block, branch, carrier, budget):
        """§19.2's earlier rule: a fold's several losing writes named at once, by the block and their
        records' hashes ascending. Looked for among sets of two or more pairwise concurrent writes of
        the block in the carrier's past, smaller sets first, within a size in the order of their
        hashes, within FOLD_NAME_BUDGET per carrying record (`budget`, a one-item list): each search
        first pays the count of the block's writes in the carrier's past (none found if it cannot),
        then one per set named. The value: the set's writes folded, with the text the set saw
        together; `missing` if none."""
        writes = sorted((w for w in self.block_writes.get(block, {}) if self.in_past(w, carrier)), key=bytes.fromhex)
        if len(writes) > budget[0]:
            return MISSING
        budget[0] -= len(writes)
        level = [[i] for i in range(len(writes))]
        while level:
            grown_level = []
            for chosen in level:
                for added in range(chosen[-1] + 1, len(writes)):
                    if not all(self.concurrent(writes[c], writes[added]) for c in chosen):
                        continue
                    if budget[0] <= 0:
                        return MISSING
                    budget[0] -= 1
                    grown = chosen + [added]
                    name = SYNC_CONFLICT_LABEL + bytes.fromhex(block) + b"".join(bytes.fromhex(writes[i]) for i in grown)
                    if hashlib.sha256(name).digest()[:16] == branch:
                        members = [writes[i] for i in grown]
                        value = self.fold(block, members)[0]
                        return None if value is None else value[:3] + (self.text_seen(block, members),)
                    grown_level.append(grown)
            level = grown_level
        return MISSING

    def view(self, block, viewer, before=False):
        """The block as record `viewer` saw it: its writes in that record's past (without the record's
        own when `before`) folded, with the text the record saw; None when deleted or never seen."""
        writes = [w for w in self.block_writes[block] if self.in_past(w, viewer) and not (before and w == viewer)]
        value = self.fold(block, self.maximal(writes))[0] if writes else None
        if value is None:
            return None
        return {"block": block, "order_key": value[0], "kind": value[1], "rows": [list(r) for r in value[2]],
                "text": self.text_seen(block, [viewer])}

    def viewer(self, conflict):
        """The record a conflict's branch is seen from: the losing side's record as the conflict's name
        gives it (a register conflict's losing write, a text conflict's losing record of two concurrent
        writes of the block, a removal) when the records make it or a founded 0x03 records it (§19.4),
        whether or not the records still make it; else the lowest-ranked record carrying its 0x03."""
        block, branch = conflict["block"], bytes.fromhex(conflict["branch"])
        made = {c["branch"] for c in self.removal_conflicts()[1]}
        for b in self.block_writes:
            made |= {c["branch"] for c in self.register_conflicts(b) + self.text_conflicts(b)}
        founded = {op["branch"] for op, loser in self.recorded_conflicts() if loser not in (None, FOLD)}
        if conflict["branch"] not in made | founded:
            return self.carrier[conflict["branch"]]

        def names(data):
            return hashlib.sha256(data).digest()[:16] == branch
        writes = list(self.block_writes.get(block, {}))
        for w in writes:
            if names(SYNC_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(w)):
                return w
        for p, q in itertools.permutations(writes, 2):
            if self.concurrent(p, q) and names(TEXT_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(p) + bytes.fromhex(q)):
                return p
        for removal, value in self.node_writes.get(conflict["document"], []):
            if value is None and names(REMOVAL_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(removal)):
                return removal
        return self.carrier[conflict["branch"]]

    def branch(self, conflict):
        """§19.3: the syncConflict branch's proposal, the document as the losing side's record saw it
        with the losing value in place of the block; a losing `deleted` leaves the block out unless no
        other block is left, when the block stays as that record saw it before deleting it."""
        blocks = self.proposal(conflict["document"], conflict["block"], conflict["losing"], self.viewer(conflict))
        blocks = in_pieces(parted(blocks, keeping=conflict["block"])[0])
        return {"branch": conflict["branch"], "texts": [b["text"] for b in blocks], "content": content(blocks).hex()}

    def proposal(self, document, block, losing, viewer):
        """The blocks of a branch's proposal, in reading order, seen from record `viewer`."""
        blocks = [v for v in (self.view(b, viewer) for b, d in self.block_document.items() if d == document and b != block) if v]
        if losing is not None:
            blocks.append(dict(losing, block=block))
        elif not blocks and self.view(block, viewer, before=True):
            blocks.append(self.view(block, viewer, before=True))
        blocks.sort(key=lambda b: (b["order_key"].encode(), bytes.fromhex(b["block"])))
        return blocks

    def result(self):
        nodes = self.nodes()
        documents = []
        for node in sorted(nodes):
            if nodes[node]["kind"] != "document":
                continue
            blocks = in_pieces(parted(self.blocks_of(node))[0])
            documents.append({"document": node, "node": nodes[node], "blocks": blocks,
                              "content": content(blocks).hex()})
        conflicts = self.conflicts()
        return {"documents": documents, "conflicts": conflicts, "branches": [self.branch(c) for c in conflicts],
                "refused_when_received": self.refused_when_received(), "dropped": self.dropped}


HOLDING_TEXTS = {}  # (the records, block) -> the characters a replica holding exactly those records shows


def holding_text(keys, raws, block):
    """The characters a replica holding exactly the records `raws` shows in `block`, replayed from them alone."""
    key = (raws, block)
    if key not in HOLDING_TEXTS:
        HOLDING_TEXTS[key] = Replay(list(raws), keys).shown(block)
    return HOLDING_TEXTS[key]


class Character:
    __slots__ = ("cid", "parent", "record", "rank", "scalar")

    def __init__(self, cid, parent, record, rank, scalar):
        self.cid, self.parent, self.record, self.rank, self.scalar = cid, parent, record, rank, scalar


CONFLICT = object()


def merge(a, b, base):
    """§19.3's fold step: a value (None: deleted), CONFLICT, or the merged fields (text set by the caller)."""
    if a == b:
        return a
    if base is not NO_BASE and a == base:
        return b
    if base is not NO_BASE and b == base:
        return a
    if a is None or b is None or base is NO_BASE or base is None:
        return CONFLICT
    fields = []
    for mine, theirs, was in zip(a[:3], b[:3], base[:3]):
        if mine == theirs or theirs == was:
            fields.append(mine)
        elif mine == was:
            fields.append(theirs)
        else:
            return CONFLICT
    return tuple(fields) + (None,)


def block_bytes(block):
    """§14.4: what a block holds, its text and cells, in UTF-8 bytes."""
    return len(block["text"].encode()) + sum(len(cell.encode()) for row in block["rows"] for cell in row)


def continuation(block, index):
    """§19.3: the id of a block's continuation number `index` (from 1)."""
    return hashlib.sha256(CONTINUATION_LABEL + bytes.fromhex(block) + struct.pack(">I", index)).digest()[:16].hex()


def cut(text, first):
    """§19.3: a text in pieces of at most `first` bytes for the first, MAX_BLOCK_BYTES for each next, each
    ending after the last space, tab or line feed within its bound when it holds one, else at the last
    whole scalar; the last piece the rest."""
    data, pieces, start, bound = text.encode(), [], 0, first
    while len(data) - start > bound:
        end = start + bound
        while end > start and data[end] & 0xC0 == 0x80:
            end -= 1
        spaces = [data.rfind(c, start, end) for c in (b" ", b"\t", b"\n")]
        if max(spaces) >= 0:
            end = max(spaces) + 1
        pieces.append(data[start:end].decode())
        start, bound = end, MAX_BLOCK_BYTES
    pieces.append(data[start:].decode())
    return pieces


def in_pieces(blocks, others=()):
    """§19.3: a document's blocks (reading order) as a replica shows them: a block over MAX_BLOCK_BYTES as
    itself with the first piece of its text and its cells, then its continuations (its kind, no cells),
    numbered from 1, a number whose id a block of the project's records has (this document's, or
    `others`: those of its other documents) skipped."""
    taken = {b["block"] for b in blocks} | set(others)
    out = []
    for b in blocks:
        if block_bytes(b) <= MAX_BLOCK_BYTES:
            out.append(b)
            continue
        texts = cut(b["text"], max(0, MAX_BLOCK_BYTES - (block_bytes(b) - len(b["text"].encode()))))
        out.append(dict(b, text=texts[0]))
        index = 0
        for text in texts[1:]:
            index += 1
            while continuation(b["block"], index) in taken:
                index += 1
            out.append(dict(b, block=continuation(b["block"], index), text=text, rows=[]))
    return out


def parted(blocks, keeping=None):
    """§19.3: a document's blocks (reading order, whole) as shown and past the store's bound: the longest run
    from the start whose text and cells fit MAX_DOCUMENT_BYTES is shown, every block after the first that
    does not fit is past; `keeping` (a conflict's block in its proposal) is always shown and counted first."""
    if sum(block_bytes(b) for b in blocks) <= MAX_DOCUMENT_BYTES:
        return blocks, []
    kept = [b for b in blocks if b["block"] == keeping]
    used = sum(block_bytes(b) for b in kept)
    shown, past, stopped = [], [], False
    for b in blocks:
        if b["block"] == keeping:
            shown.append(b)
        elif not stopped and used + block_bytes(b) <= MAX_DOCUMENT_BYTES:
            shown.append(b)
            used += block_bytes(b)
        else:
            stopped = True
            past.append(b)
    return shown, past


def overflow_branches(document, past, others=()):
    """§19.3: the blocks past a document's bound, in pieces as a document shows them (a continuation skipping
    the ids of the document's blocks, `taken`, and `others`), grouped in reading order into proposals of at most
    MAX_DOCUMENT_BYTES (a piece joins the current group while it fits, else starts the next), each named
    SHA-256(label || 0x00 || document || SHA-256(proposal's §15.2 content))[:16]."""
    groups, used = [], 0
    for piece in in_pieces(past, others):
        if not groups or used + block_bytes(piece) > MAX_DOCUMENT_BYTES:
            groups.append([])
            used = 0
        groups[-1].append(piece)
        used += block_bytes(piece)
    return [(hashlib.sha256(OVERFLOW_LABEL + bytes.fromhex(document) + hashlib.sha256(content(g)).digest()).digest()[:16].hex(), g)
            for g in groups]


def as_json(value):
    if value is None:
        return None
    return {"order_key": value[0], "kind": value[1], "text": value[3], "rows": [list(r) for r in value[2]]}


def content(blocks):
    """§15.2: version 1, the count, then each block's id, length and §14.4 encoding, in reading order."""
    out = b"\x01" + struct.pack(">I", len(blocks))
    for b in blocks:
        encoded = cr.encode_block(b)
        out += bytes.fromhex(b["block"]) + struct.pack(">I", len(encoded)) + encoded
    return out


# --- the cases ------------------------------------------------------------------------------------

DEVICES = {name: cr.device(name) for name in ("A", "B", "C", "E")}
KEYS = {d["device_id"]: bytes.fromhex(d["signing_public_key"]) for d in DEVICES.values()}
# The owner's devices: the own set (§19.4) of the vault replaying a case unless the case says otherwise.
OWN = frozenset(DEVICES[name]["device_id"] for name in ("A", "B"))


class Case:
    """Records written as devices would: each edit is made against the text its device shows (the
    replay of the records it holds), a block's whole present value (0x02) before its text edits (0x04)."""

    def __init__(self, name, description, own=("A", "B")):
        self.name, self.description = name, description
        self.own = frozenset(DEVICES[n]["device_id"] for n in own)
        self.project = self.id("project")
        self.records = []   # (name, raw, hash, fields)
        self.counters = {}

    def id(self, label):
        return cr.fixed("merge case %s %s" % (self.name, label), 16).hex()

    def held(self, names):
        """The raw records the named ones and their pasts make."""
        hashes = {r[2] for r in self.records if r[0] in names}
        by_hash = {r[2]: r for r in self.records}
        stack = list(hashes)
        while stack:
            for parent in by_hash[stack.pop()][3]["parents"]:
                if parent not in hashes:
                    hashes.add(parent)
                    stack.append(parent)
        return [r[1] for r in self.records if r[2] in hashes]

    def view(self, names):
        return Replay(self.held(names), KEYS, self.own) if names else None

    def record(self, name, device, parents, operations, lamport=None, counter=None):
        """`counter`: given for a device's second record of one number (a fork, or a re-commit on a fork's
        winner); else one more than the device's last."""
        by_name = {r[0]: r for r in self.records}
        parent_hashes = sorted(by_name[p][2] for p in parents)
        if lamport is None:
            lamport = max([by_name[p][3]["lamport"] for p in parents] + [0]) + 1
        if counter is None:
            counter = self.counters.get(device, 0) + 1
        self.counters[device] = max(counter, self.counters.get(device, 0))
        fields = {"project": self.project, "device": DEVICES[device]["device_id"], "counter": counter, "lamport": lamport,
                  "parents": parent_hashes, "operations": operations}
        raw = cr.sign(bytes.fromhex(DEVICES[device]["seed"]), cr.encode_body(fields))
        assert cr.read(raw, KEYS) == fields
        self.records.append((name, raw, hashlib.sha256(raw).hexdigest(), fields))

    def vector(self, orders):
        names = [r[0] for r in self.records]
        raws = [r[1] for r in self.records]
        result = Replay(raws, KEYS, self.own).result()
        for order in orders:
            assert sorted(order) == list(range(len(raws)))
            assert Replay([raws[i] for i in order], KEYS, self.own).result() == result, (self.name, order)
            self.check_grows_only(order, result)
        return dict({"name": self.name, "description": self.description, "project": self.project,
                     "own": sorted(self.own),
                     "records": [{"name": n, "record": r.hex(), "hash": h} for n, r, h, _ in self.records],
                     "orders": orders}, **result)


    def check_grows_only(self, order, result):
        """§19.3: conflicts only grow as records arrive. A replica given the records in `order` holds,
        after each, those whose parents it holds (the rest wait); each branch it would make then is one
        of the whole set's, proposing the same document, so a vault keeping branches as records come
        makes exactly the whole set's, in any order."""
        final = {b["branch"]: b for b in result["branches"]}
        arrived = set()
        for index in order[:-1]:
            arrived.add(self.records[index][2])
            held, progress = set(), True
            while progress:
                progress = False
                for _, raw, h, fields in self.records:
                    if h in arrived and h not in held and all(p in held for p in fields["parents"]):
                        held.add(h)
                        progress = True
            if not held:
                continue
            for branch in Replay([r[1] for r in self.records if r[2] in held], KEYS, self.own).result()["branches"]:
                assert final.get(branch["branch"]) == branch, (self.name, "a branch the whole set does not make", order, branch)


def node(document, title, key="1i", parent=None):
    return {"op": "node", "node": document, "value": {"kind": "document", "parent": parent, "order_key": key, "title": title}}


def block_op(document, block, key, kind="paragraph", rows=None):
    return {"op": "block", "document": document, "block": block, "value": cr.block(key, kind, "", rows)}


def new_block(document, block, key, text, kind="paragraph"):
    return [block_op(document, block, key, kind), {"op": "text", "document": document, "block": block,
                                                  "edits": [{"edit": "insert", "after": None, "text": text}]}]


def character(c):
    return {"device": c.cid[0], "counter": c.cid[1], "offset": c.cid[2]}


def edit(view, block, replacements, key=None):
    """The 0x02 and 0x04 of a block edited as its device shows it: `replacements` are (old, new) pairs,
    each old text (found after the previous one; "" with a `new` inserts after `at`) replaced by new:
    a delete of the characters it removes and an insert after the character before it."""
    document = view.block_document[block]
    value = view.fold(block, view.block_heads(block))[0]
    shown = view.shown(block)
    text = "".join(c.scalar for c in shown)
    edits, at = [], 0
    for old, new in replacements:
        if isinstance(old, tuple):  # ("after", "word"): insert after the word
            start = text.index(old[1], at) + len(old[1])
            end = start
        else:
            start = text.index(old, at)
            end = start + len(old)
        if end > start:
            edits.append({"edit": "delete", "first": character(shown[start]), "last": character(shown[end - 1])})
        if new:
            edits.append({"edit": "insert", "after": character(shown[start - 1]) if start else None, "text": new})
        at = end
    return [block_op(document, block, key or value[0], value[1], [list(r) for r in value[2]]),
            {"op": "text", "document": document, "block": block, "edits": edits}]


def move(view, block, key):
    document = view.block_document[block]
    value = view.fold(block, view.block_heads(block))[0]
    return [block_op(document, block, key, value[1], [list(r) for r in value[2]])]


def delete(view, block):
    return [{"op": "block", "document": view.block_document[block], "block": block, "value": None}]


def orders_of(count):
    """Every order up to four records; for more, the stored order, its reverse and four seeded shuffles."""
    if count <= 4:
        return [list(p) for p in itertools.permutations(range(count))]
    rng, out = random.Random(count), [list(range(count)), list(reversed(range(count)))]
    while len(out) < 6:
        order = list(range(count))
        rng.shuffle(order)
        if order not in out:
            out.append(order)
    return out


def different_blocks():
    c = Case("different blocks", "A types in the first block, B in the second, neither having seen the other: "
                                 "both edits merge, no conflict.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Visit 3")] + new_block(doc, b1, "1i", "Chief complaint: headache.")
             + new_block(doc, b2, "1j", "Plan: rest."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "headache"), " since Monday")]))
    c.record("B types", "B", ["made"], edit(v, b2, [(("after", "rest"), " and fluids")]))
    return c


def same_block_different_words():
    c = Case("same block, different words", "A replaces one word and B another of one paragraph, concurrently: the "
                                            "characters merge (each word as its device wrote it), no conflict.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Knee")] + new_block(doc, b1, "1i", "The patient reports mild pain in the left knee."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("mild", "sharp")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("left", "right"), (("after", "knee"), " since the fall")]))
    return c


def same_word():
    c = Case("same word", "A and B both replace the dose \"5\": both deleted one character, so the block is a text "
                          "conflict; the text keeps both insertions (A ranks above B at equal Lamport times: A's device id "
                          "is the larger, so its text comes first) and the branch holds B's words, the document A's and B's.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Prescription")] + new_block(doc, b1, "1i", "Take 5 mg twice daily."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("5", "10")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("5", "7.5")]))
    return c


def same_word_then_more():
    c = Case("same word, then typing on", "As \"same word\", then A, having received B's record, records the conflicts "
                                          "(0x03, one branch for each side) and types on: the conflict lives on in the 0x03 though both records are "
                                          "now in A's past.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Prescription")] + new_block(doc, b1, "1i", "Take 5 mg twice daily."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("5", "10")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("5", "7.5")]))
    v = c.view(["A types", "B types"])
    met = v.conflicts()
    assert len(met) == 2  # both typed: a branch for each side
    c.record("A resolves", "A", ["A types", "B types"], met + edit(v, b1, [("7.5", "")]))
    return c


def forged_conflict_words():
    c = Case("a conflict's words forged", "As \"same word\", then C, an editor holding both records, records both "
                                          "conflicts by their true names but with the losing side deleted (0x03 whose "
                                          "losing is deleted: the least encoding). The names are the records': each branch "
                                          "still proposes its side's words as its record wrote them, never what the 0x03 "
                                          "carries (attack review s6, A10).")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Prescription")] + new_block(doc, b1, "1i", "Take 5 mg twice daily."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("5", "10")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("5", "7.5")]))
    met = c.view(["A types", "B types"]).conflicts()
    assert len(met) == 2 and all(m["losing"] is not None for m in met)
    c.record("C forges", "C", ["A types", "B types"], [dict(m, losing=None) for m in met])
    return c


def fold_name_of_the_earlier_rule():
    c = Case("a fold's name of the earlier rule", "A types before the word while B types after it: the texts "
                                                  "merge, no conflict. C, holding both, records a 0x03 as a build of "
                                                  "before conflicts were facts of two writes did, naming the fold of "
                                                  "both writes (block, both hashes ascending), carrying `deleted`: the "
                                                  "name is taken and its losing side is the fold of the two writes, with "
                                                  "the text both saw (attack review s6, A11).")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "facts"))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("", "new ")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "facts"), " here")]))
    both = c.view(["A types", "B types"])
    assert both.conflicts() == []
    hashes = sorted(bytes.fromhex(r[2]) for r in c.records if r[0] in ("A types", "B types"))
    branch = hashlib.sha256(SYNC_CONFLICT_LABEL + bytes.fromhex(b1) + b"".join(hashes)).digest()[:16]
    fold = {"op": "conflict", "branch": branch.hex(), "document": doc, "block": b1, "losing": None,
            "winning": as_json(both.write_value(b1, [r[2] for r in c.records if r[0] == "A types"]))}
    c.record("C records the fold", "C", ["A types", "B types"], [fold])
    return c


def conflicts_forged_of_writes_that_merge():
    c = Case("conflicts forged of writes that merge", "As \"a fold's name of the earlier rule\", A types before the "
                                                      "word while B types after it: the texts merge, no conflict. C, "
                                                      "holding both, records a register conflict named by A's write; "
                                                      "B, holding both, a text conflict named by A's and B's records; "
                                                      "each carries words of its own. The names hash real writes, but "
                                                      "the records make no such conflict: a receiving replica refuses "
                                                      "both records as unfoundedConflict (`refused_when_received`; "
                                                      "attack review s8, N5). Replayed unchecked, as a vault rebuilds "
                                                      "from what it stored (which the check keeps them out of), each "
                                                      "keeps the words it carries, its branch seen from its record.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "facts"))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("", "new ")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "facts"), " here")]))
    both = c.view(["A types", "B types"])
    assert both.conflicts() == []
    a, b = (next(r[2] for r in c.records if r[0] == name) for name in ("A types", "B types"))

    def forged(branch, losing_text, winner):
        losing = both.write_value(b1, [a])
        return {"op": "conflict", "branch": branch.hex(), "document": doc, "block": b1,
                "losing": as_json(losing[:3] + (losing_text,)), "winning": as_json(both.write_value(b1, [winner]))}
    register = hashlib.sha256(SYNC_CONFLICT_LABEL + bytes.fromhex(b1) + bytes.fromhex(a)).digest()[:16]
    text = hashlib.sha256(TEXT_CONFLICT_LABEL + bytes.fromhex(b1) + bytes.fromhex(a) + bytes.fromhex(b)).digest()[:16]
    c.record("C forges a register conflict", "C", ["A types", "B types"], [forged(register, "the client admitted it", b)])
    c.record("B forges a text conflict", "B", ["A types", "B types"], [forged(text, "no facts here", b)])
    return c


def moved_and_edited():
    c = Case("moved and edited", "A moves the third block to the top (its order key); B edits its text: the block "
                                 "moves and keeps B's words, no conflict (each side changed another part of the value).")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Letter")] + new_block(doc, b1, "1i", "Dear Ms Okafor,")
             + new_block(doc, b2, "1j", "Thank you for your letter.") + new_block(doc, b3, "1k", "Ref 2291", "heading-3"))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b3, "1h"))
    c.record("B edits", "B", ["made"], edit(v, b3, [("2291", "2291-b")]))
    return c


def deleted_and_edited():
    c = Case("deleted and edited", "A deletes the second block while B, not having seen that, edits it; A's record "
                                   "ranks higher (Lamport time 3): the block is deleted and B's words survive in the "
                                   "branch (the conflict's losing side, with the text B's record saw).")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b2), lamport=3)
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]))
    return c


def edited_and_deleted():
    c = Case("edited and deleted", "As \"deleted and edited\", but B's edit ranks higher (Lamport time 3): the block "
                                   "stays with B's words and the branch proposes it deleted.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b2))
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]), lamport=3)
    return c


def moved_on_both():
    c = Case("moved on both", "A and B both move one block, to different places: both changed its order key, a "
                              "conflict; the higher-ranked (A, the larger device id at equal Lamport times) keeps its place.")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    return c


def inserts_at_one_point(name, lamport_b, description):
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies:"))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies:"), " penicillin,")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "Allergies:"), " latex,")]), lamport=lamport_b)
    return c


def touching_inserts():
    c = Case("touching inserts", "A and B type a word at one point with no space between: the two words run "
                                 "together, which neither device wrote, so the pair is a text conflict.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: ."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies: "), "penicillin")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "Allergies: "), "latex")]))
    return c


def three_devices():
    c = Case("three devices", "A, B and C each change another word of one paragraph and B also adds a block: "
                              "the three heads fold against their common base, no conflict.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Notes")] + new_block(doc, b1, "1i", "Seen at home on Tuesday by the nurse."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("home", "the clinic")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("Tuesday", "Wednesday")]) + new_block(doc, b2, "1j", "Follow up."))
    c.record("C types", "C", ["made"], edit(v, b1, [("nurse", "doctor")]))
    return c


def deletes_that_join_words():
    c = Case("deletes that join words", "A deletes the comma of \"red, blue\" and B the space: the two words run "
                                        "together though neither device typed a letter.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Colours")] + new_block(doc, b1, "1i", "red, blue"))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(",", "")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(" ", "")]))
    return c


def insert_before_a_deleted_character():
    c = Case("insert before a deleted character", "A types a comma right before the space B deletes (with the rest "
                                                  "of the sentence): the insert touches what the other deleted, a conflict.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Knee")] + new_block(doc, b1, "1i", "Pain in the left knee."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Pain"), ",")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(" in the left knee", "")]))
    return c


def insert_after_a_deleted_character():
    c = Case("insert after a deleted character", "A types after the word B deletes: the insert's anchor is a "
                                                 "character the other deleted, a conflict.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Knee")] + new_block(doc, b1, "1i", "Pain in the left knee."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "left"), " lower")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(" left", "")]))
    return c


def replaced_word_deleted(replacer, deleter, name, description):
    """One device deletes a word and the space after it while the other replaces the word: the merged
    text runs the new word into the next, so the branch holds the replacing side, whatever the ranks."""
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Notes")] + new_block(doc, b1, "1i", "d0w1 d0w85 d0w2"))
    v = c.view(["made"])
    c.record(deleter + " deletes", deleter, ["made"], edit(v, b1, [("d0w85 ", "")]))
    c.record(replacer + " replaces", replacer, ["made"], edit(v, b1, [("d0w85", "d2w90")]))
    return c


def two_inserts_at_one_anchor():
    c = Case("two inserts at one anchor in one record", "One record inserts twice after the same character: its "
                                                       "characters rank equal, so the later insert (higher offsets) comes first.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Order")] + new_block(doc, b1, "1i", "ab"))
    v = c.view(["made"])
    a = v.shown(b1)[0]
    c.record("B types", "B", ["made"], [block_op(doc, b1, "1i"), {"op": "text", "document": doc, "block": b1, "edits": [
        {"edit": "insert", "after": character(a), "text": "X"}, {"edit": "insert", "after": character(a), "text": "Y"}]}])
    return c


def moved_on_three():
    c = Case("moved on three devices", "A, B and C each move one block to another place: folded in ascending rank, "
                                       "each next head conflicts with the value so far.")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C moves", "C", ["made"], move(v, b2, "1m"))
    return c


def merged_then_moved():
    c = Case("merged, then moved", "B moves a block, A makes it a quote and C moves it elsewhere: B's and A's "
                                   "values merge field by field, and C's move conflicts with that merged value, whose "
                                   "writes (A's and B's) name the conflict.")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    v = c.view(["made"])
    c.record("A quotes", "A", ["made"], [block_op(doc, b2, "1j", "quote")])
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C moves", "C", ["made"], move(v, b2, "1m"))
    return c


def delete_over_own_insert():
    c = Case("a delete over the record's own insert", "One record inserts \"new \" and then deletes a range whose ends "
                                                     "lie either side of it: a delete marks what its record had seen, "
                                                     "its own earlier inserts included.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Order")] + new_block(doc, b1, "1i", "keep old text here"))
    v = c.view(["made"])
    shown = v.shown(b1)
    old, text = shown[5], shown[13]  # the "o" of "old" and the space after "text"
    c.record("B edits", "B", ["made"], [block_op(doc, b1, "1i"), {"op": "text", "document": doc, "block": b1, "edits": [
        {"edit": "insert", "after": character(shown[8]), "text": "new "},
        {"edit": "delete", "first": character(old), "last": character(text)},
        {"edit": "insert", "after": character(shown[4]), "text": "all "}]}])
    return c


def conflict_not_recorded():
    c = Case("a text conflict resolved unrecorded", "As \"same word, then typing on\", but the record that has both "
                                                    "sides in its past carries no 0x03: a text conflict is one between "
                                                    "any two concurrent records held, so it is still there.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Prescription")] + new_block(doc, b1, "1i", "Take 5 mg twice daily."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("5", "10")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("5", "7.5")]))
    v = c.view(["A types", "B types"])
    c.record("A resolves", "A", ["A types", "B types"], edit(v, b1, [("7.5", "")]))
    return c


def same_move_on_both():
    c = Case("the same move on both", "A and B both move one block to the same place, each also changing another "
                                      "word: the order key changed the same way on both sides is no conflict.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.")
             + new_block(doc, b2, "1j", "Two apples and three pears."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], edit(v, b2, [("apples", "plums")], key="1h"))
    c.record("B moves", "B", ["made"], edit(v, b2, [("pears", "figs")], key="1h"))
    return c


def touching_then_typing_on():
    c = Case("touching, then typing on", "A types a word where B types one, then, before seeing B's, types in another "
                                         "block: the words typed by A's first record and B's touch, a text conflict "
                                         "though A's first record is no longer a head.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: .") + new_block(doc, b2, "1j", "Seen."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies: "), "penicillin")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "Allergies: "), "latex")]))
    v = c.view(["A types"])
    c.record("A types on", "A", ["A types"], edit(v, b1, [(("after", "."), " Checked.")]))
    return c


def moved_while_typed_elsewhere():
    c = Case("moved on both, a paragraph added", "As \"moved on both\", while C adds a paragraph: the losing "
                                                  "side's branch proposes the document as its record saw it, "
                                                  "without C's paragraph, whatever order the records came in.")
    doc, b1, b2, b3, b4 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3"), c.id("block 4")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C adds", "C", ["made"], new_block(doc, b4, "1m", "Four."))
    return c


def moves_resolved_unrecorded():
    c = Case("moves resolved unrecorded", "A and B move one block to different places, B moves it again, and A, "
                                          "holding all three, moves it once more with no 0x03: a register conflict "
                                          "is one between two concurrent writes held, heads or not, so each "
                                          "losing move is still a conflict.")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    v = c.view(["B moves"])
    c.record("B moves again", "B", ["B moves"], move(v, b2, "1g"))
    v = c.view(["A moves", "B moves again"])
    c.record("A settles", "A", ["A moves", "B moves again"], move(v, b2, "1m"))
    return c


def only_block_deleted_and_edited():
    c = Case("only block deleted and edited", "A deletes a document's only block while B edits it, B's record ranking "
                                              "higher (Lamport time 3): the block stays with B's words, and the branch "
                                              "of A's side keeps the block as A saw it before deleting it rather than "
                                              "propose an empty document.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b1))
    c.record("B edits", "B", ["made"], edit(v, b1, [("Draft", "Agreed")]), lamport=3)
    return c


def touching_parted_again(parter, name, description):
    """A and B type a word at one point with no space between (as "touching inserts"); then `parter`,
    holding both, types a space between them, with no 0x03: the words touched in the text of the two
    records' pasts, so the pair is a text conflict whatever arrives later."""
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: ."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies: "), "penicillin")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "Allergies: "), "latex")]))
    v = c.view(["A types", "B types"])
    assert "".join(ch.scalar for ch in v.shown(b1)) == "Allergies: penicillinlatex."
    c.record(parter + " parts them", parter, ["A types", "B types"], edit(v, b1, [(("after", "penicillin"), " ")]))
    return c


def touching_parted_by_a_concurrent_space():
    c = Case("touching words a concurrent space parts", "A, B and C each type at one point, none having seen the "
                                                        "others: B \"latex\" (Lamport time 4), C a space (3), A "
                                                        "\"penicillin\" (2), so the text shows \"latex penicillin\". "
                                                        "In the text of A's and B's records alone the words touch: "
                                                        "a text conflict, though C's space parts them once it is "
                                                        "held (a device that met A's and B's records first made it "
                                                        "before; now every device does).")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("", "penicillin")]), lamport=2)
    c.record("C types", "C", ["made"], edit(v, b1, [("", " ")]), lamport=3)
    c.record("B types", "B", ["made"], edit(v, b1, [("", "latex")]), lamport=4)
    assert "".join(ch.scalar for ch in c.view(["A types", "B types", "C types"]).shown(b1)) == "latex penicillin."
    return c


def touching_through_a_third_devices_delete():
    c = Case("touching through a third device's delete", "A types \"penicillin\" before the \";\" of "
                                                         "\"Allergies: ;.\", B \"latex\" after it, and C deletes "
                                                         "it, none having seen the others: the text shows "
                                                         "\"penicillinlatex\", so A and B touch in the text shown "
                                                         "(not in their pair's text, where the \";\" parts them); "
                                                         "each typed next to the character C deleted, so each "
                                                         "overlaps C too: A's side and B's each have a branch "
                                                         "for each, every word whole.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: ;."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies: "), "penicillin")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", ";"), "latex")]))
    c.record("C deletes", "C", ["made"], edit(v, b1, [(";", "")]))
    return c


def touching_through_a_delete_parted_again():
    c = Case("touching through a third device's delete, parted again",
             "As \"touching through a third device's delete\", but B, holding A's record and its own (not C's), "
             "types a space after \"penicillin\": the text shows \"penicillin latex\", the words touching in no "
             "text but that of the records before the space (A's, B's and C's deletes): a holding a replica may "
             "have had, so A and B are a text conflict on every device (before, only on one that held C's delete "
             "before B's space). Each side's branch holds its word whole.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: ;."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "Allergies: "), "penicillin")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", ";"), "latex")]))
    c.record("C deletes", "C", ["made"], edit(v, b1, [(";", "")]))
    v = c.view(["A types", "B types"])
    assert "".join(ch.scalar for ch in v.shown(b1)) == "Allergies: penicillin;latex."
    c.record("B parts", "B", ["A types", "B types"], edit(v, b1, [(("after", "penicillin"), " ")]))
    assert "".join(ch.scalar for ch in c.view(["A types", "B types", "C deletes"]).shown(b1)) == "Allergies: penicillinlatex."
    assert "".join(ch.scalar for ch in c.view(["B parts", "C deletes"]).shown(b1)) == "Allergies: penicillin latex."
    return c


def touching_across_a_deleted_space():
    c = Case("touching across a space one side's past deleted", "A deletes the space of \"Allergies: .\" and then "
                                                               "types \"penicillin\" after the colon; B, having seen "
                                                               "neither, types \"latex\" after the space: in the text "
                                                               "of A's second record's past and B's the space is gone, "
                                                               "so the words touch, a text conflict.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Allergies")] + new_block(doc, b1, "1i", "Allergies: ."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], edit(v, b1, [(" ", "")]))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "Allergies: "), "latex")]))
    v = c.view(["A deletes"])
    c.record("A types", "A", ["A deletes"], edit(v, b1, [(("after", "Allergies:"), "penicillin")]))
    return c


def emptied_document_removed():
    c = Case("an emptied document removed while a paragraph is added", "A deletes a document's only paragraph and "
                                                                      "then removes the document; B, having seen "
                                                                      "neither, adds a paragraph: the document stays "
                                                                      "with B's paragraph, and since A's removal saw no "
                                                                      "block of it present (its branch would propose "
                                                                      "an empty document) it makes no removal conflict. "
                                                                      "A's deletion of the first paragraph, which B had "
                                                                      "not changed, is no conflict either.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Draft terms."))
    v = c.view(["made"])
    c.record("A empties", "A", ["made"], delete(v, b1))
    c.record("A removes", "A", ["A empties"], [{"op": "node", "node": doc, "value": None}])
    c.record("B adds", "B", ["made"], new_block(doc, b2, "1j", "Agreed terms."))
    return c


def rebased_while_typed(name, a_lamport, b_lamport, description):
    """§19.2's re-based block: A's write would take the block's sequence past its bound, so A writes the
    block deleted and its text as a new block (a fresh id, the same order key, kind and text) while B,
    not having seen that, types in the old one: a deleted-and-edited conflict, no word lost."""
    c = Case(name, description)
    doc, b1, b2, fresh = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 2 re-based")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A re-bases", "A", ["made"], new_block(doc, fresh, "1j", "Draft terms, final.") + delete(v, b2), lamport=a_lamport)
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]), lamport=b_lamport)
    return c


def forked_device(name, lamports, description):
    """§19.4's fork rule: C signs two records of number 1 (restored from a backup between them), B builds on one;
    the one of lower rank (Lamport time, then hash: C's device is the same) wins wherever both are held, its
    rival and B's record built on it leave every replica, and B's re-commit of its words on the winner (its
    number 1 again, legitimately: no replica keeps both) is kept. A built on the winner."""
    c = Case(name, description)
    doc, b1, ba, bb, bw, bx = (c.id(label) for label in ("document", "block 1", "block a", "block b", "block w", "block x"))
    c.record("made", "A", [], [node(doc, "Case notes")] + new_block(doc, b1, "1i", "First words."))
    c.record("C's first history", "C", ["made"], new_block(doc, ba, "1k", "Colleague text A."), lamport=lamports[0], counter=1)
    c.record("C's second history", "C", ["made"], new_block(doc, bb, "1m", "Colleague text B."), lamport=lamports[1], counter=1)
    by_name = {r[0]: r for r in c.records}
    first, second = by_name["C's first history"], by_name["C's second history"]
    rank = lambda r: (r[3]["lamport"], bytes.fromhex(r[2]))
    winner, loser = (first[0], second[0]) if rank(first) < rank(second) else (second[0], first[0])
    c.record("B on the loser", "B", [loser], new_block(doc, bw, "1o", "Owner words on the loser."), counter=1)
    c.record("B again on the winner", "B", [winner], new_block(doc, bw, "1o", "Owner words on the loser."), counter=1)
    c.record("A on the winner", "A", [winner], new_block(doc, bx, "1q", "Owner desk words."))
    return c


def late_fork():
    """§19.4: a fork's copy sent after others built on its rival loses, whatever its rank (a colleague
    cannot take back what the owner built on by grinding a lower hash)."""
    c = Case("a late fork", "C's record of number 1 is taken and A writes on it; C then signs another record "
                            "of number 1 at the same Lamport time whose hash is lower (C tried texts until one "
                            "was): no record of another device is built on it while one is built on its rival, "
                            "so it is late and leaves, and A's words stay, in every order.")
    doc, b1, bc, ba, bl = (c.id(label) for label in ("document", "block 1", "block c", "block a", "block l"))
    c.record("made", "A", [], [node(doc, "Shared notes")] + new_block(doc, b1, "1i", "First words."))
    c.record("C writes", "C", ["made"], new_block(doc, bc, "1k", "Colleague words."), counter=1)
    c.record("A on C's record", "A", ["C writes"], new_block(doc, ba, "1m", "Owner words."))
    taken = c.records[1][2]
    tries = 0
    while True:
        tries += 1
        c.record("C's late copy", "C", ["made"], new_block(doc, bl, "1o", "Taken back %d." % tries), counter=1)
        if bytes.fromhex(c.records[-1][2]) < bytes.fromhex(taken):
            break
        c.records.pop()
    return c


def fork_backed_by_second_device(name, own, description):
    """§19.4 (reviewer 12, fk4): C signs X of number 1, the owner's A writes on it; C, restored from an older
    copy, signs Y of number 1 at a lower Lamport time, and C's second device E (C's own, not the owner's)
    writes on Y. Both copies are backed; the copy an own device of the replaying vault built on wins."""
    c = Case(name, description, own)
    doc, b1, bx, ba, by, be = (c.id(label) for label in ("document", "block 1", "block x", "block a", "block y", "block e"))
    c.record("made", "A", [], [node(doc, "Book")] + new_block(doc, b1, "1i", "Owner line 1."))
    c.record("A again", "A", ["made"], new_block(doc, ba, "1j", "Owner line 2."))
    c.record("C's X", "C", ["A again"], new_block(doc, bx, "1k", "Colleague X."), counter=1)
    c.record("A on X", "A", ["C's X"], new_block(doc, c.id("block a3"), "1l", "Owner line 3."))
    c.record("C's Y", "C", ["made"], new_block(doc, by, "1m", "Colleague Y."), counter=1)
    c.record("E on Y", "E", ["C's Y"], new_block(doc, be, "1n", "E builds on Y."))
    return c


def one_number_signed_three_times(name, builders, description):
    """§19.4's bound (reviewer 12, fk3): C signs three records of number 1 (an old copy restored again and
    again); at a number signed three times or more only a copy an own device built on can stay."""
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Notes")] + new_block(doc, b1, "1i", "First words."))
    for index in (1, 2, 3):
        c.record("C's variant %d" % index, "C", ["made"],
                 new_block(doc, c.id("block v%d" % index), "1%s" % "klm"[index - 1], "Colleague variant %d." % index),
                 counter=1)
    for device, variant in builders:
        c.record("%s on variant %d" % (device, variant), device, ["C's variant %d" % variant],
                 new_block(doc, c.id("block %s%d" % (device, variant)), "1o", "%s on variant %d." % (device, variant)))
    return c


def cases():
    built = [different_blocks(), same_block_different_words(), same_word(), same_word_then_more(), forged_conflict_words(), conflicts_forged_of_writes_that_merge(), fold_name_of_the_earlier_rule(), moved_and_edited(),
             deleted_and_edited(), edited_and_deleted(), moved_on_both(),
             inserts_at_one_point("inserts at one point", 2, "A and B type at the same point at Lamport time 2: "
                                  "A's device id is the larger, so A's record ranks above and its text comes first; "
                                  "each run stays whole, no conflict (a space keeps the words apart)."),
             inserts_at_one_point("inserts at one point, Lamport first", 3, "As \"inserts at one point\", but B's record "
                                  "has Lamport time 3: it ranks above A's whatever the device ids, so its text comes first."),
             touching_inserts(), three_devices(), deletes_that_join_words(), insert_before_a_deleted_character(),
             insert_after_a_deleted_character(), two_inserts_at_one_anchor(), moved_on_three(),
             merged_then_moved(), delete_over_own_insert(), conflict_not_recorded(), same_move_on_both(),
             touching_then_typing_on(),
             replaced_word_deleted("A", "B", "replaced word, deleted", "A replaces a word (d0w85 by d2w90) while B deletes "
                                   "it with the space after it: the text shows \"d0w1 d2w90d0w2\"; a text conflict whose "
                                   "one branch holds A's side, the one that typed, though A ranks higher."),
             replaced_word_deleted("B", "A", "deleted word, replaced", "As \"replaced word, deleted\", the roles swapped "
                                   "(the replacing B ranks lower): the one branch holds B's side."),
             moved_while_typed_elsewhere(), moves_resolved_unrecorded(), only_block_deleted_and_edited(),
             touching_parted_again("A", "touching words parted again", "As \"touching inserts\", then A, holding both "
                                   "records, types a space between the words, with no 0x03: the words touched in the "
                                   "text of A's and B's first records, so both text conflicts stay (each side's word "
                                   "whole in a branch), whatever order the records come in."),
             touching_parted_again("C", "touching words parted on a third device", "As \"touching words parted again\", "
                                   "the space typed by C, holding both records: the same two text conflicts."),
             touching_parted_by_a_concurrent_space(), touching_through_a_third_devices_delete(),
             touching_through_a_delete_parted_again(),
             touching_across_a_deleted_space(), emptied_document_removed(),
             rebased_while_typed("re-based while typed", 3, 2, "A re-bases the second block (its sequence at its bound: "
                                 "deleted, and its text, edited, as a new block with the same order key) while B edits the "
                                 "old one; A ranks higher: the new block shows, B's words are in the branch."),
             rebased_while_typed("typed while re-based", 2, 3, "As \"re-based while typed\", but B's edit ranks higher: "
                                 "the old block stays with B's words beside the new one, and the branch proposes A's side "
                                 "(the new block alone)."),
             forked_device("a forked device", (2, 2), "C signs two records of number 1 at one Lamport time (restored "
                           "from a backup between them): the one of lower hash wins in every order; its rival and B's "
                           "record built on the rival are dropped (`dropped`), B's re-commit on the winner (its number "
                           "1 again) is kept, and A's record on the winner too."),
             late_fork(),
             forked_device("a forked device, Lamport first", (3, 2), "As \"a forked device\", C's first history at "
                           "Lamport time 3: the second ranks lower and wins whatever the hashes."),
             fork_backed_by_second_device("a late fork backed by the colleague's second device", ("A", "B"),
                                          "C's X (Lamport 3) is taken and A writes on it; C, restored, signs Y of number 1 "
                                          "at Lamport 2 and C's second device E writes on Y. Both are backed, X by an own "
                                          "device (A): X and A's words stay, Y and E's record leave, in every order."),
             fork_backed_by_second_device("a late fork backed by the colleague's second device, seen by the colleague",
                                          ("C", "E"), "The same records replayed by a vault whose own devices are C and "
                                          "E: Y is backed by an own device there and X only by another: X and A's record "
                                          "on it leave (the owner's devices refuse E's record on Y, as above)."),
             one_number_signed_three_times("one number signed three times", [], "C signs three records of number 1, "
                                           "none built on: at a number signed three times no copy no own device built "
                                           "on stays; all three leave, in every order."),
             one_number_signed_three_times("one number signed three times, the owner on the first", [("A", 1), ("E", 2)],
                                           "As \"one number signed three times\", A writes on the first variant and C's "
                                           "second device E on the second: the first stays with A's words; the other two "
                                           "and E's record leave.")]
    return [c.vector(orders_of(len(c.records))) for c in built]


def removal_known_answer():
    """change-records.json's `removal`, replayed: the document kept with `text` and the one conflict."""
    with open(CHANGE_RECORDS, encoding="utf-8") as f:
        vectors = json.load(f)
    removal = vectors["removal"]
    keys = {d["device_id"]: bytes.fromhex(d["signing_public_key"]) for d in vectors["devices"].values()}
    raws = [bytes.fromhex(r["record"]) for r in removal["records"]]
    for order in itertools.permutations(range(len(raws))):
        result = Replay([raws[i] for i in order], keys).result()
        assert [d["document"] for d in result["documents"]] == [removal["document"]], "removal: the document is not kept"
        assert [b["text"] for b in result["documents"][0]["blocks"]] == [removal["text"]], "removal: another text"
        assert result["conflicts"] == [dict(removal["conflict"], op="conflict")], "removal: another conflict"


def overflow_known_answers():
    """§19.3's blocks past the store's bound, as a document shows them: each case a document's blocks (each
    block's text given as `runs`, [string, count] repeated and joined; `rows` its cells) and the blocks it
    shows, each with its UTF-8 bytes and the SHA-256 of its text. Too long for records here; the Swift
    tests merge such blocks from real records (BlockOverflowTests)."""
    def block_id(label):
        return hashlib.sha256(b"overflow " + label.encode()).digest()[:16].hex()

    def case(name, description, blocks, others=()):
        shown = in_pieces([dict(b, text="".join(r * n for r, n in b["runs"])) for b in blocks], others)
        return {"name": name, "description": description, "blocks": blocks, "others": list(others),
                "shown": [{"block": b["block"], "kind": b["kind"], "rows": b["rows"], "bytes": len(b["text"].encode()),
                           "sha256": hashlib.sha256(b["text"].encode()).hexdigest()} for b in shown]}

    big, small = block_id("big"), block_id("small")
    return [
        case("within the bound", "983,040 bytes exactly: one block.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["word ", 196608]]}]),
        case("cut after a space", "1,000,000 bytes of \"word \": the first piece ends at the bound, after a space; "
             "the rest is the continuation, after the block, before the next.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["word ", 200000]]},
              {"block": small, "kind": "paragraph", "rows": [], "runs": [["After.", 1]]}]),
        case("cut at a line feed", "The last space, tab or line feed within the bound ends the piece.",
             [{"block": big, "kind": "heading-2", "rows": [], "runs": [["x", 900000], ["\n", 1], ["y", 100000]]}]),
        case("no space: cut at a whole scalar", "983,039 letters then two-byte letters: the piece ends before the "
             "scalar the bound would split.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["a", 983039], ["\u00e9", 20]]}]),
        case("three pieces", "2,400,000 bytes: the block and two continuations.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["x y ", 600000]]}]),
        case("cells count against the first piece", "A table's cells stay with the block; its first piece holds "
             "what the bound leaves after them.",
             [{"block": big, "kind": "table", "rows": [["c" * 100000, "d"]], "runs": [["abc\t", 250000]]}]),
        case("a continuation's id taken", "The document holds a block whose id is the first continuation's: the "
             "continuation takes the next number.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["word ", 200000]]},
              {"block": continuation(big, 1), "kind": "paragraph", "rows": [], "runs": [["Taken.", 1]]}]),
        case("a continuation's id another document holds", "Another document of the project holds a block whose "
             "id is the first continuation's (a colleague can compute it): the continuation takes the next number.",
             [{"block": big, "kind": "paragraph", "rows": [], "runs": [["word ", 200000]]}], [continuation(big, 1)]),
    ]


def document_overflow_known_answers():
    """§19.3's documents past the store's bound: each case a document's blocks (text as `runs`, as `overflow`'s)
    and, for a branch's proposal, the conflict's block it keeps (`keeping`); the blocks shown (in pieces) and
    the overflow branches (named; each its blocks in pieces and the SHA-256 of its §15.2 content). Too long for
    records here; the Swift tests merge such documents from real records (DocumentOverflowTests)."""
    def block_id(label):
        return hashlib.sha256(b"document overflow " + label.encode()).digest()[:16].hex()

    def listed(blocks):
        return [{"block": b["block"], "kind": b["kind"], "rows": b["rows"], "bytes": len(b["text"].encode()),
                 "sha256": hashlib.sha256(b["text"].encode()).hexdigest()} for b in blocks]

    def case(name, description, blocks, keeping=None):
        document = block_id("document " + name)
        given = [dict(b, text="".join(r * n for r, n in b["runs"])) for b in blocks]
        taken = [b["block"] for b in given]
        shown, past = parted(given, keeping)
        branches = overflow_branches(document, past, taken) if keeping is None else []
        return {"name": name, "description": description, "document": document, "blocks": blocks, "keeping": keeping,
                "shown": listed(in_pieces(shown, taken)),
                "branches": [{"name": n, "blocks": listed(g), "content_sha256": hashlib.sha256(content(g)).hexdigest()}
                             for n, g in branches]}

    def full(label, count, run="word "):
        return [{"block": block_id("%s %d" % (label, i)), "kind": "paragraph", "rows": [],
                 "runs": [[run, MAX_BLOCK_BYTES // len(run)]]} for i in range(count)]

    def small(label, text):
        return {"block": block_id(label), "kind": "paragraph", "rows": [], "runs": [[text, 1]]}

    rest = MAX_DOCUMENT_BYTES - 17 * MAX_BLOCK_BYTES  # 65,536: 17 full blocks and this make the bound exactly
    return [
        case("within the bound", "17 blocks of 983,040 bytes and one of 65,536: 16 MiB exactly, all shown.",
             full("a", 17) + [{"block": block_id("a rest"), "kind": "paragraph", "rows": [], "runs": [["x", rest]]}]),
        case("one byte past", "16 MiB exactly, then one block of one byte: it is past, in one branch.",
             full("b", 17) + [{"block": block_id("b rest"), "kind": "paragraph", "rows": [], "runs": [["x", rest]]},
                              small("b last", "y")]),
        case("past after the first that does not fit", "17 full blocks, one of 100,000 bytes that does not fit, then "
             "one of 9 that would: both are past (the document shows a run from its start).",
             full("c", 17) + [{"block": block_id("c big"), "kind": "paragraph", "rows": [], "runs": [["abcd ", 20000]]},
                              small("c small", "Ninebytes")]),
        case("a block past the bound in pieces", "16 full blocks, then one of 2,000,000 bytes: past whole, its branch "
             "holds it as the block and two continuations.",
             full("d", 16) + [{"block": block_id("d long"), "kind": "paragraph", "rows": [], "runs": [["long ", 400000]]}]),
        case("two branches", "17 full blocks shown, 20 past: 17 in the first branch, 3 in the second.",
             full("e", 37)),
        case("cells count", "A table whose cells pass what the text leaves: it is past, with its cells.",
             full("f", 17) + [{"block": block_id("f table"), "kind": "table", "rows": [["c" * 40000, "d"], ["e", "f"]],
                               "runs": [["t\t", 15000]]}]),
        case("a proposal keeps its conflict's block", "A branch's proposal past the bound (a record saw both devices' "
             "additions): the conflict's block, last, is shown and counted first; the blocks after the first that "
             "does not fit are left out.",
             full("g", 18) + [small("g conflict", "The losing words.")], keeping=block_id("g conflict")),
    ]


def build():
    removal_known_answer()
    return {
        "description": "The merge of SECURITY.md §19.3, written by testvectors/independent/sync_merge.py: each case's "
                       "records (signed by `devices`, the same as change-records.json's, plus C), received in each "
                       "of `orders` (indices into `records`), show `documents` (each present document's node value, "
                       "its blocks in reading order with the text shown, and `content`: the §15.2 content bytes) "
                       "and exactly `conflicts` (the 0x03 operations a device would record, by branch id; `losing` "
                       "is what the syncConflict branch proposes for the block, null: deleted); `branches` gives "
                       "each conflict's branch proposal (§19.3: the document as the losing side's record saw it, "
                       "the losing value in place of the block, in reading order; never empty), its blocks' texts "
                       "and §15.2 content; `refused_when_received` lists the records a receiving replica refuses "
                       "(§19.4: a 0x03 naming no conflict the records in its record's past make), by hash, with "
                       "the reason, in every order (replayed unchecked, as above, they are taken). `dropped` lists, by hash, the records §19.4's fork rule "
                       "takes out of the replica (a device's record of a number another record of lower rank has, and what is "
                       "built on it; a receiving replica refuses each as equivocation, or drops it when its rival comes), as a vault "
                       "whose own devices (§19.4's own set) are `own` weighs them.",
        "spec": "SECURITY.md §19.3",
        "devices": DEVICES,
        "cases": cases(),
        "overflow_description": "A block the merge makes longer than the store keeps (§19.3, 983,040 bytes of text "
                                "and cells) as every replica shows it: `blocks` a document's blocks in reading order "
                                "(text: `runs` joined), `others` the block ids the project's other documents hold, "
                                "`shown` the blocks it shows (id, kind, cells, text bytes, SHA-256 of the text).",
        "overflow": overflow_known_answers(),
        "document_overflow_description": "A document the merge makes longer than the store keeps (§19.3, 16 MiB of "
                                         "text and cells) as every replica shows it: `blocks` the document's blocks in "
                                         "reading order (text: `runs` joined), `keeping` the conflict's block a "
                                         "branch's proposal keeps (null: a document), `shown` the blocks it shows "
                                         "(in pieces: id, kind, cells, text bytes, SHA-256 of the text), `branches` "
                                         "its overflow branches (name; blocks as `shown`; SHA-256 of the §15.2 "
                                         "content it proposes).",
        "document_overflow": document_overflow_known_answers(),
    }


if __name__ == "__main__":
    sys.exit(write_or_check(OUT, build()))
