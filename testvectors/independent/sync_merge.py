#!/usr/bin/env python3
"""An independent replay of the merge of SECURITY.md §19.3 (sync between one owner's devices): given a
set of verified change records (§19.2), the documents every replica holding them shows (their
blocks, as §15.2 content bytes), the conflicts that become syncConflict branches and those still
pending. Written from §19.2, §19.3, §19.4, §14.2, §14.4 and §15.2 alone; it shares no code with the
Swift implementation (the record codec is change_record.py's, itself independent).

    /usr/bin/python3 testvectors/independent/sync_merge.py           # write testvectors/sync/merge-cases.json
    /usr/bin/python3 testvectors/independent/sync_merge.py --check   # exit 1 if the file differs

Both modes build every case's records, verify them, replay them in several orders and check that
every order gives one result, and replay change-records.json's `removal` known answer too.

The rule of block conflicts (issue 17 s18), as §19.3 states it and as replayed here:
- a block's characters are an RGA sequence; a delete adds its record to a character's deleters and
  never removes it. Each write w of a block has a text parent tp(w), the source of the fold of the
  block's maximal writes in w's past without w, and a view: the characters typed by a record of its
  lineage (w, tp(w), tp(tp(w)), ...) and deleted by none of them. A delete marks only the characters
  of its record's view before the edit (tp's view, its own earlier inserts, less its earlier deletes);
- a value is `deleted` or (order key, kind, cells, view text); values are equal when those are (text
  as a string). The fold takes heads in ascending rank: equal → the higher-ranked; one side equal to
  the base → the other; else the order key and the content (kind, cells, text) each from the side that
  changed it; both changed one of them differently, delete against change, a deleted base or no base
  → a conflict step: every write of the value so far loses to the next head, which goes on alone;
- conflicts are made at merge points (held records with two or more parents): each block with two or
  more maximal writes in the record's past without it is folded there, one conflict per losing write
  (named by the block and that write's hash), its winning side the highest-ranked write it lost to;
  the fold of the current heads' conflicts not yet made are pending (a device's join makes them);
- a 0x03 of a version-1 record is ignored; one of a version-2 record is founded when a replica holding
  exactly its record's past makes (or has pending) a conflict of that name, or a removal conflict;
  a receiving replica refuses any other (`refused_when_received`);
- a branch proposes the document as the replica shows it, the conflict's block replaced by the losing
  side (a losing `deleted` leaves it out, unless no block is left: then the block as the losing write's
  past showed it, or for a removal as the document shows it);
- §19.4's fork rule, unchanged: the replica's records are those kept by one walk of every record known,
  records not late first, then late ones, each in rank order (kept: not out, every parent kept and no
  kept record of its device and counter). A contested record's backing: 2 when a record of a device of
  the replaying vault's own set (`own`), other than its own device, is built on it; else 1 when one of
  any other device is; else 0. Late: a rival's backing is higher; out: its device is not in the own set,
  its number has three records or more and its backing is below 2; each with what is built on it.
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
import snapshot_delta as sd

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "sync", "merge-cases.json")
CHANGE_RECORDS = os.path.join(HERE, "..", "sync", "change-records.json")

BLOCK_CONFLICT_LABEL = b"SealedVault block conflict v2\x00"
REMOVAL_CONFLICT_LABEL = b"SealedVault removal conflict v1\x00"
# The earlier rule's names, used here only to sign version-1 records whose 0x03s a replica ignores.
EARLIER_SYNC_CONFLICT_LABEL = b"SealedVault sync conflict v1\x00"
EARLIER_TEXT_CONFLICT_LABEL = b"SealedVault text conflict v1\x00"
CONTINUATION_LABEL = b"SealedVault block continuation v1\x00"
MAX_BLOCK_BYTES = 983040  # §14.4: a block's text and cells (the writing store keeps no longer one)
OVERFLOW_LABEL = b"SealedVault document overflow v1\x00"
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024  # §14.4: a document's text and cells (the writing store keeps no longer one)
NO_BASE = object()  # a fold's base when no write is in the past of both sides
CONFLICT = object()
# §19.2's bounds on what one record may cost a block's text: its characters in the record's past
# (deleted ones included) with those the record types there, and over the record's 0x04 operations,
# each one's edits times that figure.
MAX_BLOCK_CHARACTERS = 4 * 983040
MAX_TEXT_WORK = 2 ** 25


def block_conflict_name(block, write):
    return hashlib.sha256(BLOCK_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(write)).digest()[:16].hex()


def removal_conflict_name(block, removal):
    return hashlib.sha256(REMOVAL_CONFLICT_LABEL + bytes.fromhex(block) + bytes.fromhex(removal)).digest()[:16].hex()


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
        self._folds, self._views, self._parents_of_text = {}, {}, {}
        self._read_operations()
        self._check_text_work()
        self._build_sequences()
        self._apply_deletes()

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

    def version(self, h):
        return self.records[h].get("version", 1)

    def heads(self):
        """The records no held record names as a parent (a join's parents)."""
        named = {p for fields in self.records.values() for p in fields["parents"]}
        return [h for h in self.order if h not in named]

    # --- the operations ---------------------------------------------------------------------------

    def _read_operations(self):
        self.node_writes = {}      # node -> [(record, value or None)]
        self.block_writes = {}     # block -> {record: value or None}
        self.block_document = {}   # block -> document
        self.recorded = []         # 0x03 operations, with their record
        self.carrier = {}          # branch -> the lowest-ranked record with a 0x03 of it
        self.branch_makes = {}     # document -> the records making a branch of it (0x07 0x01)
        self.characters = {}       # block -> {character id: Character}
        self.deletes = {}          # record -> [(block, first, last, own offsets typed before it)], in the record's order
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
                elif op["op"] == "branch":
                    self.branch_makes.setdefault(op["document"], []).append(h)
                elif op["op"] == "conflict":
                    self.recorded.append((op, h))
                    self.carrier.setdefault(op["branch"], h)  # records come in rank order: the lowest-ranked
                elif op["op"] == "text":
                    block = op["block"]
                    assert self.block_writes.get(block, {}).get(h) is not None, "text edits before the block's present write"
                    for edit in op["edits"]:
                        if edit["edit"] == "insert":
                            parent = self._name(edit["after"])
                            for scalar in edit["text"]:
                                cid = (fields["device"], fields["counter"], offset)
                                self.characters.setdefault(block, {})[cid] = Character(cid, parent, h, self.rank(h), scalar)
                                parent, offset = cid, offset + 1
                        else:
                            self.deletes.setdefault(h, []).append(
                                (block, self._name(edit["first"]), self._name(edit["last"]), offset))

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

    # --- §19.3 a block's sequence (an RGA) and its deleters ------------------------------------------

    def _build_sequences(self):
        """An insert goes right after its anchor, past the characters there whose record ranks above
        it (and everything typed after those): as a tree (parent: the anchor, or the character typed
        before in the insert), each character's children in descending (rank, offset), read depth first."""
        self.sequence, self.deleters = {}, {}
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

    def _apply_deletes(self):
        """Records in rank order (parents first): each delete of record r marks, from `first` through
        `last` in sequence order, the characters of r's view before the edit: in its text parent's view,
        or typed by r earlier in the record, and not deleted by r already. Its ends need only be typed in
        r's past (or earlier in r) and not deleted by r already (else causalityViolation); no character
        between them may be one r deleted already (its deletes do not overlap: malformedRecord)."""
        for h in self.order:
            for block, first, last, own_typed in self.deletes.get(h, []):
                sequence = self.sequence.get(block, [])
                where = {c.cid: i for i, c in enumerate(sequence)}
                assert first in where and last in where and where[first] <= where[last], "a delete outside the block"
                parent = self.text_parent(block, h)
                shown = {c.cid for c in self.view(block, parent)} if parent else set()

                def typed_before(c):
                    return c.cid[2] < own_typed if c.record == h else self.in_past(c.record, h)

                for end in (sequence[where[first]], sequence[where[last]]):
                    assert typed_before(end) and h not in self.deleters.get(end.cid, ()), "a delete's end not seen (causalityViolation)"
                for c in sequence[where[first]:where[last] + 1]:
                    assert h not in self.deleters.get(c.cid, ()), "two deletes of one record overlap (malformedRecord)"
                    if c.cid in shown or (c.record == h and c.cid[2] < own_typed):
                        self.deleters.setdefault(c.cid, set()).add(h)

    # --- §19.3 text parents, lineages and views ---------------------------------------------------

    def text_parent(self, block, w):
        """The source of the fold of the block's maximal writes in w's past without w; None if none."""
        key = (block, w)
        if key not in self._parents_of_text:
            past = [x for x in self.block_writes.get(block, {}) if x != w and self.in_past(x, w)]
            self._parents_of_text[key] = self.fold(block, self.maximal(past))[1] if past else None
        return self._parents_of_text[key]

    def lineage(self, block, w):
        out = []
        while w is not None:
            out.append(w)
            w = self.text_parent(block, w)
        return set(out)

    def view(self, block, w):
        """The characters typed by a record of w's lineage and deleted by none of them, in sequence order."""
        key = (block, w)
        if key not in self._views:
            lineage = self.lineage(block, w)
            self._views[key] = [c for c in self.sequence.get(block, [])
                                if c.record in lineage and not (self.deleters.get(c.cid, set()) & lineage)]
        return self._views[key]

    def view_text(self, block, w):
        return "".join(c.scalar for c in self.view(block, w))

    # --- §19.3 registers and the fold ------------------------------------------------------------------

    def node_value(self, node):
        """The head of highest rank (the write of highest rank is always a head)."""
        return max(self.node_writes[node], key=lambda w: self.rank(w[0]))

    def block_heads(self, block):
        return sorted(self.maximal(list(self.block_writes[block])), key=self.rank)

    def write_value(self, block, w):
        """A write's value as compared: its order key, kind and cells with its view as the text; None: deleted."""
        value = self.block_writes[block][w]
        if value is None:
            return None
        return (value["order_key"], value["kind"], tuple(tuple(row) for row in value["rows"]), self.view_text(block, w))

    def fold(self, block, heads):
        """Heads in ascending rank, each next one merged with the value so far against their base (the fold
        of the maximal writes in the past of it and of one of the value so far's writes). Returns (value,
        source, [(losing write, winning write)])."""
        key = (block, frozenset(heads))
        if key in self._folds:
            return self._folds[key]
        heads = sorted(heads, key=self.rank)
        writes, source = [heads[0]], heads[0]
        value, conflicts = self.write_value(block, heads[0]), []
        for head in heads[1:]:
            other = self.write_value(block, head)
            common = [w for w in self.block_writes[block]
                      if self.in_past(w, head) and any(self.in_past(w, f) for f in writes)]
            base = self.fold(block, self.maximal(common))[0] if common else NO_BASE
            step = merge(value, other, base)
            if step is CONFLICT:
                # A conflict step: every write of the value so far loses to the head, which goes on alone.
                conflicts += [(w, head) for w in writes]
                writes, value, source = [head], other, head
                continue
            value, from_head = step
            writes.append(head)
            if from_head:
                source = head
        self._folds[key] = (value, source, conflicts)
        return self._folds[key]

    def shown(self, block):
        """The characters the block shows: its heads' fold's source's view."""
        return self.view(block, self.fold(block, self.block_heads(block))[1])

    # --- conflicts -----------------------------------------------------------------------------

    def conflict(self, branch, block, losing, winning):
        return {"op": "conflict", "branch": branch, "document": self.block_document[block], "block": block,
                "losing": as_json(losing), "winning": as_json(winning)}

    def merge_point_losers(self):
        """{(block, losing write): the highest-ranked write it lost to} over the merge points held: each
        record with two or more parents, each block with two or more maximal writes in its past without it."""
        if not hasattr(self, "_losers"):
            self._losers = {}
            for m in self.order:
                if len(self.records[m]["parents"]) < 2:
                    continue
                for block, writes in self.block_writes.items():
                    heads = self.maximal([w for w in writes if w != m and self.in_past(w, m)])
                    if len(heads) < 2:
                        continue
                    for loser, winner in self.fold(block, heads)[2]:
                        held = self._losers.get((block, loser))
                        if held is None or self.rank(winner) > self.rank(held):
                            self._losers[(block, loser)] = winner
        return self._losers

    def block_conflicts(self):
        return [self.conflict(block_conflict_name(block, loser), block, self.write_value(block, loser), self.write_value(block, winner))
                for (block, loser), winner in self.merge_point_losers().items()]

    def pending(self):
        """The conflicts the fold of each block's current heads makes that are not among the replica's
        conflicts (by name): the document already shows the kept head; a join makes them."""
        made = {c["branch"] for c in self.conflicts()}
        out = []
        for block in self.block_writes:
            heads = self.block_heads(block)
            if len(heads) < 2:
                continue
            for loser, winner in self.fold(block, heads)[2]:
                name = block_conflict_name(block, loser)
                if name not in made:
                    out.append(self.conflict(name, block, self.write_value(block, loser), self.write_value(block, winner)))
        return sorted(out, key=lambda c: c["branch"])

    def saw_present(self, removal, document):
        """Whether the removal's record saw a block of the document present (its writes there folded)."""
        for block, held in self.block_document.items():
            if held != document:
                continue
            past = [w for w in self.block_writes[block] if self.in_past(w, removal)]
            if past and self.fold(block, self.maximal(past))[0] is not None:
                return True
        return False

    def removal_conflicts(self):
        """Documents whose winning value is a removal while one of their blocks has a present write not
        in the removal's past, or a branch of them was made by a record not in it (review 20, F20-4: a
        suggestion's words are in no block write): they stay (with their removed folders). And every
        removal of a document with a block that has a present write concurrent with it: a conflict,
        whatever came later, unless the removal's record saw no block of the document present."""
        kept, out = set(), []
        for node in self.node_writes:
            removal, value = self.node_value(node)
            if value is not None:
                continue
            if any(not self.in_past(made, removal) for made in self.branch_makes.get(node, [])):
                kept.add(node)
            for block, document in sorted(self.block_document.items()):
                if document == node and any(v is not None and not self.in_past(w, removal) for w, v in self.block_writes[block].items()):
                    kept.add(node)
        for node in self.node_writes:
            for removal, value in self.node_writes[node]:
                if value is not None or not self.saw_present(removal, node):
                    continue
                for block, document in sorted(self.block_document.items()):
                    if document != node:
                        continue
                    concurrent = [w for w, v in self.block_writes[block].items() if v is not None and self.concurrent(w, removal)]
                    if concurrent:
                        latest = max(concurrent, key=self.rank)
                        out.append(self.conflict(removal_conflict_name(block, removal), block, None, self.write_value(block, latest)))
        return kept, out

    def made_here(self):
        """(branch, document, block) of the conflicts and pending conflicts this replica makes from its
        records alone (block and removal conflicts)."""
        made = self.block_conflicts() + self.removal_conflicts()[1] + self.pending_of_the_records()
        return {(c["branch"], c["document"], c["block"]) for c in made}

    def pending_of_the_records(self):
        """Pending block conflicts judged against the records' own conflicts (no 0x03 counted)."""
        made = {c["branch"] for c in self.block_conflicts()}
        out = []
        for block in self.block_writes:
            heads = self.block_heads(block)
            if len(heads) >= 2:
                for loser, winner in self.fold(block, heads)[2]:
                    if block_conflict_name(block, loser) not in made:
                        out.append(self.conflict(block_conflict_name(block, loser), block, self.write_value(block, loser),
                                                 self.write_value(block, winner)))
        return out

    def made_before(self, carrier):
        """What a replica holding exactly the records in `carrier`'s past (without it) makes."""
        if not hasattr(self, "_made_before"):
            self._made_before = {}
        if carrier not in self._made_before:
            past = [self.raw[h] for h in self.order if h != carrier and self.in_past(h, carrier)]
            self._made_before[carrier] = Replay(past, self.keys, self.own).made_here()
        return self._made_before[carrier]

    def losing_record(self, conflict):
        """The write (block conflict) or removal (removal conflict) a conflict's name gives, if held."""
        block = conflict["block"]
        for w in self.block_writes.get(block, {}):
            if block_conflict_name(block, w) == conflict["branch"]:
                return w, "write"
        for removal, value in self.node_writes.get(conflict["document"], []):
            if value is None and removal_conflict_name(block, removal) == conflict["branch"]:
                return removal, "removal"
        return None, None

    def recorded_conflicts(self):
        """Each version-2 0x03 as the replica takes it, and whether it is founded (§19.4): a founded one
        takes the records' losing side (the named write's value with its view, deleted for a removal).
        A version-1 record's 0x03s are ignored (§19.2)."""
        if not hasattr(self, "_recorded"):
            self._recorded = []
            for op, h in self.recorded:
                if self.version(h) == 1:
                    continue
                founded = (op["branch"], op["document"], op["block"]) in self.made_before(h)
                if founded:
                    loser, kind = self.losing_record(op)
                    assert loser is not None and self.in_past(loser, h), "a founded conflict's losing side is in its past"
                    losing = None if kind == "removal" else as_json(self.write_value(op["block"], loser))
                    op = dict(op, losing=losing)
                self._recorded.append((op, h, founded))
        return self._recorded

    def refused_when_received(self):
        """§19.4: the records a receiving replica refuses as `unfoundedConflict`: a version-2 record one of
        whose 0x03s names no conflict (nor pending conflict) the records in its past make."""
        refused = {h for _, h, founded in self.recorded_conflicts() if not founded}
        return [{"record": h, "reason": "unfoundedConflict"} for h in self.order if h in refused]

    def conflicts(self):
        """Block conflicts of the merge points held, removal conflicts and version-2 0x03s; for one branch
        id, the least encoding."""
        if not hasattr(self, "_conflicts"):
            found = self.block_conflicts() + self.removal_conflicts()[1] + [op for op, _, _ in self.recorded_conflicts()]
            least = {}
            for c in found:
                encoded = cr.encode_operation(c)
                if c["branch"] not in least or encoded < least[c["branch"]][0]:
                    least[c["branch"]] = (encoded, c)
            self._conflicts = [least[b][1] for b in sorted(least)]
        return self._conflicts

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

    def block_entry(self, block, value):
        return {"block": block, "order_key": value[0], "kind": value[1], "rows": [list(r) for r in value[2]], "text": value[3]}

    def blocks_of(self, document):
        """The document's present blocks, whole, in reading order: each its heads' fold, the source's view as text."""
        out = []
        for block, held in self.block_document.items():
            if held != document:
                continue
            value = self.fold(block, self.block_heads(block))[0]
            if value is not None:
                out.append(self.block_entry(block, value))
        return sorted(out, key=lambda b: (b["order_key"].encode(), bytes.fromhex(b["block"])))

    def proposal(self, conflict):
        """§19.3: the document as shown, the conflict's block replaced by the losing side; a losing
        `deleted` leaves it out unless no block is left: then the block as the losing write's past
        showed it (for a removal, as the document shows it; for an unfounded 0x03, as its lowest-ranked
        carrier's past showed it)."""
        document, block = conflict["document"], conflict["block"]
        shown = self.blocks_of(document)
        blocks = [b for b in shown if b["block"] != block]
        if conflict["losing"] is not None:
            blocks.append(dict(conflict["losing"], block=block))
        elif not blocks:
            loser, kind = self.losing_record(conflict)
            if kind == "removal":
                blocks = [b for b in shown if b["block"] == block]
            else:
                seer = loser if loser is not None else self.carrier[conflict["branch"]]
                past = [w for w in self.block_writes.get(block, {}) if w != seer and self.in_past(w, seer)]
                if past:
                    value, _, _ = self.fold(block, self.maximal(past))
                    if value is not None:
                        blocks = [self.block_entry(block, value)]
        return sorted(blocks, key=lambda b: (b["order_key"].encode(), bytes.fromhex(b["block"])))

    def branch(self, conflict):
        blocks = in_pieces(parted(self.proposal(conflict), keeping=conflict["block"])[0])
        return {"branch": conflict["branch"], "texts": [b["text"] for b in blocks], "content": content(blocks).hex()}

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
        return {"documents": documents, "conflicts": conflicts, "pending": self.pending(),
                "branches": [b for b in (self.branch(c) for c in conflicts) if b["texts"]],
                "refused_when_received": self.refused_when_received(), "dropped": self.dropped}


class Character:
    __slots__ = ("cid", "parent", "record", "rank", "scalar")

    def __init__(self, cid, parent, record, rank, scalar):
        self.cid, self.parent, self.record, self.rank, self.scalar = cid, parent, record, rank, scalar


def merge(a, b, base):
    """§19.3's fold step: (value, whether its content and source are b's), or CONFLICT. A value is None
    (deleted) or (order key, kind, cells, text)."""
    if a == b:
        return b, True
    if base is not NO_BASE and a == base:
        return b, True
    if base is not NO_BASE and b == base:
        return a, False
    if a is None or b is None or base is NO_BASE or base is None:
        return CONFLICT
    if a[0] == b[0] or b[0] == base[0]:
        key = a[0]
    elif a[0] == base[0]:
        key = b[0]
    else:
        return CONFLICT
    if a[1:] == b[1:]:
        return (key,) + b[1:], True
    if b[1:] == base[1:]:
        return (key,) + a[1:], False
    if a[1:] == base[1:]:
        return (key,) + b[1:], True
    return CONFLICT


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
    replay of the records it holds), a block's whole present value (0x02) before its text edits (0x04);
    a device that receives records making pending conflicts commits its join (`join`)."""

    def __init__(self, name, description, own=("A", "B")):
        self.name, self.description = name, description
        self.own = frozenset(DEVICES[n]["device_id"] for n in own)
        self.project = self.id("project")
        self.records = []   # (name, raw, hash, fields)
        self.counters = {}

    def id(self, label):
        return cr.fixed("merge case %s %s" % (self.name, label), 16).hex()

    def hash_of(self, name):
        return next(r[2] for r in self.records if r[0] == name)

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

    def record(self, name, device, parents, operations, lamport=None, counter=None, version=2):
        """`counter`: given for a device's second record of one number (a fork, or a re-commit on a fork's
        winner); else one more than the device's last. `version`: the record's body version (§19.2)."""
        by_name = {r[0]: r for r in self.records}
        parent_hashes = sorted(by_name[p][2] for p in parents)
        if lamport is None:
            lamport = max([by_name[p][3]["lamport"] for p in parents] + [0]) + 1
        if counter is None:
            counter = self.counters.get(device, 0) + 1
        self.counters[device] = max(counter, self.counters.get(device, 0))
        fields = {"project": self.project, "device": DEVICES[device]["device_id"], "counter": counter, "lamport": lamport,
                  "parents": parent_hashes, "operations": operations}
        if version != 1:
            fields = dict({"version": version}, **fields)
        raw = cr.sign(bytes.fromhex(DEVICES[device]["seed"]), cr.encode_body(fields))
        assert cr.read(raw, KEYS) == fields
        self.records.append((name, raw, hashlib.sha256(raw).hexdigest(), fields))

    def join(self, name, device, holding):
        """§19.3: the device holding the named records (and their pasts) commits a record naming every head,
        carrying each pending conflict as a 0x03; there must be one."""
        v = self.view(holding)
        pending = v.pending()
        assert pending, (self.name, name, "nothing pending: no join")
        names = {r[2]: r[0] for r in self.records}
        self.record(name, device, [names[h] for h in v.heads()], pending)

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
        after each, those whose parents it holds (the rest wait); each conflict it holds then (by name,
        block and losing side) is one of the whole set's. Pending conflicts are exempt: a join, or a
        later write, settles them."""
        final = {c["branch"]: (c["block"], c["losing"]) for c in result["conflicts"]}
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
            for c in Replay([r[1] for r in self.records if r[2] in held], KEYS, self.own).conflicts():
                assert final.get(c["branch"]) == (c["block"], c["losing"]), (self.name, "a conflict the whole set does not make", order, c)


