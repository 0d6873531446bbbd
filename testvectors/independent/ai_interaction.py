#!/usr/bin/env python3
"""An independent encoder and strict reader of the assistant's formats, written from SECURITY.md
§17.3 (the chat transcript, version 1) and §17.6 (the AIInteraction record, version 1) alone; it
shares no code with the Swift implementation (standard library only).

    ai_interaction.py --write   writes testvectors/assistant/ai-interaction.json
    ai_interaction.py --check   re-encodes every valid case and refuses every invalid one (exit 1 on a difference)
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "assistant", "ai-interaction.json")
RS, US = b"\x1e", b"\x1f"
MAGIC = b"AIX\x01"
UNKNOWN = 0xFFFFFFFF


class Damaged(Exception):
    pass


# §17.3: transcript = "chat-v1" 1*part, part = RS kind US content

def transcript(parts):
    out = b"chat-v1"
    for kind, content in parts:
        out += RS + kind.encode() + US + content.encode()
    return out


def parse_transcript(data):
    if not data.startswith(b"chat-v1"):
        raise Damaged("not a chat transcript")
    pieces = data[len(b"chat-v1"):].split(RS)
    if pieces[0] != b"" or len(pieces) < 2:
        raise Damaged("no part")
    parts = []
    for piece in pieces[1:]:
        if US not in piece:
            raise Damaged("a part without US")
        kind, content = piece.split(US, 1)
        if US in content:
            raise Damaged("a second US in a part")
        kind, content = kind.decode(), content.decode()
        if kind not in ("system", "user", "assistant", "calls", "tools", "options") and not kind.startswith("tool:"):
            raise Damaged("unknown kind")
        if kind == "calls" and (not parts or parts[-1][0] != "assistant"):
            raise Damaged("calls not after an assistant part")
        parts.append((kind, content))
    if not any(kind in ("system", "user", "assistant") or kind.startswith("tool:") for kind, _ in parts):
        raise Damaged("no message")
    return parts


# §17.6: record = "AIX" 0x01 document:16 field{8} prompt-tokens:u32be completion-tokens:u32be

FIELDS = ["lane", "provider", "decision", "outcome", "prompt", "answer", "stored", "branch"]


def encode(record):
    out = MAGIC + bytes.fromhex(record["document"])
    for name in FIELDS:
        value = bytes.fromhex(record[name]) if name in ("prompt", "branch") else record[name].encode()
        out += len(value).to_bytes(4, "big") + value
    out += record["prompt_tokens"].to_bytes(4, "big") + record["completion_tokens"].to_bytes(4, "big")
    return out


def parse(data):
    if not data.startswith(MAGIC):
        raise Damaged("does not start with AIX version 1")
    at = len(MAGIC)

    def take(count):
        nonlocal at
        if len(data) - at < count:
            raise Damaged("ends early")
        value = data[at:at + count]
        at += count
        return value

    record = {"document": take(16).hex()}
    for name in FIELDS:
        value = take(int.from_bytes(take(4), "big"))
        if name in ("lane", "provider", "decision", "outcome"):
            if not 1 <= len(value) <= 256:
                raise Damaged("a name that is not 1 to 256 bytes")
            record[name] = value.decode()
        elif name in ("answer", "stored"):
            record[name] = value.decode()
        else:
            if name == "branch" and len(value) not in (0, 16):
                raise Damaged("a branch that is not 16 bytes")
            record[name] = value.hex()
    record["prompt_tokens"] = int.from_bytes(take(4), "big")
    record["completion_tokens"] = int.from_bytes(take(4), "big")
    if at != len(data):
        raise Damaged("bytes after its end")
    return record


def cases():
    chat = transcript([("system", "House style: write plainly."), ("user", "The note:\nSlept four hours.\nAsked about [EMAIL].")])
    tools = transcript([("user", "Find it."), ("assistant", ""), ("calls", '[{"arguments":"{}","id":"c1","name":"search"}]'),
                        ("tool:c1", "nothing found"), ("tools", '[{"description":"d","name":"search","parameters":"{}"}]'),
                        ("options", '{"max_tokens":64}')])
    valid = [
        {"name": "suggested", "document": "11" * 16, "lane": "coauthor.summarize", "provider": "model:local/smollm2", "decision": "redact",
         "outcome": "suggested", "prompt": chat.hex(), "answer": "Slept four hours; write to jane@example.org.",
         "stored": "Slept four hours; write to jane@example.org.", "branch": "22" * 16, "prompt_tokens": 41, "completion_tokens": 9},
        {"name": "echo failed", "document": "33" * 16, "lane": "coauthor.draft", "provider": "model:ollama/llama3.2", "decision": "allow",
         "outcome": "failed:echoes-instructions", "prompt": chat.hex(), "answer": "House style: write plainly.", "stored": "", "branch": "",
         "prompt_tokens": UNKNOWN, "completion_tokens": UNKNOWN},
        {"name": "not sent", "document": "44" * 16, "lane": "coauthor.revise", "provider": "none", "decision": "none",
         "outcome": "failed:refusedByPolicy", "prompt": "", "answer": "", "stored": "", "branch": "", "prompt_tokens": UNKNOWN,
         "completion_tokens": UNKNOWN},
        {"name": "tool transcript", "document": "55" * 16, "lane": "research.cite", "provider": "model:local/smollm2", "decision": "allow",
         "outcome": "suggested", "prompt": tools.hex(), "answer": "Née, café: ünïcode.", "stored": "Née, café: ünïcode.", "branch": "66" * 16,
         "prompt_tokens": 0, "completion_tokens": 1},
    ]
    for case in valid:
        case["encoded"] = encode(case).hex()
    good = bytes.fromhex(valid[0]["encoded"])
    invalid = [
        {"name": "trailing byte", "encoded": (good + b"\x00").hex(), "reason": "bytes after its end"},
        {"name": "truncated", "encoded": good[:-1].hex(), "reason": "ends early"},
        {"name": "version 2", "encoded": (b"AIX\x02" + good[4:]).hex(), "reason": "does not start with AIX version 1"},
        {"name": "empty lane", "encoded": (MAGIC + b"\x11" * 16 + (0).to_bytes(4, "big")).hex(), "reason": "a name that is not 1 to 256 bytes"},
        {"name": "branch of 15 bytes", "encoded": encode(dict(valid[0], branch="22" * 15)).hex(), "reason": "a branch that is not 16 bytes"},
        {"name": "answer not UTF-8", "encoded": (MAGIC + b"\x33" * 16 + b"".join(len(v).to_bytes(4, "big") + v for v in
            [b"coauthor.draft", b"model:a/b", b"allow", b"suggested", b"", b"\xff\xfe", b"", b""]) + b"\x00" * 8).hex(),
         "reason": "text that is not UTF-8"},
    ]
    transcripts = [
        {"name": "chat", "parts": [list(p) for p in parse_transcript(chat)], "encoded": chat.hex()},
        {"name": "tools", "parts": [list(p) for p in parse_transcript(tools)], "encoded": tools.hex()},
    ]
    bad_transcripts = [
        {"name": "no part", "encoded": b"chat-v1".hex()},
        {"name": "other version", "encoded": b"chat-v2\x1euser\x1fx".hex()},
        {"name": "no unit separator", "encoded": b"chat-v1\x1euser x".hex()},
        {"name": "unknown kind", "encoded": b"chat-v1\x1erobot\x1fx".hex()},
        {"name": "redaction crossed a boundary", "encoded": b"chat-v1\x1euser\x1fa\x1fb".hex()},
    ]
    return {"records": valid, "invalid_records": invalid, "transcripts": transcripts, "invalid_transcripts": bad_transcripts}


def check(vectors):
    failures = 0
    for case in vectors["records"]:
        data = bytes.fromhex(case["encoded"])
        parsed = parse(data)
        expected = {key: case[key] for key in parsed}
        if parsed != expected or encode(case) != data:
            print("record %s: does not round-trip" % case["name"])
            failures += 1
    for case in vectors["invalid_records"]:
        try:
            parse(bytes.fromhex(case["encoded"]))
            print("invalid record %s: accepted" % case["name"])
            failures += 1
        except (Damaged, UnicodeDecodeError):
            pass
    for case in vectors["transcripts"]:
        if transcript(case["parts"]) != bytes.fromhex(case["encoded"]) or [list(p) for p in parse_transcript(bytes.fromhex(case["encoded"]))] != case["parts"]:
            print("transcript %s: does not round-trip" % case["name"])
            failures += 1
    for case in vectors["invalid_transcripts"]:
        try:
            parse_transcript(bytes.fromhex(case["encoded"]))
            print("invalid transcript %s: accepted" % case["name"])
            failures += 1
        except (Damaged, UnicodeDecodeError):
            pass
    return failures


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        with open(VECTORS, "w") as out:
            json.dump(cases(), out, indent=1, sort_keys=True, ensure_ascii=False)
            out.write("\n")
    elif sys.argv[1:] == ["--check"]:
        with open(VECTORS) as source:
            vectors = json.load(source)
        if vectors != json.loads(json.dumps(cases(), ensure_ascii=False)):
            print("ai-interaction.json differs from what this reader writes")
            sys.exit(1)
        failures = check(vectors)
        print("ai_interaction: %s" % ("ok" if failures == 0 else "%d failures" % failures))
        sys.exit(1 if failures else 0)
    else:
        print(__doc__)
        sys.exit(64)
