"""Character-level transformer parity fixtures from real PyTorch (tests/node/chargpt.test.mjs).

A tiny GPT (2 pre-norm blocks, d=32, 2 heads, context 32; attention written out with Linear,
matmul, masked_fill and softmax so that webtorch mirrors it op for op) trained with AdamW on
data/alice.txt (the opening of chapter I of Lewis Carroll's "Alice's Adventures in Wonderland",
1865, public domain; Project Gutenberg eBook #11) on fixed batches.

Writes tests/parity/fixtures/train/:
  chargpt_init.safetensors   initial weights (PyTorch's key names)
  chargpt_train.json         vocabulary, batch offsets, per-step losses, some final weights

Run: .venv-torch/bin/python tests/parity/chargpt_gen.py   (deterministic)
"""

import json
import math
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).parent / "fixtures" / "train"
D, HEADS, LAYERS, CTX, BATCH, STEPS = 32, 2, 2, 32, 8, 30
OPT = {"lr": 3e-3, "weight_decay": 0.01}


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.ln2 = nn.LayerNorm(D)
        self.fc = nn.Linear(D, 4 * D)
        self.fc2 = nn.Linear(4 * D, D)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        heads = lambda z: z.reshape(b, t, HEADS, D // HEADS).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = q.matmul(k.transpose(2, 3)) * (1.0 / math.sqrt(D // HEADS))
        att = att.masked_fill(mask[:t, :t], float("-inf")).softmax(-1)
        y = att.matmul(v).transpose(1, 2).reshape(b, t, D)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class CharGPT(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, D)
        self.pos = nn.Embedding(CTX, D)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, vocab)
        # True above the diagonal: the future a position may not attend to
        self.register_buffer("mask", torch.ones(CTX, CTX).triu(1).bool(), persistent=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t))
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.head(self.ln_f(x))


def flat(t):
    return [float(f"{v:.9g}") for v in t.detach().reshape(-1).tolist()]


def main():
    text = (ROOT / "data" / "alice.txt").read_text()
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(c) for c in text])
    torch.manual_seed(0)
    model = CharGPT(len(vocab))
    init = {k: v.clone().contiguous() for k, v in model.state_dict().items()}
    save_file(init, OUT / "chargpt_init.safetensors")
    g = torch.Generator().manual_seed(1)
    offsets = torch.randint(0, len(ids) - CTX - 1, (STEPS, BATCH), generator=g)
    opt = torch.optim.AdamW(model.parameters(), foreach=False, **OPT)
    losses = []
    for s in range(STEPS):
        x = torch.stack([ids[o : o + CTX] for o in offsets[s].tolist()])
        y = torch.stack([ids[o + 1 : o + CTX + 1] for o in offsets[s].tolist()])
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, len(vocab)), y.reshape(-1))
        loss.backward()
        opt.step()
        losses.append(float(f"{loss.item():.9g}"))
    keys = ["tok.weight", "blocks.0.qkv.weight", "blocks.1.fc2.bias", "ln_f.weight", "head.weight"]
    fixture = {
        "model": f"CharGPT(d={D}, heads={HEADS}, layers={LAYERS}, ctx={CTX}), AdamW {OPT}",
        "torch": torch.__version__.split("+")[0],
        "vocab": "".join(vocab),
        "ctx": CTX,
        "offsets": offsets.tolist(),
        "losses": losses,
        "final": {k: flat(model.state_dict()[k]) for k in keys},
    }
    (OUT / "chargpt_train.json").write_text(json.dumps(fixture, separators=(",", ":")))
    print(f"vocab {len(vocab)}, text {len(text)} chars, loss {losses[0]:.4f} -> {losses[-1]:.4f}")


if __name__ == "__main__":
    main()