def node(document, title, key="1i", parent=None):
    return {"op": "node", "node": document, "value": {"kind": "document", "parent": parent, "order_key": key, "title": title}}


def block_op(document, block, key, kind="paragraph", rows=None):
    return {"op": "block", "document": document, "block": block, "value": cr.block(key, kind, "", rows)}


def new_block(document, block, key, text, kind="paragraph"):
    return [block_op(document, block, key, kind), {"op": "text", "document": document, "block": block,
                                                  "edits": [{"edit": "insert", "after": None, "text": text}]}]


def character(c):
    return {"device": c.cid[0], "counter": c.cid[1], "offset": c.cid[2]}


def shown_text(view, block):
    return "".join(c.scalar for c in view.shown(block))


def edit(view, block, replacements, key=None):
    """The 0x02 and 0x04 of a block edited as its device shows it: `replacements` are (old, new) pairs,
    each old text (found after the previous one; ("after", word) inserts after the word) replaced by new:
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


def both_edit(c, title, text, a_replacements, b_replacements, b_lamport=None, a_lamport=None, second=None):
    """A makes a document of one paragraph (and a `second` after it); A and B, both having it, each edit
    the first paragraph, neither having seen the other's edit. Returns (document, block)."""
    doc, b1 = c.id("document"), c.id("block 1")
    more = new_block(doc, c.id("block 2"), "1j", second) if second else []
    c.record("made", "A", [], [node(doc, title)] + new_block(doc, b1, "1i", text) + more)
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, a_replacements), lamport=a_lamport)
    c.record("B types", "B", ["made"], edit(v, b1, b_replacements), lamport=b_lamport)
    return doc, b1


