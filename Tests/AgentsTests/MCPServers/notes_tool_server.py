#!/usr/bin/env python3
"""A small MCP tool server written with PyPI's `mcp` SDK (its MCPServer), reached over stdio by the
bridge's tests (AgentsTests/MCPToolServerTests). The SDK serves both eras: it answers the 2026-07-28
`server/discover` probe, so the bridge speaks the stateless revision to it. With `--legacy` a filter
in front of the SDK answers the probe "method not found", as a 2025-11-25 server does, and passes
everything else on, so the SDK sees only the initialize handshake and serves that revision.

Tools:
  word_count(text)              the number of words
  add(a, b)                     integer sum
  cite(case, year=None)         a citation string (an optional argument: anyOf string/null in the schema)
  echo(text)                    the text it received, exactly (to see what the funnel let through)
  fail(reason)                  raises, so the SDK answers with a tool result marked isError
"""
import json
import os
import sys
import threading

from mcp.server import MCPServer

server = MCPServer(name="notes-tools", version="1.0")


@server.tool()
def word_count(text: str) -> int:
    """Counts the words in a text."""
    return len(text.split())


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def cite(case: str, year: int | None = None) -> str:
    """Formats a case citation."""
    return f"{case} ({year})" if year is not None else case


@server.tool()
def echo(text: str) -> str:
    """Returns the text exactly as received."""
    return text


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ValueError(reason)


def legacy_only():
    """Puts a pipe in front of the SDK's standard input and answers `server/discover` on it."""
    read_end, write_end = os.pipe()
    source = os.dup(0)
    os.dup2(read_end, 0)
    os.close(read_end)

    def pump():
        with os.fdopen(source, "rb") as lines, os.fdopen(write_end, "wb", buffering=0) as sdk:
            for line in lines:
                message = json.loads(line)
                if message.get("method") == "server/discover":
                    reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}}
                    sys.stdout.buffer.write(json.dumps(reply).encode() + b"\n")
                    sys.stdout.buffer.flush()
                    continue
                sdk.write(line)

    threading.Thread(target=pump, daemon=True).start()


if __name__ == "__main__":
    if "--legacy" in sys.argv:
        legacy_only()
    server.run("stdio")
