"""A small code-execution sandbox with SandboxFusion's API, standard library
only: GET /v1/ping answers "pong"; POST /run_code runs Python code and answers
with SandboxFusion's RunCodeResponse shape. It binds to 127.0.0.1 only.

Usage: python3 sandbox.py --port PORT
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def run_python(code, stdin, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "main.py")
        with open(path, "w") as f:
            f.write(code)
        start = time.monotonic()
        try:
            p = subprocess.run([sys.executable, path], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired as e:
            return {"status": "TimeLimitExceeded", "execution_time": timeout, "return_code": None,
                    "stdout": e.stdout or "", "stderr": e.stderr or ""}
        return {"status": "Finished", "execution_time": time.monotonic() - start, "return_code": p.returncode,
                "stdout": p.stdout, "stderr": p.stderr}


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, doc):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/v1/ping":
            self.answer(200, "pong")
        else:
            self.answer(404, {"detail": "Not Found"})

    def do_POST(self):
        if self.path != "/run_code":
            self.answer(404, {"detail": "Not Found"})
            return
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            code, language = req["code"], req["language"]
        except (ValueError, KeyError) as e:
            self.answer(422, {"detail": f"bad request: {e}"})
            return
        if language != "python":
            self.answer(200, {"status": "SandboxError", "message": f"language {language} is not supported",
                              "compile_result": None, "run_result": None, "executor_pod_name": None, "files": {}})
            return
        run = run_python(code, req.get("stdin") or "", float(req.get("run_timeout", 10)))
        ok = run["status"] == "Finished" and run["return_code"] == 0
        self.answer(200, {"status": "Success" if ok else "Failed", "message": "", "compile_result": None,
                          "run_result": run, "executor_pod_name": None, "files": {}})

    def log_message(self, fmt, *args):
        sys.stderr.write("sandbox: " + fmt % args + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8080)
    port = ap.parse_args().port
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"sandbox listening on http://127.0.0.1:{port}", flush=True)
    server.serve_forever()