def different_blocks():
    c = Case("different blocks", "A types in the first block, B in the second, neither having seen the other: "
                                 "both edits merge, no conflict.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Visit 3")] + new_block(doc, b1, "1i", "Chief complaint: headache.")
             + new_block(doc, b2, "1j", "Plan: rest."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [(("after", "headache"), " since Monday")]))
    c.record("B types", "B", ["made"], edit(v, b2, [(("after", "rest"), " and fluids")]))
    c.record("A receives", "A", ["A types", "B types"], edit(c.view(["A types", "B types"]), b1, [(("after", "Monday"), ",")]))
    return c


def same_block_different_words():
    c = Case("same block, different words", "A replaces one word and B another of one paragraph, concurrently; A "
                                            "receives B's record and joins (its record names both and carries the "
                                            "pending conflict). Both changed the block's content: one conflict, the "
                                            "document shows A's paragraph whole (A ranks above B at equal Lamport times: "
                                            "its device id is the larger), B's in the branch. Before: the characters "
                                            "merged silently (F17-2).")
    both_edit(c, "Knee", "The patient reports mild pain in the left knee.", [("mild", "sharp")],
              [("left", "right"), (("after", "knee"), " since the fall")])
    c.join("A joins", "A", ["A types", "B types"])
    return c


def f17_1():
    c = Case("5 mg made 10 mg and 7.5 mg", "The reviewer's F17-1: \"Dose is 5 mg.\" made \"Dose is 10 mg.\" on A and "
                                           "\"Dose is 7.5 mg.\" on B; A joins. The document shows A's \"Dose is 10 mg.\" "
                                           "whole, never a splice (before: \"Dose is 107.5 mg.\" with both sides in "
                                           "branches); B's side is the one branch.")
    both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")], second="Second line.")
    c.join("A joins", "A", ["A types", "B types"])
    return c


