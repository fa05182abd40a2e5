"""Build the wheel of the local sandbox_client package with the standard
library only, so the example needs no index, setuptools or wheel package.

The zip entries are sorted and dated 1980-01-01, so the same sources give a
byte-identical wheel. Usage: python3 build_wheel.py SRC_DIR OUT_DIR
"""

import base64
import hashlib
import os
import sys
import zipfile

NAME, VERSION = "sandbox_client", "0.1.0"
DIST = f"{NAME}-{VERSION}"


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main(src, out):
    files = {}
    pkg = os.path.join(src, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                files[f"{NAME}/{name}"] = f.read()
    info = f"{DIST}.dist-info"
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
        "Summary: SandboxFusion /run_code client for the kiln retool-mini example\n"
    ).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: build_wheel.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [record_line(p, d) for p, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"{DIST}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(files):
            zi = zipfile.ZipInfo(p, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, files[p])
    print(f"built {path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
