"""A client of SandboxFusion's /run_code API, standard library only."""

import json
import urllib.request

__version__ = "0.1.0"


def run_code(url, code, language="python", timeout=10):
    """POST code to a sandbox's /run_code and return its JSON answer."""
    body = json.dumps({
        "code": code, "language": language, "compile_timeout": timeout,
        "run_timeout": timeout, "memory_limit_MB": 1024, "stdin": "",
    }).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout + 5) as resp:
        return json.load(resp)