def f17_2():
    c = Case("Take 5 mg twice daily", "The reviewer's F17-2: A makes \"twice\" \"once\", B makes \"5\" \"10\", words "
                                      "apart; B ranks higher (Lamport time 3) and joins. The document shows B's \"Take "
                                      "10 mg twice daily.\" whole and A's side is in the branch (before: \"Take 10 mg "
                                      "once daily.\", an order neither wrote, and no branch).")
    both_edit(c, "Dose", "Take 5 mg twice daily.", [("twice", "once")], [("5", "10")], b_lamport=3)
    c.join("B joins", "B", ["A types", "B types"])
    return c


def pending_without_a_join():
    c = Case("pending without a join", "As \"5 mg made 10 mg and 7.5 mg\" without A's join (a viewer, or a replica "
                                       "that does not write the project, holding both records): no merge point holds "
                                       "both writes, so the conflict is pending, not yet a conflict; the document "
                                       "already shows A's side whole.")
    both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")])
    return c


def two_joins_of_one_merge():
    c = Case("two joins of one merge", "As \"5 mg made 10 mg and 7.5 mg\", but A and B each receive the other's record "
                                       "and join at once: two merge points of the same heads, one conflict (one name), "
                                       "and once both joins are held nothing is pending, so no further join follows.")
    both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")])
    c.join("A joins", "A", ["A types", "B types"])
    c.join("B joins", "B", ["A types", "B types"])
    assert not c.view(["A joins", "B joins"]).pending()
    return c


