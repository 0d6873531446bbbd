#!/usr/bin/env python3
"""The model tier's first check, before any Swift touches the model: a raw streamed chat completion
against the local llama.cpp server that scripts/model-server started (MODEL_SERVER_URL, MODEL_SERVER_MODEL).
It must answer with server-sent events: a role delta, at least two content deltas, a finish reason,
and the closing [DONE]. Standard library only; every read is bounded in time."""
import json
import os
import sys
import time
import urllib.request

url = os.environ["MODEL_SERVER_URL"].rstrip("/") + "/chat/completions"
body = {"model": os.environ.get("MODEL_SERVER_MODEL", "smollm2-135m-instruct"), "stream": True, "max_tokens": 32,
        "messages": [{"role": "system", "content": "You are a concise editor."},
                     {"role": "user", "content": "Summarise in one sentence: the clinic is closed on public holidays."}]}
request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
started = time.monotonic()
first_token = None
contents, roles, finish, done = [], 0, None, False
with urllib.request.urlopen(request, timeout=60) as response:
    assert response.headers.get("Content-Type", "").startswith("text/event-stream"), response.headers.get("Content-Type")
    for raw in response:
        line = raw.decode().strip()
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        if data == "[DONE]":
            done = True
            break
        chunk = json.loads(data)
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            roles += 1 if delta.get("role") == "assistant" else 0
            if delta.get("content"):
                first_token = first_token or time.monotonic() - started
                contents.append(delta["content"])
            finish = choice.get("finish_reason") or finish
failures = [name for name, ok in [("a role delta", roles >= 1), ("two content deltas", len(contents) >= 2),
                                  ("a finish reason", finish in ("stop", "length")), ("[DONE]", done)] if not ok]
text = "".join(contents)
print(f"streamed {len(contents)} deltas, first after {first_token or 0:.2f}s, whole answer {time.monotonic() - started:.2f}s: {text[:80]!r}")
for failure in failures:
    print(f"FAIL: the stream had no {failure}")
print(f"{1 - bool(failures)} passed, {int(bool(failures))} failed")
sys.exit(1 if failures else 0)
