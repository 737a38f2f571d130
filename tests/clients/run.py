#!/usr/bin/env python3
"""What third-party client authors do with openapi/openapi.json, run in CI (issue 11):

1. lint it with Redocly's recommended rules and Spectral's `oas` rules: no errors, and no
   warnings but the ones docs/client-guide.md justifies (ALLOWED_WARNINGS); and check every example in it
   against its own schema (JSON Schema 2020-12, as OpenAPI 3.1 uses);
2. generate a Python client with openapi-python-client (no schema or response may be dropped)
   and play a whole 2-player match with it against a fresh server (play_match.py);
3. generate TypeScript types with openapi-typescript and compile play.ts against them under
   `tsc --strict`, then run the compiled script: it plays a match through `fetch`.

    python3 tests/clients/run.py target/debug/kings-corner

Needs the pinned tools: `npm ci` in this directory and `pip install -r requirements.txt`.
Exits non-zero, saying why, when anything fails.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "support"))
import local_server  # noqa: E402

DESCRIPTION = HERE.parent.parent / "openapi" / "openapi.json"
BIN = HERE / "node_modules" / ".bin"

# Each is explained in docs/client-guide.md ("The API description"): the scopes an operation needs
# are listed in its bearer requirement, as OpenAPI 3.1 allows for any scheme (Spectral checks
# them as OAuth scopes), and the health checks, the rule catalog and the rule book take no
# input and need no token, so they have no 4XX answer to declare.
ALLOWED_WARNINGS = {
    "spectral": {"oas3-operation-security-defined"},
    "redocly": {"operation-4xx-response"},
}


def run(*command, **options):
    """Exit code, and stdout and stderr together."""
    code, stdout, stderr = run_apart(*command, **options)
    return code, stdout + stderr


def run_apart(*command, **options):
    result = subprocess.run(command, capture_output=True, text=True, **options)
    return result.returncode, result.stdout, result.stderr


def fail(message):
    raise SystemExit(f"FAILED: {message}")


def lint():
    code, output, _ = run_apart(str(BIN / "redocly"), "lint", str(DESCRIPTION), "--format=json")
    problems = json.loads(output)["problems"]
    redocly = [(p["severity"], p["ruleId"]) for p in problems]
    code, output, _ = run_apart(
        str(BIN / "spectral"), "lint", str(DESCRIPTION), "--ruleset", str(HERE / ".spectral.yaml"),
        "--format=json", "--quiet",
    )
    severities = {0: "error", 1: "warn", 2: "info", 3: "hint"}
    spectral = [(severities[p["severity"]], p["code"]) for p in json.loads(output or "[]")]
    for tool, found in (("redocly", redocly), ("spectral", spectral)):
        counts = {}
        for severity, rule in found:
            counts[(severity, rule)] = counts.get((severity, rule), 0) + 1
        print(f"{tool}: " + (", ".join(f"{n} {s} {r}" for (s, r), n in sorted(counts.items())) or "clean"))
        unexpected = [(s, r) for s, r in found if s == "error" or r not in ALLOWED_WARNINGS[tool]]
        if unexpected:
            fail(f"{tool} finds {sorted(set(unexpected))}")


def examples():
    """Every example of a component schema or of a request or response body fits its schema."""
    from jsonschema import Draft202012Validator

    api = json.loads(DESCRIPTION.read_text())
    cases = []
    for name, schema in api["components"]["schemas"].items():
        for example in ([schema["example"]] if "example" in schema else []) + schema.get("examples", []):
            cases.append((f"components.schemas.{name}", schema, example))
    for path, item in api["paths"].items():
        for method, operation in item.items():
            bodies = [("request", operation.get("requestBody", {}))]
            bodies += [(status, answer) for status, answer in operation.get("responses", {}).items()]
            for which, body in bodies:
                for media in body.get("content", {}).values():
                    if "example" in media:
                        cases.append((f"{method} {path} {which}", media["schema"], media["example"]))
    wrong = []
    for where, schema, example in cases:
        root = dict(schema, components=api["components"])
        errors = list(Draft202012Validator(root).iter_errors(example))
        if errors:
            wrong.append(f"{where}: {errors[0].message}")
    print(f"examples: {len(cases)} checked against their schemas")
    if wrong:
        fail("examples that do not fit their schemas:\n" + "\n".join(wrong))


def python_client(work, server):
    code, output = run(
        sys.executable, "-m", "openapi_python_client", "generate", "--path", str(DESCRIPTION),
        "--config", str(HERE / "generator.yaml"), "--meta", "none",
        "--output-path", str(work / "kings_corner_client"),
    )
    dropped = re.findall(r"(Unable to .*|Cannot .*|.*will be omitted.*)", output)
    if code != 0 or dropped:
        fail(f"openapi-python-client lost parts of the description:\n{output}")
    code, output = run(
        sys.executable, str(HERE / "play_match.py"), server,
        env=dict(os.environ, PYTHONPATH=str(work)),
    )
    print(output.strip())
    if code != 0:
        fail("the generated Python client could not play a match")


def typescript_client(work, server):
    code, output = run(str(BIN / "openapi-typescript"), str(DESCRIPTION), "-o", str(work / "api.d.ts"))
    if code != 0:
        fail(f"openapi-typescript:\n{output}")
    shutil.copy(HERE / "play.ts", work / "play.ts")
    code, output = run(
        str(BIN / "tsc"), "--strict", "--target", "es2022", "--module", "nodenext",
        "--moduleResolution", "nodenext", "--types", "node", "--outDir", str(work / "js"),
        str(work / "play.ts"),
        cwd=HERE,
    )
    if code != 0:
        fail(f"play.ts does not compile under tsc --strict:\n{output}")
    print("play.ts compiles under tsc --strict against the generated types")
    code, output = run("node", str(work / "js" / "play.js"), server)
    print(output.strip())
    if code != 0:
        fail("the compiled TypeScript client could not play a match")


def main():
    binary = sys.argv[1]
    lint()
    examples()
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        process, server = local_server.start(binary, work / "clients.db")
        try:
            python_client(work, server)
            typescript_client(work, server)
        finally:
            process.terminate()
            process.wait()


if __name__ == "__main__":
    main()