def typed_on_top_of_the_winner():
    c = Case("typed on top of the winner", "As \"5 mg made 10 mg and 7.5 mg\"; B receives A's join and types \" daily\" "
                                           "before the full stop. B's device shows A's side (the kept head), so its write's "
                                           "text parent is A's write: it edits \"Dose is 10 mg.\", and B's \"7.5\" stays "
                                           "hidden, not deleted (in the branch and the records).")
    doc, b1 = both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")])
    c.join("A joins", "A", ["A types", "B types"])
    v = c.view(["A joins"])
    assert shown_text(v, b1) == "Dose is 10 mg."
    c.record("B types on", "B", ["A joins"], edit(v, b1, [(("after", "mg"), " daily")]))
    return c


def a_late_losers_write_flips_the_winner():
    c = Case("a late loser's write flips the winner", "As \"5 mg made 10 mg and 7.5 mg\", A joins (B's first write "
                                                      "loses); B, before receiving anything, types on in its own text "
                                                      "(\"Dose is 7.5 mg at night.\", Lamport time 3); B then receives A's "
                                                      "records and joins. At B's join the block's heads are A's write and "
                                                      "B's later one, which ranks higher: it is kept whole, and A's side "
                                                      "is a new conflict, named by A's write. Every text a device had is "
                                                      "in the document or a branch.")
    doc, b1 = both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")])
    c.join("A joins", "A", ["A types", "B types"])
    c.record("B types on", "B", ["B types"], edit(c.view(["B types"]), b1, [(("after", "mg"), " at night")]))
    c.join("B joins", "B", ["A joins", "B types on"])
    return c


def delete_whose_end_a_conflict_hid():
    c = Case("a delete whose end a conflict hid", "A deletes \"two \" of \"one two three\" while B types \"X\" after "
                                                  "\"two\"; A joins (A kept). C, holding all, deletes from B's hidden "
                                                  "\"X\" through the end (a record may name an end typed in its past "
                                                  "that its view does not show): it marks only what C's view shows "
                                                  "(\"three\"), so B's \"X\" stays unmarked, in B's branch.")
    doc, b1 = both_edit(c, "List", "one two three", [("two ", "")], [(("after", "two"), "X")])
    c.join("A joins", "A", ["A types", "B types"])
    v = c.view(["A joins"])
    assert shown_text(v, b1) == "one three"
    hidden = next(ch for ch in v.sequence[b1] if ch.scalar == "X")
    c.record("C deletes", "C", ["A joins"], [block_op(doc, b1, "1i"), {"op": "text", "document": doc, "block": b1, "edits": [
        {"edit": "delete", "first": character(hidden), "last": character(v.shown(b1)[-1])}]}])
    return c


def same_change_on_both():
    c = Case("the same change on both", "A and B both make \"5 mg\" \"10 mg\": different characters, equal strings, "
                                        "so equal values and no conflict; A, receiving B's record, types on in "
                                        "another block (its record a merge point of both).")
    doc, b1 = both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "10")])
    c.record("A types on", "A", ["A types", "B types"], new_block(doc, c.id("block 2"), "1j", "Reviewed."))
    return c


def adopted_while_edited_by_hand():
    c = Case("adopted on one, edited by hand on the other", "The reviewer's F17-0: as \"5 mg made 10 mg and 7.5 mg\" "
                                                             "(A's side kept, B's in the branch) and both devices hold "
                                                             "A's join. A adopts B's branch (its block write: \"7.5\", "
                                                             "on top of the kept text; the 0x07 decision and snapshots "
                                                             "do not enter the merge and are left out here) while B "
                                                             "edits the block by hand to \"8 mg\". The two writes of one "
                                                             "block meet at C's merge point: the higher-ranked is kept "
                                                             "whole and the other is a new conflict, never both words "
                                                             "deleted, never a splice.")
    doc, b1 = both_edit(c, "Med", "Dose is 5 mg.", [("5", "10")], [("5", "7.5")])
    c.join("A joins", "A", ["A types", "B types"])
    v = c.view(["A joins"])
    c.record("A adopts", "A", ["A joins"], edit(v, b1, [("10", "7.5")]))
    c.record("B edits", "B", ["A joins"], edit(v, b1, [("10", "8")]))
    c.join("C joins", "C", ["A adopts", "B edits"])
    return c


def same_word():
    c = Case("same word", "A and B both replace the dose \"5\" (by \"10\" and \"7.5\"), B at Lamport time 3; A joins: "
                          "one conflict (before: two, the text \"107.5\"); the document shows B's side whole.")
    both_edit(c, "Prescription", "Take 5 mg twice daily.", [("5", "10")], [("5", "7.5")], b_lamport=3)
    c.join("A joins", "A", ["A types", "B types"])
    return c


def same_word_then_more():
    c = Case("same word, then typing on", "As \"same word\" (B kept), then A, having joined, types on: A's device shows "
                                          "B's side, so A edits B's text; the conflict stays (a fact of the join).")
    doc, b1 = both_edit(c, "Prescription", "Take 5 mg twice daily.", [("5", "10")], [("5", "7.5")], b_lamport=3)
    c.join("A joins", "A", ["A types", "B types"])
    v = c.view(["A joins"])
    c.record("A types on", "A", ["A joins"], edit(v, b1, [("twice", "three times")]))
    return c


def forged_conflict_words():
    c = Case("a conflict's words forged", "As \"same word\" (B kept); C, an editor holding both records, records the "
                                          "conflict by its true name (A's write loses) but with the losing side deleted "
                                          "(the least encoding). The name is the records': the branch still proposes A's "
                                          "words as its record wrote them, never what the 0x03 carries (attack review "
                                          "s6, A10).")
    doc, b1 = both_edit(c, "Prescription", "Take 5 mg twice daily.", [("5", "10")], [("5", "7.5")], b_lamport=3)
    met = c.view(["A types", "B types"]).pending()
    assert len(met) == 1 and met[0]["losing"] is not None
    c.record("C forges", "C", ["A types", "B types"], [dict(m, losing=None) for m in met])
    return c


