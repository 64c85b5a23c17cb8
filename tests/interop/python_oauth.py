"""OAuth end to end: the Python SDK's client_credentials client, a real OpenID provider
(oidc-provider, tests/interop/oidc_issuer.mjs) and tinymcp built with the `oauth` feature.
The client finds the authorization server through tinymcp's 401 and protected resource
metadata, gets a JWT for tinymcp's URL, and calls a tool; a request without it gets 401.

Usage: python python_oauth.py --node NODE --issuer-script tests/interop/oidc_issuer.mjs -- TINYMCP
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import threading

import anyio
import httpx2
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

CLIENT_ID = "tinymcp-interop"
CLIENT_SECRET = "interop-secret-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Memory:
    """Token storage in memory (the SDK's TokenStorage protocol)."""

    def __init__(self) -> None:
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


def first_line(process: subprocess.Popen, stream, marker: str) -> str:
    for line in stream:
        if marker in line:
            return line.strip()
    raise SystemExit(f"{process.args[0]} ended before saying {marker!r}")


async def run(url: str, issuer: str) -> None:
    async with httpx2.AsyncClient() as plain:
        refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                   headers={"Accept": "application/json, text/event-stream"})
        challenge = refused.headers.get("www-authenticate", "")
        assert refused.status_code == 401 and "resource_metadata=" in challenge, (refused.status_code, challenge)
    auth = ClientCredentialsOAuthProvider(server_url=url, storage=Memory(), client_id=CLIENT_ID,
                                          client_secret=CLIENT_SECRET, scope="mcp:use", issuer=issuer)
    async with httpx2.AsyncClient(auth=auth) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                result = await session.call_tool("echo", {"message": "through OAuth"})
                text = "".join(getattr(block, "text", "") for block in result.content)
                assert "through OAuth" in text, text
    print("ok: client_credentials token from oidc-provider accepted, echo answered")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--node", required=True)
    parser.add_argument("--issuer-script", required=True)
    parser.add_argument("binary", nargs="+")
    args = parser.parse_args()
    issuer_port, mcp_port = free_port(), free_port()
    provider = subprocess.Popen([args.node, args.issuer_script, str(issuer_port), CLIENT_ID, CLIENT_SECRET],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    server = None
    try:
        issuer = first_line(provider, provider.stdout, "issuer ").split(" ", 1)[1]
        url = f"http://127.0.0.1:{mcp_port}/mcp"
        server = subprocess.Popen([*args.binary, "--everything", "--http", f"127.0.0.1:{mcp_port}",
                                   "--oauth-issuer", issuer, "--public-url", url, "--oauth-scope", "mcp:use"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
        first_line(server, server.stderr, "listening on")
        # Its log goes on being read, so a chatty server never blocks on a full pipe.
        threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
        anyio.run(run, url, issuer)
    finally:
        for process in (server, provider):
            if process is not None:
                process.kill()
                process.wait()


if __name__ == "__main__":
    sys.exit(main())
