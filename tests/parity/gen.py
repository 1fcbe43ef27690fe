"""Writes tests/parity/fixtures/*.json from real PyTorch: `.venv-torch/bin/python tests/parity/gen.py`.

Deterministic: fixed seeds, one thread, float32 values written as their shortest decimals; running
it twice gives identical files. The format is described in tests/parity/README.md. Every case that
qualifies gets gradient data (`fixture_grad.add_grad`); `--grad-margins` also prints, per op, the
largest share of its gradient tolerance that PyTorch's own float32 gradients use.
"""

import importlib
import json
import pathlib
import sys
import warnings

sys.dont_write_bytecode = True  # no __pycache__ next to the committed sources

import torch  # noqa: E402

from cases import FAMILIES, TS_FAMILIES, rng_for  # noqa: E402
from fixture import Family  # noqa: E402
from fixture_grad import MARGINS, REFUSED, SKIPS, add_grad  # noqa: E402
from sweep import DROPPED, UNSWEPT, inplace_fixture  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "fixtures"


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    warnings.filterwarnings("ignore")  # mean of an empty tensor warns; its nan is the fixture
    OUT.mkdir(exist_ok=True)
    margins = {}  # op -> [largest share of its grad tolerance PyTorch's float32 used, case]
    names, total, size, skipped = set(), 0, 0, {k: 0 for k in SKIPS}
    swept = []  # the sweep's cases, from which the in-place and async passes derive theirs
    # The TS layer's composites go to fixtures/ts/ with their own index: the JS runner loads both
    # indexes, the native Rust runner (core ops only) just fixtures/index.json. `--ts-only`
    # regenerates those alone.
    (OUT / "ts").mkdir(exist_ok=True)
    families = ([] if "--ts-only" in sys.argv else FAMILIES) + TS_FAMILIES
    for fam_name in families:
        fam = Family(fam_name)
        importlib.import_module(f"cases.{fam_name}").build(fam, rng_for(fam_name))
        grads = 0
        for case in fam.cases:
            assert case["name"] not in names, f"duplicate case name {case['name']}"
            names.add(case["name"])
            why = add_grad(case)
            if why == "grad":
                grads += 1
                m = margins.setdefault(case["op"], [-1.0, ""])
                if MARGINS[case["name"]] > m[0]:
                    m[:] = [MARGINS[case["name"]], case["name"]]
            else:
                skipped[why] += 1
        if fam_name in ("sweep", "sweep_ts"):
            swept.extend(fam.cases)
        text = fam.dumps()
        (OUT / ("ts/" if fam_name in TS_FAMILIES else "") / f"{fam_name}.json").write_text(text)
        total += len(fam.cases)
        size += len(text.encode())
        print(f"{fam_name + '.json':18} {len(fam.cases):4} cases {grads:4} with grad "
              f"{len(text.encode()) / 1024:7.1f} KiB")
    version = torch.__version__.split("+")[0]
    if "--ts-only" not in sys.argv:
        index = {"torch": version, "files": [f"{f}.json" for f in FAMILIES]}
        (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    if "--ts-only" not in sys.argv:
        # The runners' in-place and async passes (README: The sweep), from both sweep files.
        derived = inplace_fixture(swept)
        lines = [json.dumps(e, separators=(",", ":")) for e in derived["cases"]]
        text = ('{"inplace": ' + json.dumps(derived["inplace"], separators=(",", ":"))
                + ',\n "async": ' + json.dumps(derived["async"]) + ',\n "cases": [\n'
                + ",\n".join(lines) + "\n]}\n")
        (OUT / "sweep_inplace.json").write_text(text)
        print(f"sweep_inplace.json {len(lines):4} in-place cases "
              f"{sum(len(e) > 1 for e in derived['cases'])} expecting PyTorch's error")
    ts_index = {"torch": version, "files": [f"{f}.json" for f in TS_FAMILIES]}
    (OUT / "ts" / "index.json").write_text(json.dumps(ts_index, indent=1) + "\n")
    print(f"{total} cases in {len(families)} files, {size / 1024:.1f} KiB")
    print("no grad: " + ", ".join(f"{k} {v}" for k, v in skipped.items() if v))
    for (typ, msg), cases in REFUSED.items():
        print(f"  PyTorch refused the backward of {len(cases)} case(s) ({', '.join(cases[:4])}"
              f"{', …' if len(cases) > 4 else ''}): {typ}: {msg}")
    for name, why in DROPPED.items():
        print(f"  sweep left out {name}: {why}")
    for name, why in UNSWEPT.items():
        print(f"  sweep does not cover {name}: {why}")
    if "--grad-margins" in sys.argv:
        for op, (m, name) in sorted(margins.items(), key=lambda kv: -kv[1][0]):
            print(f"  grad margin {op:14} {m:6.3f}  {name}")


if __name__ == "__main__":
    sys.exit(main())
