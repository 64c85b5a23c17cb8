"""Checks deploy/ without Docker (this machine has no engine): that compose.yaml, the Dockerfile and
the nginx template agree with each other and with the binary they run.

Usage: check-deploy.py TINYMCP_BINARY

- `docker compose config -q` when a Compose that can run here exists; else compose.yaml parsed as
  YAML (PyYAML; skipped with a line when missing) and checked: services r1..r3 and nginx, each
  replica's --node-id its own name, one state key file for all, --trusted-proxy nginx's fixed
  address, --drain-secs under stop_grace_period, every flag one `tinymcp --help` lists; nginx's
  TINYMCP_* variables exactly the template's placeholders.
- the Dockerfile: a build stage, then FROM scratch with the one binary, a numeric non-root USER,
  a HEALTHCHECK that is `tinymcp health`, `--http 0.0.0.0:8080`, and a token file in CMD.
- docs/deploy.md links deploy/nginx.conf.template and holds no copy of it (the configuration
  lives once, in deploy/).
Prints one line per problem and `check-deploy: N problems`; exits 1 when there are any.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
problems: list[str] = []


def problem(text: str) -> None:
    problems.append(text)
    print(f"check-deploy: {text}")


def seconds(text: str) -> float:
    """`25s`, `1m30s`, `20` as seconds (Compose durations)."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    if re.fullmatch(r"\d+", str(text)):
        return float(text)
    total = 0.0
    for number, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", str(text)):
        total += float(number) * units[unit]
    return total


def check_compose(binary: str) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(["docker", "compose", *args], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None

    version = run("version")
    if version is None or version.returncode != 0:
        print("check-deploy: no `docker compose` here: compose.yaml checked by this script alone")
    else:
        done = run("-f", str(DEPLOY / "compose.yaml"), "config", "-q")
        if done is not None and done.returncode == 0:
            print("check-deploy: docker compose config: compose.yaml is valid")
        else:
            problem(f"docker compose config: {done.stderr.strip()[:300] if done else 'timed out'}")
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        print("check-deploy: skipped the compose.yaml checks: PyYAML is missing (pip install pyyaml)")
        return
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose.get("services", {})
    if sorted(services) != ["nginx", "r1", "r2", "r3"]:
        problem(f"compose.yaml: services are {sorted(services)}, expected nginx, r1, r2, r3")
        return
    help_text = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    nginx = services["nginx"]
    nginx_ip = (nginx.get("networks", {}).get("mcp") or {}).get("ipv4_address")
    secrets = set(compose.get("secrets", {}))
    keys = set()
    for name in ("r1", "r2", "r3"):
        service = services[name]
        command = [str(a) for a in service.get("command", [])]
        flags = {a: command[i + 1] if i + 1 < len(command) else "" for i, a in enumerate(command) if a.startswith("--")}
        for flag in flags:
            if re.search(rf"^\s+{re.escape(flag)}\b", help_text, re.M):
                continue
            problem(f"compose.yaml: {name} runs with {flag}, which `tinymcp --help` does not list")
        if flags.get("--node-id") != name:
            problem(f"compose.yaml: {name} must run with --node-id {name} (nginx routes on it)")
        keys.add(flags.get("--state-key-file"))
        if flags.get("--trusted-proxy") != nginx_ip:
            problem(f"compose.yaml: {name} trusts {flags.get('--trusted-proxy')}, nginx is at {nginx_ip}")
        drain = seconds(flags.get("--drain-secs", "0"))
        if drain and seconds(service.get("stop_grace_period", "10s")) <= drain:
            problem(f"compose.yaml: {name}'s stop_grace_period must exceed --drain-secs {drain:g}")
        for secret in service.get("secrets", []):
            if secret not in secrets:
                problem(f"compose.yaml: {name} uses the undeclared secret {secret}")
        for path in (flags.get("--token-file"), flags.get("--state-key-file")):
            if not path or Path(path).name not in service.get("secrets", []):
                problem(f"compose.yaml: {name} reads {path}, which is none of its secrets")
    if len(keys) != 1:
        problem(f"compose.yaml: the replicas must share one --state-key-file, got {sorted(map(str, keys))}")
    template = (DEPLOY / "nginx.conf.template").read_text()
    wanted = set(re.findall(r"\$\{(TINYMCP_[A-Z0-9_]+)\}", template))
    given = {k for k in nginx.get("environment", {}) if k.startswith("TINYMCP_")}
    if wanted != given:
        problem(f"compose.yaml: nginx sets {sorted(given)}, the template needs {sorted(wanted)}")
    if not any("nginx.conf.template:/etc/nginx/templates/" in v for v in nginx.get("volumes", [])):
        problem("compose.yaml: nginx does not mount nginx.conf.template under /etc/nginx/templates/")


def check_dockerfile() -> None:
    lines = []
    for raw in (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ").splitlines():
        if raw.strip() and not raw.lstrip().startswith("#"):
            word, _, rest = raw.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
    froms = [rest for word, rest in lines if word == "FROM"]
    if len(froms) < 2 or froms[-1] != "scratch":
        problem(f"Dockerfile: expected a build stage and then FROM scratch, got FROM {froms}")
    final = lines[max(i for i, (word, _) in enumerate(lines) if word == "FROM") :]
    copies = [rest for word, rest in final if word == "COPY"]
    if len(copies) != 1 or not copies[0].endswith(" /tinymcp"):
        problem(f"Dockerfile: the final image must hold the one binary /tinymcp, got COPY {copies}")
    users = [rest for word, rest in final if word == "USER"]
    if not users or not re.fullmatch(r"[1-9]\d*(:\d+)?", users[-1]):
        problem(f"Dockerfile: USER must be numeric and not root, got {users}")

    def argv(word: str) -> list[str]:
        found = [rest for w, rest in final if w == word]
        if not found:
            return []
        text = found[-1]
        text = text[text.index("CMD") + 3 :].strip() if word == "HEALTHCHECK" and "CMD" in text else text
        return json.loads(text) if text.startswith("[") else shlex.split(text)

    if argv("HEALTHCHECK")[:2] != ["/tinymcp", "health"]:
        problem(f"Dockerfile: HEALTHCHECK must run /tinymcp health, got {argv('HEALTHCHECK')}")
    if argv("ENTRYPOINT") != ["/tinymcp", "--http", "0.0.0.0:8080"]:
        problem(f"Dockerfile: ENTRYPOINT must be /tinymcp --http 0.0.0.0:8080, got {argv('ENTRYPOINT')}")
    if "--token-file" not in argv("CMD"):
        problem(f"Dockerfile: CMD must require a token file, got {argv('CMD')}")


def check_docs() -> None:
    """The nginx configuration lives once, in deploy/: docs/deploy.md links it and copies none of it."""
    doc = (ROOT / "docs" / "deploy.md").read_text()
    if "../deploy/nginx.conf.template" not in doc:
        problem("docs/deploy.md: no link to ../deploy/nginx.conf.template")
    if "```nginx" in doc or "upstream tinymcp_any" in doc:
        problem("docs/deploy.md: a copy of the nginx configuration (link deploy/nginx.conf.template instead)")


def main() -> int:
    check_compose(sys.argv[1])
    check_dockerfile()
    check_docs()
    print(f"check-deploy: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