def conflicts_forged_of_writes_that_merge():
    c = Case("conflicts forged of writes that merge", "A moves the block while B edits its text: the two merge (a move "
                                                      "and an edit), no conflict. C, holding both, records (version 2) a "
                                                      "block conflict named by A's write, carrying words of its own: the "
                                                      "name hashes a real write but the records make no such conflict, so "
                                                      "a receiving replica refuses C's record as unfoundedConflict "
                                                      "(`refused_when_received`; attack review s8, N5); replayed unchecked "
                                                      "it keeps the words it carries. B, holding both, signs a version-1 "
                                                      "record with a text conflict of the earlier rule named by A's and "
                                                      "B's records: a version-1 record's 0x03s are ignored, neither "
                                                      "refused nor a conflict.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "facts") + new_block(doc, b2, "1j", "more"))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b1, "1k"))
    c.record("B types", "B", ["made"], edit(v, b1, [(("after", "facts"), " here")]))
    both = c.view(["A moves", "B types"])
    assert both.pending() == [] and both.conflicts() == []
    a, b = c.hash_of("A moves"), c.hash_of("B types")
    losing = both.write_value(b1, a)
    forged = {"op": "conflict", "branch": block_conflict_name(b1, a), "document": doc, "block": b1,
              "losing": as_json(losing[:3] + ("the client admitted it",)), "winning": as_json(both.write_value(b1, b))}
    c.record("C forges a block conflict", "C", ["A moves", "B types"], [forged])
    earlier = hashlib.sha256(EARLIER_TEXT_CONFLICT_LABEL + bytes.fromhex(b1) + bytes.fromhex(a) + bytes.fromhex(b)).digest()[:16].hex()
    c.record("B signs the earlier rule's name", "B", ["A moves", "B types"],
             [dict(forged, branch=earlier, losing=as_json(losing[:3] + ("no facts here",)))], version=1)
    return c


def earlier_rules_fold_name():
    c = Case("a fold's name of the earlier rule", "A types before the word while B types after it: under the earlier "
                                                  "rule the texts merged. C, holding both, signs a version-1 record "
                                                  "naming the fold of both writes as that rule did (block, both hashes "
                                                  "ascending), carrying `deleted`: ignored. C's record is itself a merge "
                                                  "point of both writes, which changed the block's content both: one "
                                                  "block conflict, with no 0x03 of it (A's side kept: the larger device id).")
    doc, b1 = both_edit(c, "Memo", "facts", [("", "new ")], [(("after", "facts"), " here")])
    hashes = sorted(bytes.fromhex(c.hash_of(n)) for n in ("A types", "B types"))
    name = hashlib.sha256(EARLIER_SYNC_CONFLICT_LABEL + bytes.fromhex(b1) + b"".join(hashes)).digest()[:16].hex()
    both = c.view(["A types", "B types"])
    fold = {"op": "conflict", "branch": name, "document": doc, "block": b1, "losing": None,
            "winning": as_json(both.write_value(b1, c.hash_of("A types")))}
    c.record("C records the fold", "C", ["A types", "B types"], [fold], version=1)
    return c


def moved_and_edited():
    c = Case("moved and edited", "A moves the third block to the top (its order key); B edits its text; A joins them "
                                 "(a record naming both, typing in another block): the block moves and keeps B's "
                                 "words, no conflict (a move and an edit of the content merge, §19.3).")
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Letter")] + new_block(doc, b1, "1i", "Dear Ms Okafor,")
             + new_block(doc, b2, "1j", "Thank you for your letter.") + new_block(doc, b3, "1k", "Ref 2291", "heading-3"))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b3, "1h"))
    c.record("B edits", "B", ["made"], edit(v, b3, [("2291", "2291-b")]))
    both = c.view(["A moves", "B edits"])
    assert both.pending() == []
    c.record("A types on", "A", ["A moves", "B edits"], edit(both, b2, [(("after", "letter"), " of May")]))
    return c


def deleted_and_edited():
    c = Case("deleted and edited", "A deletes the second block while B, not having seen that, edits it; A's record "
                                   "ranks higher (Lamport time 3) and B joins: the block is deleted and B's words "
                                   "survive in the branch (the losing side, B's write with its view).")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b2), lamport=3)
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]))
    c.join("B joins", "B", ["A deletes", "B edits"])
    return c


def edited_and_deleted():
    c = Case("edited and deleted", "As \"deleted and edited\", but B's edit ranks higher (Lamport time 3) and A joins: "
                                   "the block stays with B's words and the branch proposes it deleted.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b2))
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]), lamport=3)
    c.join("A joins", "A", ["A deletes", "B edits"])
    return c


def outline(c):
    doc, b1, b2, b3 = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 3")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.") + new_block(doc, b2, "1j", "Two.")
             + new_block(doc, b3, "1k", "Three."))
    return doc, b2


def moved_on_both():
    c = Case("moved on both", "A and B both move one block, to different places; A joins: both changed its order key, "
                              "a conflict; the higher-ranked (A, the larger device id at equal Lamport times) keeps its place.")
    doc, b2 = outline(c)
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.join("A joins", "A", ["A moves", "B moves"])
    return c


def inserts_at_one_point(name, lamport_b, description):
    c = Case(name, description)
    both_edit(c, "Allergies", "Allergies:", [(("after", "Allergies:"), " penicillin,")],
              [(("after", "Allergies:"), " latex,")], b_lamport=lamport_b)
    c.join("A joins", "A", ["A types", "B types"])
    return c


def touching_inserts():
    c = Case("touching inserts", "A and B type a word at one point with no space between; A joins: one conflict, the "
                                 "document shows A's word alone (before: the words ran together and both sides were "
                                 "branches).")
    both_edit(c, "Allergies", "Allergies: .", [(("after", "Allergies: "), "penicillin")], [(("after", "Allergies: "), "latex")])
    c.join("A joins", "A", ["A types", "B types"])
    return c


def three_devices():
    c = Case("three devices", "A, B and C each change another word of one paragraph and B also adds a block; A, holding "
                              "all three, joins: folded in ascending rank, each next head's content conflicts with the "
                              "value so far: two conflicts, the highest-ranked side whole; B's added block stays.")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Notes")] + new_block(doc, b1, "1i", "Seen at home on Tuesday by the nurse."))
    v = c.view(["made"])
    c.record("A types", "A", ["made"], edit(v, b1, [("home", "the clinic")]))
    c.record("B types", "B", ["made"], edit(v, b1, [("Tuesday", "Wednesday")]) + new_block(doc, b2, "1j", "Follow up."))
    c.record("C types", "C", ["made"], edit(v, b1, [("nurse", "doctor")]))
    c.join("A joins", "A", ["A types", "B types", "C types"])
    return c


def deletes_that_join_words():
    c = Case("deletes that join words", "A deletes the comma of \"red, blue\" and B the space; A joins: one conflict, "
                                        "the document shows \"red blue\" (A's), never \"redblue\".")
    both_edit(c, "Colours", "red, blue", [(",", "")], [(" ", "")])
    c.join("A joins", "A", ["A types", "B types"])
    return c


def insert_before_a_deleted_character():
    c = Case("insert before a deleted character", "A types a comma right before the space B deletes (with the rest of "
                                                  "the sentence); A joins: one conflict, the document shows A's text.")
    both_edit(c, "Knee", "Pain in the left knee.", [(("after", "Pain"), ",")], [(" in the left knee", "")])
    c.join("A joins", "A", ["A types", "B types"])
    return c


def insert_after_a_deleted_character():
    c = Case("insert after a deleted character", "A types after the word B deletes; A joins: one conflict, the "
                                                 "document shows A's text.")
    both_edit(c, "Knee", "Pain in the left knee.", [(("after", "left"), " lower")], [(" left", "")])
    c.join("A joins", "A", ["A types", "B types"])
    return c


def replaced_word_deleted(replacer, deleter, name, description):
    """One device deletes a word and the space after it while the other replaces the word; A joins: one
    conflict, the higher-ranked side whole (never "d0w1 d2w90d0w2")."""
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Notes")] + new_block(doc, b1, "1i", "d0w1 d0w85 d0w2"))
    v = c.view(["made"])
    c.record(deleter + " deletes", deleter, ["made"], edit(v, b1, [("d0w85 ", "")]))
    c.record(replacer + " replaces", replacer, ["made"], edit(v, b1, [("d0w85", "d2w90")]))
    c.join("A joins", "A", [deleter + " deletes", replacer + " replaces"])
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
    c = Case("moved on three devices", "A, B and C each move one block to another place; A, holding all three, "
                                       "joins: folded in ascending rank, each next head conflicts with the value so far.")
    doc, b2 = outline(c)
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C moves", "C", ["made"], move(v, b2, "1m"))
    c.join("A joins", "A", ["A moves", "B moves", "C moves"])
    return c


