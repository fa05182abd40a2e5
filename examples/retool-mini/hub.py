"""A stand-in for the Hugging Face hub, standard library only, bound to
127.0.0.1. It serves the repositories under a folder (ROOT/datasets/ORG/NAME,
ROOT/models/ORG/NAME) the way the hub's API does, at one branch, main:

  GET /api/{datasets|models}/ORG/NAME/revision/REV[?blobs=true]
      {"id", "sha"} for REV = main or its commit; with blobs=true also
      "siblings": [{"rfilename", "size", "blobId"}] (git blob ids)
  GET /datasets/ORG/NAME/resolve/COMMIT/FILE, /ORG/NAME/resolve/COMMIT/FILE
      the file, only at the full commit (never at a branch)

A repository's commit is computed from its files, so editing one moves main
to a new commit, as a push to the hub would. Only the current commit is
served: a real hub keeps the history.

Usage: python3 hub.py --root FOLDER --port PORT
"""

import argparse
import hashlib
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def snapshot(folder):
    """The repository's files (relative name -> bytes) and its commit."""
    files = {}
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder).replace(os.sep, "/")] = f.read()
    commit = hashlib.sha1()
    for name in sorted(files):
        commit.update(b"%s %s\n" % (name.encode(), blob_id(files[name]).encode()))
    return files, commit.hexdigest()


class Handler(BaseHTTPRequestHandler):
    root = "."

    def answer(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if status != 200:
            self.send_header("X-Error-Message", body.decode(errors="replace"))
        self.end_headers()
        self.wfile.write(body)

    def repo(self, kind, org, name):
        folder = os.path.join(self.root, kind, org, name)
        if "/" in org + name or org.startswith(".") or name.startswith(".") or not os.path.isdir(folder):
            return None, None
        return snapshot(folder)

    def do_GET(self):
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/")[1:]]
        query = urlsplit(self.path).query
        # /api/{kind}/ORG/NAME/revision/REV
        if len(parts) == 6 and parts[0] == "api" and parts[1] in ("datasets", "models") and parts[4] == "revision":
            files, commit = self.repo(parts[1], parts[2], parts[3])
            if files is None:
                return self.answer(404, b"Repository not found")
            if parts[5] not in ("main", commit):
                return self.answer(404, b"Revision Not Found")
            doc = {"id": parts[2] + "/" + parts[3], "sha": commit}
            if "blobs=true" in query.split("&"):
                doc["siblings"] = [{"rfilename": n, "size": len(d), "blobId": blob_id(d)} for n, d in sorted(files.items())]
            return self.answer(200, json.dumps(doc).encode())
        # /datasets/ORG/NAME/resolve/COMMIT/FILE or /ORG/NAME/resolve/COMMIT/FILE
        kind = "models"
        if parts and parts[0] == "datasets":
            kind, parts = "datasets", parts[1:]
        if len(parts) >= 5 and parts[2] == "resolve":
            files, commit = self.repo(kind, parts[0], parts[1])
            if files is None:
                return self.answer(404, b"Repository not found")
            if parts[3] != commit:
                return self.answer(404, b"Revision Not Found (this stand-in serves only the current commit)")
            data = files.get("/".join(parts[4:]))
            if data is None:
                return self.answer(404, b"Entry not found")
            return self.answer(200, data, "application/octet-stream")
        self.answer(404, b"Not found")

    def log_message(self, fmt, *args):
        print("hub: " + fmt % args, flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--port", type=int, required=True)
    a = p.parse_args()
    Handler.root = a.root
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    print(f"hub: serving {a.root} on http://127.0.0.1:{a.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
