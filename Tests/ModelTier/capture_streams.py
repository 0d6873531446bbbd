#!/usr/bin/env python3
"""Captures, byte for byte, what the real llama-cpp-python server (llama.cpp's OpenAI-compatible
server from .build/venv, serving SmolLM2-135M-Instruct; started by scripts/model-server) sends back
for the requests the Assistant makes, so the replay tests (Tests/AssistantTests/RecordedStreams.swift)
feed the provider the server's own bytes rather than streams written from its documentation.

    MODEL_SERVER_INTERRUPT=True scripts/model-server run .build/venv/bin/python Tests/ModelTier/capture_streams.py [OUTDIR]

(MODEL_SERVER_INTERRUPT=True keeps the server's default of cutting a stream short when another
request arrives, which "stream-interrupted" records.)

OUTDIR defaults to Tests/AssistantTests/Recorded/llama-cpp-python. Each capture is NAME.http: the
raw HTTP/1.1 response (status line, header fields, chunked body as sent) read from a plain socket,
with nothing decoded or re-encoded. The requests are plain ones (temperature 0, a fixed seed); the
response's Date field is the only thing that changes between captures of the same server version.
Standard library only; every connection and read is bounded in time."""
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

base = urllib.parse.urlparse(os.environ["MODEL_SERVER_URL"])
model = os.environ.get("MODEL_SERVER_MODEL", "smollm2-135m-instruct")
out = sys.argv[1] if len(sys.argv) > 1 else "Tests/AssistantTests/Recorded/llama-cpp-python"

SYSTEM = "You are a careful editor. Answer with the text only."
USER = "Continue in one sentence: the ferry came in late and the gulls followed it."


def chat(max_tokens, user=USER, **extra):
    body = {"model": model, "stream": True, "max_tokens": max_tokens, "temperature": 0, "seed": 7,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]}
    body.update(extra)
    return json.dumps(body).encode()


def exchange(path, body, timeout=300):
    """POSTs body and returns every byte the server sends until it closes the connection."""
    request = (f"POST {base.path.rstrip('/')}{path} HTTP/1.1\r\nHost: {base.hostname}:{base.port}\r\n"
               f"Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {len(body)}\r\n"
               "Connection: close\r\n\r\n").encode() + body
    received = bytearray()
    deadline = time.monotonic() + timeout
    with socket.create_connection((base.hostname, base.port), timeout=10) as connection:
        connection.sendall(request)
        while time.monotonic() < deadline:
            connection.settimeout(max(0.1, deadline - time.monotonic()))
            piece = connection.recv(65536)
            if not piece:
                return bytes(received)
            received += piece
            if len(received) > 16 * 1024 * 1024:
                raise SystemExit("error: more than 16 MiB from the server")
    raise SystemExit(f"error: {path} did not finish within {timeout}s")


captures = {
    # A short answer that ends by itself or at the bound.
    "stream-chat": ("/chat/completions", chat(48)),
    # The token bound cuts it: finish_reason "length".
    "stream-length": ("/chat/completions", chat(3)),
    # The client asks for usage in the stream (OpenAI's stream_options); what this server does with it.
    "stream-include-usage": ("/chat/completions", chat(8, stream_options={"include_usage": True})),
    # A body that is not JSON: the server's error status and body.
    "error-malformed-body": ("/chat/completions", b"{\"model\": \"" + model.encode() + b"\", \"messages\": ["),
    # A prompt longer than the server's context (n_ctx 2048 in scripts/model-server).
    "error-context-exceeded": ("/chat/completions", json.dumps({
        "model": model, "stream": True, "max_tokens": 8,
        "messages": [{"role": "user", "content": "harbour " * 4000}]}).encode()),
    # Another request arrives while this one streams (the server's interrupt_requests default).
    "stream-interrupted": (None, None),
}

def interrupted():
    """A streamed answer while a second request arrives: what the first client gets."""
    result = {}
    long = chat(200, user="Write a long story about a harbour town, with many details.")
    first = threading.Thread(target=lambda: result.update(raw=exchange("/chat/completions", long)))
    first.start()
    time.sleep(1.0)
    exchange("/chat/completions", chat(2))
    first.join(timeout=300)
    return result["raw"]


os.makedirs(out, exist_ok=True)
for name, (path, body) in captures.items():
    started = time.monotonic()
    raw = interrupted() if path is None else exchange(path, body)
    with open(os.path.join(out, name + ".http"), "wb") as file:
        file.write(raw)
    status = raw.split(b"\r\n", 1)[0].decode(errors="replace")
    print(f"{name}: {status}, {len(raw)} bytes in {time.monotonic() - started:.2f} s")