def merged_then_moved():
    c = Case("merged, then moved", "B moves a block, A makes it a quote and C moves it elsewhere; A, holding all, "
                                   "joins: in the fold a kind change and a move merge, and a move against the merged "
                                   "value is a conflict step whose losers are every write of the value so far.")
    doc, b2 = outline(c)
    v = c.view(["made"])
    c.record("A quotes", "A", ["made"], [block_op(doc, b2, "1j", "quote")])
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C moves", "C", ["made"], move(v, b2, "1m"))
    c.join("A joins", "A", ["A quotes", "B moves", "C moves"])
    return c


def delete_over_own_insert():
    c = Case("a delete over the record's own insert", "One record inserts \"new \" and then deletes a range whose ends "
                                                     "lie either side of it: a delete marks what its record's view "
                                                     "showed before it, its own earlier inserts included.")
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
    c = Case("a conflict resolved unrecorded", "As \"same word\" (B kept), but A, holding both, resolves by hand with "
                                               "no 0x03: its record is the merge point of both writes, so the conflict "
                                               "is made all the same (a fact of the records).")
    doc, b1 = both_edit(c, "Prescription", "Take 5 mg twice daily.", [("5", "10")], [("5", "7.5")], b_lamport=3)
    v = c.view(["A types", "B types"])
    c.record("A resolves", "A", ["A types", "B types"], edit(v, b1, [("7.5", "8")]))
    return c


def same_move_on_both():
    c = Case("the same move on both", "A and B both move one block to the same place, each also changing another word; "
                                      "A joins: the order key changed alike is no conflict, the content changed "
                                      "differently is one (A's side whole).")
    doc, b1, b2 = c.id("document"), c.id("block 1"), c.id("block 2")
    c.record("made", "A", [], [node(doc, "Outline")] + new_block(doc, b1, "1i", "One.")
             + new_block(doc, b2, "1j", "Two apples and three pears."))
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], edit(v, b2, [("apples", "plums")], key="1h"))
    c.record("B moves", "B", ["made"], edit(v, b2, [("pears", "figs")], key="1h"))
    c.join("A joins", "A", ["A moves", "B moves"])
    return c


def touching_then_typing_on():
    c = Case("touching, then typing on", "A types a word where B types one, then, before seeing B's, types on in the "
                                         "same block; B joins: at B's merge point the heads are A's later write and "
                                         "B's, one conflict (A's first write is below its later one, no head).")
    doc, b1 = both_edit(c, "Allergies", "Allergies: .", [(("after", "Allergies: "), "penicillin")], [(("after", "Allergies: "), "latex")])
    c.record("A types on", "A", ["A types"], edit(c.view(["A types"]), b1, [(("after", "."), " Checked.")]))
    c.join("B joins", "B", ["A types on", "B types"])
    return c


def moved_while_typed_elsewhere():
    c = Case("moved on both, a paragraph added", "As \"moved on both\", while C adds a paragraph; A joins holding all: "
                                                  "the branch proposes the document as the replica shows it (C's "
                                                  "paragraph included) with the losing side's block, the same in every order.")
    doc, b2 = outline(c)
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("C adds", "C", ["made"], new_block(doc, c.id("block 4"), "1m", "Four."))
    c.join("A joins", "A", ["A moves", "B moves", "C adds"])
    return c


def moves_resolved_unrecorded():
    c = Case("moves resolved unrecorded", "A and B move one block to different places, B moves it again, and A, holding "
                                          "all three, moves it once more with no 0x03: A's record is the merge point of "
                                          "A's move and B's second (B's first is below it): one conflict (before, as "
                                          "pairs, two).")
    doc, b2 = outline(c)
    v = c.view(["made"])
    c.record("A moves", "A", ["made"], move(v, b2, "1l"))
    c.record("B moves", "B", ["made"], move(v, b2, "1h"))
    c.record("B moves again", "B", ["B moves"], move(c.view(["B moves"]), b2, "1g"))
    c.record("A settles", "A", ["A moves", "B moves again"], move(c.view(["A moves", "B moves again"]), b2, "1m"))
    return c


def only_block_deleted_and_edited():
    c = Case("only block deleted and edited", "A deletes a document's only block while B edits it, B's record ranking "
                                              "higher (Lamport time 3); A joins: the block stays with B's words, and the "
                                              "branch of A's side keeps the block as A's past showed it before deleting "
                                              "it rather than propose an empty document.")
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Draft terms."))
    v = c.view(["made"])
    c.record("A deletes", "A", ["made"], delete(v, b1))
    c.record("B edits", "B", ["made"], edit(v, b1, [("Draft", "Agreed")]), lamport=3)
    c.join("A joins", "A", ["A deletes", "B edits"])
    return c


def touching_parted_again():
    c = Case("touching words parted again", "As \"touching inserts\", but A, holding both, types a space after its word "
                                            "(no 0x03): its record is the merge point, one conflict; A's device shows "
                                            "its own side, so the space goes into A's text.")
    doc, b1 = both_edit(c, "Allergies", "Allergies: .", [(("after", "Allergies: "), "penicillin")], [(("after", "Allergies: "), "latex")])
    v = c.view(["A types", "B types"])
    assert shown_text(v, b1) == "Allergies: penicillin."
    c.record("A parts them", "A", ["A types", "B types"], edit(v, b1, [(("after", "penicillin"), " ")]))
    return c


def touching_through_a_third_devices_delete():
    c = Case("touching through a third device's delete", "A types \"penicillin\" before the \";\" of \"Allergies: ;.\", "
                                                         "B \"latex\" after it, and C deletes it, none having seen the "
                                                         "others; A joins holding all: three heads of one block, each "
                                                         "changing its content: two conflicts, the highest-ranked side "
                                                         "whole, each other side in a branch.")
    both_edit(c, "Allergies", "Allergies: ;.", [(("after", "Allergies: "), "penicillin")], [(("after", ";"), "latex")])
    v = c.view(["made"])
    c.record("C deletes", "C", ["made"], edit(v, c.id("block 1"), [(";", "")]))
    c.join("A joins", "A", ["A types", "B types", "C deletes"])
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


def suggested(c, doc, proposed):
    """B's snapshot of the document as B shows it and a manual branch against it proposing `proposed`
    (a paragraph's text) instead: the 0x06 and 0x07 0x01 `vaultctl branch create` records."""
    v = c.view(["made"])
    base = content(v.blocks_of(doc))
    shown = [dict(b, text=proposed) for b in v.blocks_of(doc)]
    snapshot, branch = c.id("snapshot"), c.id("branch")
    return [{"op": "snapshot", "snapshot": snapshot, "document": doc, "origin": "automatic", "title": None,
             "device": DEVICES["B"]["device_id"], "created_at": 1780000000, "digest": hashlib.sha256(base).hexdigest(),
             "content": base.hex()},
            {"op": "branch", "branch": branch, "document": doc, "kind": "manual", "base": snapshot,
             "provenance": "laptop suggestion", "created_at": 1780000001, "delta": (b"\x01" + sd.insert(content(shown))).hex()}]


