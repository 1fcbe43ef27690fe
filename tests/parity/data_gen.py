"""PyTorch's torch.utils.data results for tests/node/data.test.mjs: index orders drawn from seeded
torch.Generators (randperm, randint, the samplers, DataLoader shuffles over two epochs,
random_split) and default_collate's values and dtypes.

Writes tests/parity/fixtures/data.json.
Run: .venv-torch/bin/python tests/parity/data_gen.py
"""

import json
from pathlib import Path

import torch
from torch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    random_split,
)

OUT = Path(__file__).parent / "fixtures" / "data.json"


def gen(seed):
    return torch.Generator().manual_seed(seed)


def plain(x):
    """A collated batch as JSON: tensors as {dtype, shape, values}."""
    if isinstance(x, torch.Tensor):
        return {"dtype": str(x.dtype).removeprefix("torch."), "shape": list(x.shape), "values": x.flatten().tolist()}
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def main():
    out = {}
    out["randperm"] = {f"{seed}:{n}": torch.randperm(n, generator=gen(seed)).tolist() for seed in (0, 1, 12345, 2**40 + 7) for n in (1, 2, 10, 37, 1000)}
    out["randint"] = {f"{seed}:{high}": torch.randint(high=high, size=(40,), generator=gen(seed)).tolist() for seed in (0, 3) for high in (1, 7, 1000)}

    def take(sampler):
        return list(iter(sampler))

    out["samplers"] = {
        "sequential": take(SequentialSampler(range(7))),
        "random": take(RandomSampler(range(10), generator=gen(4))),
        "random_replacement": take(RandomSampler(range(10), replacement=True, num_samples=70, generator=gen(5))),
        "random_num_samples": take(RandomSampler(range(10), num_samples=25, generator=gen(6))),
        "subset_random": take(SubsetRandomSampler([10, 20, 30, 40, 50, 60], generator=gen(7))),
        "weighted": take(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 20, replacement=True, generator=gen(8))),
        "batch": take(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)),
        "batch_drop": take(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)),
    }
    s = RandomSampler(range(10), generator=gen(4))
    out["samplers"]["random_epochs"] = [list(s), list(s)]

    x = torch.arange(20, dtype=torch.float32).reshape(10, 2)
    y = torch.arange(10) * 3
    ds = TensorDataset(x, y)
    loaders = {
        "plain": dict(batch_size=4),
        "shuffle": dict(batch_size=4, shuffle=True, generator=gen(42)),
        "shuffle_drop": dict(batch_size=3, shuffle=True, drop_last=True, generator=gen(43)),
        "no_batch": dict(batch_size=None),
    }
    out["loader"] = {}
    for name, kw in loaders.items():
        dl = DataLoader(ds, **kw)
        out["loader"][name] = [[plain(b) for b in dl] for _ in range(2)]

    out["random_split"] = {
        "ints": [list(s.indices) for s in random_split(range(10), [3, 7], generator=gen(42))],
        "fractions": [list(s.indices) for s in random_split(range(11), [0.3, 0.3, 0.4], generator=gen(1))],
    }
    out["concat"] = [int(v) for v in ConcatDataset([range(3), range(10, 14)])]
    out["subset"] = [int(v) for v in Subset(range(100, 110), [9, 0, 4])]

    torch.manual_seed(3)
    sampler_order = list(RandomSampler(range(10)))
    torch.manual_seed(3)
    loader_order = [[b.tolist() for b in DataLoader(range(10), batch_size=4, shuffle=True)] for _ in range(2)]
    out["default_generator"] = {"seed": 3, "sampler": sampler_order, "loader": loader_order}

    out["collate"] = {
        "ints": plain(default_collate([1, 2, 3])),
        "floats": plain(default_collate([1.5, 2.0, -3.25])),
        "bools": plain(default_collate([True, False])),
        "strings": plain(default_collate(["a", "b"])),
        "tensors": plain(default_collate([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])])),
        "int_tensors": plain(default_collate([torch.tensor([1, 2], dtype=torch.int32), torch.tensor([3, 4], dtype=torch.int32)])),
        "tuples": plain(default_collate([(torch.tensor([1.0]), 0), (torch.tensor([2.0]), 1)])),
        "dicts": plain(default_collate([{"x": torch.tensor([1.0, 2.0]), "label": 3, "name": "a"}, {"x": torch.tensor([5.0, 6.0]), "label": 4, "name": "b"}])),
        "nested": plain(default_collate([[1, [2.5, True]], [3, [4.5, False]]])),
    }
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
