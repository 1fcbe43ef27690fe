"""Writes tests/parity/fixtures/*.json from real PyTorch: `.venv-torch/bin/python tests/parity/gen.py`.

Deterministic: fixed seeds, one thread, float32 values written as their shortest decimals; running
it twice gives identical files. The format is described in tests/parity/README.md.
"""

import importlib
import json
import pathlib
import sys
import warnings

sys.dont_write_bytecode = True  # no __pycache__ next to the committed sources

import torch  # noqa: E402

from cases import FAMILIES, rng_for  # noqa: E402
from fixture import Family  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "fixtures"


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    warnings.filterwarnings("ignore")  # mean of an empty tensor warns; its nan is the fixture
    OUT.mkdir(exist_ok=True)
    names, total = set(), 0
    for fam_name in FAMILIES:
        fam = Family(fam_name)
        importlib.import_module(f"cases.{fam_name}").build(fam, rng_for(fam_name))
        for case in fam.cases:
            assert case["name"] not in names, f"duplicate case name {case['name']}"
            names.add(case["name"])
        text = fam.dumps()
        (OUT / f"{fam_name}.json").write_text(text)
        total += len(fam.cases)
        print(f"{fam_name + '.json':16} {len(fam.cases):4} cases {len(text.encode()) / 1024:7.1f} KiB")
    index = {"torch": torch.__version__.split("+")[0], "files": [f"{f}.json" for f in FAMILIES]}
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{total} cases in {len(FAMILIES)} files")


if __name__ == "__main__":
    sys.exit(main())