def removed_and_branched(name, description, knowing):
    """A removes a document B makes a branch of, having seen that branch (`knowing`) or not."""
    c = Case(name, description)
    doc, b1 = c.id("document"), c.id("block 1")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Draft terms."))
    removal = ["A removes", "A", ["B suggests"] if knowing else ["made"], [{"op": "node", "node": doc, "value": None}]]
    if not knowing:
        c.record(*removal)
    c.record("B suggests", "B", ["made"], suggested(c, doc, "Agreed terms, as suggested."))
    if knowing:
        c.record(*removal)
    return c


def rebased_while_typed(name, a_lamport, b_lamport, joiner, description):
    """§19.2's re-based block: A's write would take the block's sequence past its bound, so A writes the
    block deleted and its text as a new block (a fresh id, the same order key, kind and text) while B,
    not having seen that, types in the old one: a deleted-and-edited conflict, no word lost."""
    c = Case(name, description)
    doc, b1, b2, fresh = c.id("document"), c.id("block 1"), c.id("block 2"), c.id("block 2 re-based")
    c.record("made", "A", [], [node(doc, "Memo")] + new_block(doc, b1, "1i", "Summary.") + new_block(doc, b2, "1j", "Draft terms."))
    v = c.view(["made"])
    c.record("A re-bases", "A", ["made"], new_block(doc, fresh, "1j", "Draft terms, final.") + delete(v, b2), lamport=a_lamport)
    c.record("B edits", "B", ["made"], edit(v, b2, [("Draft", "Agreed")]), lamport=b_lamport)
    c.join(joiner + " joins", joiner, ["A re-bases", "B edits"])
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
    built = [different_blocks(), same_block_different_words(), f17_1(), f17_2(), pending_without_a_join(),
             two_joins_of_one_merge(), typed_on_top_of_the_winner(), a_late_losers_write_flips_the_winner(),
             delete_whose_end_a_conflict_hid(), same_change_on_both(), adopted_while_edited_by_hand(),
             same_word(), same_word_then_more(), forged_conflict_words(), conflicts_forged_of_writes_that_merge(),
             earlier_rules_fold_name(), moved_and_edited(), deleted_and_edited(), edited_and_deleted(), moved_on_both(),
             inserts_at_one_point("inserts at one point", 2, "A and B type at the same point at Lamport time 2; A joins: "
                                  "one conflict, A's side whole (A's device id is the larger); no interleaving."),
             inserts_at_one_point("inserts at one point, Lamport first", 3, "As \"inserts at one point\", but B's record "
                                  "has Lamport time 3: it ranks above A's whatever the device ids, so B's side is kept."),
             touching_inserts(), three_devices(), deletes_that_join_words(), insert_before_a_deleted_character(),
             insert_after_a_deleted_character(), two_inserts_at_one_anchor(), moved_on_three(),
             merged_then_moved(), delete_over_own_insert(), conflict_not_recorded(), same_move_on_both(),
             touching_then_typing_on(),
             replaced_word_deleted("A", "B", "replaced word, deleted", "A replaces a word (d0w85 by d2w90) while B deletes "
                                   "it with the space after it; A joins: one conflict, A's side whole (never \"d0w1 "
                                   "d2w90d0w2\"), B's in the branch."),
             replaced_word_deleted("B", "A", "deleted word, replaced", "As \"replaced word, deleted\", the roles swapped "
                                   "(the replacing B ranks lower): A's deletion is kept, B's replacement in the branch."),
             moved_while_typed_elsewhere(), moves_resolved_unrecorded(), only_block_deleted_and_edited(),
             touching_parted_again(), touching_through_a_third_devices_delete(), emptied_document_removed(),
             removed_and_branched("a document removed while a branch is made of it", "The reviewer's F20-4: A removes a "
                                  "document while B, not having seen that, makes a branch of it (a suggestion: a "
                                  "snapshot and a 0x07 branch proposing other words, which no block write holds). The "
                                  "document stays on every device as it was, with the branch (its words are lost "
                                  "otherwise); no block was written, so there is no removal conflict.", knowing=False),
             removed_and_branched("a document removed knowing its branch", "As \"a document removed while a branch is "
                                  "made of it\", but A removes the document holding B's branch (its record in the "
                                  "removal's past): the document goes, and its branch with it.", knowing=True),
             rebased_while_typed("re-based while typed", 3, 2, "B", "A re-bases the second block (its sequence at its "
                                 "bound: deleted, and its text, edited, as a new block with the same order key) while B "
                                 "edits the old one; A ranks higher and B joins: the new block shows, B's words are in "
                                 "the branch."),
             rebased_while_typed("typed while re-based", 2, 3, "A", "As \"re-based while typed\", but B's edit ranks "
                                 "higher and A joins: the old block stays with B's words beside the new one, and the "
                                 "branch proposes A's side (the old block deleted)."),
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
        case("a proposal keeps its conflict's block", "A branch's proposal past the bound (the document shown, "
             "its conflict's block replaced): the conflict's block, last, is shown and counted first; the blocks after the first that "
             "does not fit are left out.",
             full("g", 18) + [small("g conflict", "The losing words.")], keeping=block_id("g conflict")),
    ]


def build():
    removal_known_answer()
    return {
        "description": "The merge of SECURITY.md §19.3 (the rule of block conflicts, issue 17 s18), written by "
                       "testvectors/independent/sync_merge.py: each case's records (signed by `devices`, the same as "
                       "change-records.json's, plus C and E; body version 2 unless a case says a record is of version 1), "
                       "received in each of `orders` (indices into `records`), show `documents` (each present document's "
                       "node value, its blocks in reading order with the text shown, and `content`: the §15.2 content "
                       "bytes), exactly `conflicts` (the replica's conflicts as 0x03 operations, by branch id: block "
                       "conflicts of the merge points held, removal conflicts and version-2 0x03s; `losing` is the side "
                       "the syncConflict branch proposes for the block, null: deleted) and `pending` (the conflicts the "
                       "fold of the current heads makes that are not yet among them: a join makes them); `branches` "
                       "gives each conflict's branch proposal (§19.3: the document as the replica shows it with the "
                       "conflict's block replaced by the losing side; never empty), its blocks' texts and §15.2 content; "
                       "`refused_when_received` lists the records a receiving replica refuses (§19.4: a version-2 0x03 "
                       "naming no conflict or pending conflict the records in its record's past make), by hash, with "
                       "the reason, in every order (replayed unchecked, as above, they are taken). `dropped` lists, by "
                       "hash, the records §19.4's fork rule takes out of the replica (a device's record of a number "
                       "another record of lower rank has, and what is built on it; a receiving replica refuses each as "
                       "equivocation, or drops it when its rival comes), as a vault whose own devices (§19.4's own set) "
                       "are `own` weighs them.",
        "spec": "SECURITY.md §19.3",
        "devices": DEVICES,
        "cases": cases(),
        "overflow_description": "A block longer than the store keeps (a hostile record's, or one of the earlier rule) (§19.3, 983,040 bytes of text "
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
