"""Runs the Python blocks of docs/migration.md with PyTorch and records what each printed in
tests/parity/fixtures/migration.json (tests/node/migration.test.mjs checks that the guide's text
blocks are that output, and that webtorch prints the same).
    .venv-torch/bin/python scripts/migration-fixtures.py"""

import contextlib
import io
import json
import pathlib
import re

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
doc = (ROOT / "docs/migration.md").read_text()
out = []
for m in re.finditer(r"```python\n(.*?)```", doc, re.S):
    code = m.group(1)
    buf = io.StringIO()
    scope = {"torch": torch, "nn": nn, "F": F, "json": json}
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "migration.md", "exec"), scope)
    out.append({"python": code, "output": buf.getvalue()})
path = ROOT / "tests/parity/fixtures/migration.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path} ({len(out)} examples)")
