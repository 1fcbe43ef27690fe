"""GPT-2 weights from a fixed-seed PyTorch init, and PyTorch's logits and greedy tokens for them.

`transformers`' GPT2LMHeadModel is built with torch.manual_seed(SEED) and its own initialisation
(normal(0, initializer_range), scaled residual projections). That init sets every bias to 0 and every
LayerNorm to (1, 0), which would leave those parameters untested, so they are then drawn from
normal(0, initializer_range) around their init too (same seed, fixed order). The checkpoint is the model's
state dict by PyTorch's names, without `lm_head.weight` (tied to `transformer.wte.weight`, as
GPT-2 checkpoints ship it).

    .venv-torch/bin/python scripts/models/gpt2_reference.py small   # tests/parity/fixtures/models/
    .venv-torch/bin/python scripts/models/gpt2_reference.py 124m    # models/gpt2-124m-random/ (500 MB)

Each writes model.safetensors, config.json and reference.json: a prompt, the logits of the
prompt (small: every position; 124m: the last position), and `max_new_tokens` greedy tokens that
`model.generate` (KV cache, no sampling) gives.
"""

import json
import os
import sys

import torch
from safetensors.torch import save_file
from transformers import GPT2Config, GPT2LMHeadModel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 0
# Wider than GPT-2's 0.02: at 0.02 a random model's greedy path is one token repeated, which would
# not show that the KV cache carries the context; at this width the path varies.
INIT_RANGE = float(os.environ.get("INIT_RANGE", "0.2"))
CONFIGS = {
    # A CI-sized GPT-2: 2 layers, 4 heads of 16, a 256-token vocabulary (bytes), context 64.
    "small": dict(
        config=dict(vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                    bos_token_id=None, eos_token_id=None, initializer_range=INIT_RANGE),
        out=os.path.join(ROOT, "tests", "parity", "fixtures", "models", "gpt2-small"),
        prompt_len=12,
        new_tokens=20,
        all_logits=True,
    ),
    # GPT-2 small's architecture (124M parameters).
    "124m": dict(
        config=dict(initializer_range=INIT_RANGE),
        out=os.path.join(ROOT, "models", "gpt2-124m-random"),
        prompt_len=16,
        new_tokens=32,
        all_logits=False,
    ),
}


def build(config):
    torch.manual_seed(SEED)
    model = GPT2LMHeadModel(GPT2Config(**config)).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(".bias") or ".ln_" in name:
                p.add_(torch.randn_like(p) * INIT_RANGE)
    return model


def main(which):
    spec = CONFIGS[which]
    model = build(spec["config"])
    cfg = model.config
    os.makedirs(spec["out"], exist_ok=True)
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    save_file(state, os.path.join(spec["out"], "model.safetensors"), metadata={"format": "pt"})
    keys = ["vocab_size", "n_positions", "n_embd", "n_layer", "n_head", "layer_norm_epsilon",
            "activation_function"]
    config = {k: getattr(cfg, k) for k in keys}
    with open(os.path.join(spec["out"], "config.json"), "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")

    g = torch.Generator().manual_seed(SEED + 1)
    prompt = torch.randint(0, cfg.vocab_size, (1, spec["prompt_len"]), generator=g)
    with torch.no_grad():
        logits = model(prompt).logits[0]
        gen = model.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                             max_new_tokens=spec["new_tokens"], min_new_tokens=spec["new_tokens"],
                             use_cache=True, pad_token_id=0)
        # The smallest gap between the best and second-best logit along the greedy path: the
        # tokens are only a fair test if it is well above float32 noise.
        full = model(gen).logits[0, spec["prompt_len"] - 1 : -1]
        top2 = full.topk(2, dim=-1).values
        margin = float((top2[:, 0] - top2[:, 1]).min())
    ref = {
        "seed": SEED,
        "prompt": prompt[0].tolist(),
        "logits": [[float(f"{v:.7g}") for v in row] for row in
                   (logits if spec["all_logits"] else logits[-1:]).tolist()],
        "logits_positions": list(range(spec["prompt_len"])) if spec["all_logits"]
        else [spec["prompt_len"] - 1],
        "generated": gen[0, spec["prompt_len"] :].tolist(),
        "min_greedy_margin": margin,
    }
    with open(os.path.join(spec["out"], "reference.json"), "w") as f:
        json.dump(ref, f, separators=(",", ":"))
        f.write("\n")
    n = sum(p.numel() for p in model.parameters())
    print(f"{which}: {n / 1e6:.2f}M parameters -> {spec['out']}; greedy {ref['generated']}, "
          f"min top-2 margin {margin:.4g}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "small")
