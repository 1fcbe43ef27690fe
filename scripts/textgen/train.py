#!/usr/bin/env python3
"""Trains the playground's text-generation model: a character-level GPT on data/kjv.txt.

    .venv-torch/bin/python scripts/textgen/train.py [--minutes 15] [--device cpu|cuda]

On this repo's 2-core machines a CPU run is slow (minutes per hundred steps); the committed
weights were trained with --device cuda (2500 steps, under a minute on one GPU).

Writes www/assets/textgen/model.safetensors (float32, PyTorch's state-dict names) and
www/assets/textgen/config.json (the architecture and the vocabulary: the corpus's distinct
characters, sorted). www/src/examples/textgen/model.ts is the same model written with webtorch;
tests/node/textgen.test.mjs checks its logits against the ones this script saves beside the
weights (reference.json).

The model: token and position embeddings, pre-norm blocks (LayerNorm, causal self-attention
through F.scaled_dot_product_attention, LayerNorm, a GELU MLP), a final LayerNorm and a linear
head. AdamW with a cosine learning rate, trained for a time budget rather than a step count.
"""

import argparse
import json
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import save_file

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "www", "assets", "textgen")


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc(self.ln2(x))))


class CharGPT(nn.Module):
    def __init__(self, vocab_size, d, heads, layers, context):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d)
        self.pos = nn.Embedding(context, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab_size)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--minutes", type=float, default=15)
    p.add_argument("--device", default="cpu")
    p.add_argument("--d", type=int, default=160)
    p.add_argument("--heads", type=int, default=5)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--context", type=int, default=128)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--out", default=OUT, help="where the weights, config and reference go")
    p.add_argument("--est-steps", type=int, default=2500, help="the cosine schedule's length")
    a = p.parse_args()

    torch.manual_seed(0)
    text = open(os.path.join(ROOT, "data", "kjv.txt"), encoding="utf-8").read()
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(c) for c in text], dtype=torch.long)
    # The last 5 % is held out: its loss says whether the model learned words or memorised.
    split = int(len(ids) * 0.95)
    train, val = ids[:split], ids[split:]
    config = dict(vocab=vocab, d=a.d, heads=a.heads, layers=a.layers, context=a.context)
    model = CharGPT(len(vocab), a.d, a.heads, a.layers, a.context).to(a.device)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{n_params} parameters, corpus {len(text)} characters, vocabulary {len(vocab)}")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1, betas=(0.9, 0.95))

    def batch(data, n):
        o = torch.randint(len(data) - a.context - 1, (n,))
        x = torch.stack([data[i : i + a.context] for i in o])
        y = torch.stack([data[i + 1 : i + 1 + a.context] for i in o])
        return x.to(a.device), y.to(a.device)

    @torch.no_grad()
    def val_loss():
        model.eval()
        g = torch.random.get_rng_state()
        torch.manual_seed(1)
        x, y = batch(val, 64)
        torch.random.set_rng_state(g)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        model.train()
        return loss.item()

    t0 = time.time()
    step = 0
    while time.time() - t0 < a.minutes * 60:
        lr = a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(step / a.est_steps, 1))))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y = batch(train, a.batch)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 100 == 0:
            print(
                f"step {step}: loss {loss.item():.3f}, held-out {val_loss():.3f}, "
                f"lr {lr:.2e}, {time.time() - t0:.0f} s",
                flush=True,
            )
        if step >= a.est_steps:
            break

    model = model.cpu().eval()
    a.device = "cpu"
    os.makedirs(a.out, exist_ok=True)
    save_file(
        {k: v.contiguous() for k, v in model.state_dict().items()},
        os.path.join(a.out, "model.safetensors"),
        metadata={"format": "pt"},
    )
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
    # A reference for the webtorch port: the logits of a fixed prompt (every position).
    prompt = "In the beginning God created the heaven and the earth."
    with torch.no_grad():
        logits = model(torch.tensor([[vocab.index(c) for c in prompt]]))[0]
    with open(os.path.join(a.out, "reference.json"), "w") as f:
        json.dump(
            {
                "prompt": prompt,
                "last_logits": [round(v, 6) for v in logits[-1].tolist()],
                "argmax": logits.argmax(-1).tolist(),
                "sum_logits": round(logits.sum().item(), 4),
                "held_out_loss": round(val_loss(), 4),
                "steps": step,
            },
            f,
        )
        f.write("\n")
    print(f"saved {a.out}: {step} steps, held-out loss {val_loss():.3f}")


if __name__ == "__main__":
    main()
