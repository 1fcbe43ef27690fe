"""PyTorch's values and errors for torch.frombuffer (tests/node/index_rest.test.mjs).

Writes tests/parity/fixtures/index_rest.json. Each case is a byte buffer, the byte offset of the
JS view over it (`view`: a Uint8Array starting that far into the bytes; PyTorch reads the same
bytes given as a bytearray slice), frombuffer's keywords, and PyTorch's result or error text.
Run with .venv-torch/bin/python.
"""

import json
from pathlib import Path

import torch

DTYPES = {"float32": torch.float32, "int32": torch.int32, "int64": torch.int64,
          "uint8": torch.uint8, "bool": torch.bool, "float64": torch.float64,
          "float16": torch.float16, "bfloat16": torch.bfloat16}


def case(data, dtype, view=0, **kw):
    raw = bytearray(data)
    out = {"bytes": list(raw), "view": view, "dtype": dtype, "kw": kw}
    try:
        t = torch.frombuffer(raw[view:], dtype=DTYPES[dtype], **kw)
        out["values"] = [v if dtype != "bool" else bool(v) for v in t.tolist()]
        if t.is_floating_point():
            out["values"] = [v if v == v and abs(v) != float("inf") else str(v) for v in out["values"]]
    except ValueError as e:
        out["error"] = str(e)
    return out


def main():
    f32 = bytes(torch.tensor([1.5, -2.25, 3e-39, 7.0]).numpy().tobytes())
    i64 = bytes(torch.tensor([1, -2, 2**31 - 1], dtype=torch.int64).numpy().tobytes())
    ramp = bytes(range(1, 11))
    special = [1.5, -0.0, 1e-310, float("inf"), float("nan"), -2.0**-20, 65504.0, 3e-8]
    f64 = bytes(torch.tensor(special, dtype=torch.float64).numpy().tobytes())
    f16 = bytes(torch.tensor(special, dtype=torch.float16).view(torch.int16).numpy().tobytes())
    bf16 = bytes(torch.tensor(special, dtype=torch.bfloat16).view(torch.int16).numpy().tobytes())
    cases = [
        case(f32, "float32"),
        case(f32, "float32", offset=4, count=2),
        case(b"\0" + f32, "float32", view=1),
        case(i64, "int64"),
        case(ramp, "int32", view=2),
        case(ramp, "uint8", offset=3, count=4),
        case(bytes([0, 1, 0, 1]), "bool"),
        case(ramp, "int32"),
        case(ramp, "int32", count=0),
        case(ramp, "int32", count=3),
        case(ramp, "int32", offset=3, count=3),
        case(ramp, "int32", offset=-1),
        case(ramp, "int32", offset=10),
        case(b"", "int32"),
        # float64 (the CPU device's), float16 and bfloat16: subnormals, ±inf, NaN, -0.
        case(f64, "float64"),
        case(b"\0" + f64, "float64", view=1, offset=8),
        case(f16, "float16"),
        case(f16, "float16", offset=2, count=3),
        case(bf16, "bfloat16"),
        case(f16[1:], "float16"),
    ]
    path = Path(__file__).parent / "fixtures" / "index_rest.json"
    path.write_text(json.dumps({"cases": cases}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
