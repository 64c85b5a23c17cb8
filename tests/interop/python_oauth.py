"""OAuth end to end: the Python SDK's client_credentials client, a real OpenID provider
(oidc-provider, tests/interop/oidc_issuer.mjs) and tinymcp built with the `oauth` feature.
The client finds the authorization server through tinymcp's 401 and protected resource
metadata, gets a JWT for tinymcp's URL, and calls a tool; a request without it gets 401.
Then real tokens from the provider that must be refused: for another audience, expired,
with a changed signature or an unknown key id, and an opaque token revoked before use
(introspection); a tool needing a scope the token lacks is hidden and answers 403
`insufficient_scope` naming the scope, and a token with it (step-up) calls the tool; the
same for a resource needing a scope (hidden from resources/list, 403 on read, then read).

Usage: python python_oauth.py --node NODE --issuer-script tests/interop/oidc_issuer.mjs -- TINYMCP
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

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


ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "refusals", "version": "0"}}}


async def token(http, issuer: str, client_id: str, scope: str, resource: str) -> str:
    answer = await http.post(f"{issuer}/token", auth=(client_id, CLIENT_SECRET),
                             data={"grant_type": "client_credentials", "scope": scope, "resource": resource})
    assert answer.status_code == 200, (answer.status_code, answer.text)
    return answer.json()["access_token"]


async def post(http, url: str, bearer: str, body: dict, session: str | None = None):
    headers = {**ACCEPT, "Authorization": f"Bearer {bearer}"}
    if session:
        headers["Mcp-Session-Id"] = session
    return await http.post(url, json=body, headers=headers)


def challenge(answer) -> str:
    return answer.headers.get("www-authenticate", "")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


async def refusals(url: str, issuer: str) -> None:
    async with httpx2.AsyncClient() as http:
        async def refused(what: str, bearer: str, status: int, needle: str) -> None:
            answer = await post(http, url, bearer, INITIALIZE)
            assert answer.status_code == status and needle in challenge(answer), \
                (what, answer.status_code, challenge(answer), answer.text)
            print(f"ok: {what}: {status} {needle}")

        good = await token(http, issuer, CLIENT_ID, "mcp:use", url)
        assert (await post(http, url, good, INITIALIZE)).status_code == 200
        other = await token(http, issuer, CLIENT_ID, "mcp:use", url.replace("/mcp", "/other"))
        await refused("a token for another audience", other, 401, "another audience")
        short = await token(http, issuer, f"{CLIENT_ID}-short", "mcp:use", url)
        time.sleep(2.1)
        await refused("an expired token", short, 401, "expired")
        head, payload, signature = good.split(".")
        flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
        await refused("a token with a changed signature", f"{head}.{payload}.{flipped}", 401, "does not verify")
        header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
        header["kid"] = "not-a-key-of-the-issuer"
        unknown = f"{b64(json.dumps(header).encode())}.{payload}.{signature}"
        await refused("a token naming an unknown key", unknown, 401, "key the issuer does not list")
        none = f"{b64(json.dumps({'alg': 'none'}).encode())}.{payload}."
        await refused("an unsigned token (alg none)", none, 401, "is not accepted")
        no_scope = await token(http, issuer, CLIENT_ID, "mcp:admin", url)
        await refused("a token without the scope every request needs", no_scope, 403,
                      'error="insufficient_scope", error_description')

        opaque = await token(http, issuer, f"{CLIENT_ID}-opaque", "mcp:use", url)
        assert opaque.count(".") != 2, opaque
        answer = await post(http, url, opaque, INITIALIZE)
        assert answer.status_code == 200, ("an active opaque token", answer.status_code, answer.text)
        print("ok: an opaque token introspected as active: 200")
        revoked = await token(http, issuer, f"{CLIENT_ID}-opaque", "mcp:use", url)
        gone = await http.post(f"{issuer}/token/revocation", auth=(f"{CLIENT_ID}-opaque", CLIENT_SECRET),
                               data={"token": revoked, "token_type_hint": "access_token"})
        assert gone.status_code == 200, (gone.status_code, gone.text)
        await refused("an opaque token revoked before use", revoked, 401, "not active")

        # A tool that needs mcp:admin: hidden from a mcp:use token, 403 when called, then step-up.
        init = await post(http, url, good, INITIALIZE)
        session = init.headers["mcp-session-id"]
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await post(http, url, good, initialized, session)).status_code == 202
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        names = [t["name"] for t in (await post(http, url, good, listing, session)).json()["result"]["tools"]]
        assert "admin_echo" not in names and "echo" in names, names
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "admin_echo", "arguments": {}}}
        answer = await post(http, url, good, call, session)
        assert answer.status_code == 403, (answer.status_code, answer.text)
        assert 'error="insufficient_scope"' in challenge(answer) and 'scope="mcp:use mcp:admin"' in challenge(answer), \
            challenge(answer)
        print("ok: a tool needing mcp:admin: hidden, then 403 insufficient_scope scope=\"mcp:use mcp:admin\"")
        stepped = await token(http, issuer, CLIENT_ID, "mcp:use mcp:admin", url)
        names = [t["name"] for t in (await post(http, url, stepped, listing, session)).json()["result"]["tools"]]
        assert "admin_echo" in names, names
        answer = await post(http, url, stepped, call, session)
        assert answer.status_code == 200 and "admin" in answer.text, (answer.status_code, answer.text)
        print("ok: step-up: a token with mcp:admin lists and calls the tool")

        # A resource that needs mcp:admin: left out of resources/list, 403 when read, then step-up.
        resources = {"jsonrpc": "2.0", "id": 4, "method": "resources/list"}
        uris = [r["uri"] for r in (await post(http, url, good, resources, session)).json()["result"]["resources"]]
        assert "note://plans" not in uris, uris
        read = {"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "note://plans"}}
        answer = await post(http, url, good, read, session)
        assert answer.status_code == 403, (answer.status_code, answer.text)
        assert 'error="insufficient_scope"' in challenge(answer) and 'scope="mcp:use mcp:admin"' in challenge(answer), \
            challenge(answer)
        uris = [r["uri"] for r in (await post(http, url, stepped, resources, session)).json()["result"]["resources"]]
        assert "note://plans" in uris, uris
        answer = await post(http, url, stepped, read, session)
        assert answer.status_code == 200 and "the plans" in answer.text, (answer.status_code, answer.text)
        print("ok: a resource needing mcp:admin: hidden, 403 insufficient_scope, then read with a stepped-up token")


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
    scratch = tempfile.TemporaryDirectory()
    try:
        issuer = first_line(provider, provider.stdout, "issuer ").split(" ", 1)[1]
        url = f"http://127.0.0.1:{mcp_port}/mcp"
        manifest = os.path.join(scratch.name, "tools.json")
        with open(manifest, "w") as f:
            json.dump({"tools": [{"name": "admin_echo", "command": ["echo", "admin"], "scopes": ["mcp:admin"]}],
                       "resources": [{"uri": "note://plans", "text": "the plans", "scopes": ["mcp:admin"]}]}, f)
        env = {**os.environ, "TINYMCP_OAUTH_CLIENT_SECRET": CLIENT_SECRET}
        server = subprocess.Popen([*args.binary, "--everything", "--manifest", manifest,
                                   "--http", f"127.0.0.1:{mcp_port}",
                                   "--oauth-issuer", issuer, "--public-url", url, "--oauth-scope", "mcp:use",
                                   "--oauth-introspection", f"{issuer}/token/introspection",
                                   "--oauth-client-id", CLIENT_ID, "--oauth-leeway-ms", "1"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, env=env)
        first_line(server, server.stderr, "listening on")
        # Its log goes on being read, so a chatty server never blocks on a full pipe.
        threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
        anyio.run(run, url, issuer)
        anyio.run(refusals, url, issuer)
    finally:
        scratch.cleanup()
        for process in (server, provider):
            if process is not None:
                process.kill()
                process.wait()


if __name__ == "__main__":
    sys.exit(main())
