"""Checks server.json, the MCP registry's description of tinymcp, and the one release.sh writes
into dist/ (with the bundle's real SHA-256): valid against the registry's published schema
(2025-12-11, from scripts/deps.sh), its name the README's `mcp-name:` line, its versions and
binary crate's name (crates/tinymcp-cli) Cargo.toml's. Run with a Python that has jsonschema (the interop venv).
Usage: check-server-json.py SCHEMA FILE...
"""
import json
import re
import sys
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parent.parent
schema = json.loads(Path(sys.argv[1]).read_text())
# The version is the workspace's (the top Cargo.toml); the cargo package installs the binary,
# whose crate is crates/tinymcp-cli.
version = re.search(r'^version = "(.*)"', (ROOT / "Cargo.toml").read_text(), re.M).group(1)
crate = re.search(r'^name = "(.*)"', (ROOT / "crates/tinymcp-cli/Cargo.toml").read_text(), re.M).group(1)
readme_name = re.search(r"mcp-name: (\S+)", (ROOT / "README.md").read_text())
problems = []
for file in sys.argv[2:]:
    server = json.loads(Path(file).read_text())
    for error in jsonschema.Draft7Validator(schema).iter_errors(server):
        problems.append(f"{file}: {'/'.join(map(str, error.path))}: {error.message}")
    if not readme_name or server.get("name") != readme_name.group(1):
        problems.append(f"{file}: name {server.get('name')!r} is not README's mcp-name line")
    if server.get("version") != version:
        problems.append(f"{file}: version {server.get('version')!r}, Cargo.toml says {version!r}")
    for package in server.get("packages", []):
        if package.get("registryType") == "cargo" and package.get("identifier") != crate:
            problems.append(f"{file}: the cargo package is {package.get('identifier')!r}, the crate {crate!r}")
        if package.get("version", version) != version:
            problems.append(f"{file}: a {package.get('registryType')} package has version {package.get('version')!r}")
for problem in problems:
    print(problem)
print(f"check-server-json: {len(problems)} problems in {len(sys.argv) - 2} files")
sys.exit(1 if problems else 0)
