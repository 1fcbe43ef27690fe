"""PyTorch's side of bench/block_check.mjs: the same block, input and weights (read from
<dir>/block_inputs.bin), forward + backward in float32 with TF32 off, compared with webtorch's
loss, output and gradients at the sampled indices. Writes <dir>/block_check_result.json.

    python3 bench/block_check.py <dir>
"""

import json
import sys
from pathlib import Path

import torch

d = Path(sys.argv[1])
rep = json.loads((d / "block_check.json").read_text())
raw = torch.frombuffer(bytearray((d / "block_inputs.bin").read_bytes()), dtype=torch.float32)
dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
tensors, at = {}, 0
for name, shape in rep["order"]:
    n = 1
    for s in shape:
        n *= s
    tensors[name] = raw[at : at + n].clone().reshape(shape)
    at += n
dims = rep["dims"]
block = torch.nn.TransformerEncoderLayer(dims["D"], dims["H"], dims["F"], dropout=0.0, activation="gelu",
                                         batch_first=True, norm_first=True)
block.load_state_dict({k: v for k, v in tensors.items() if k != "input"})
block = block.to(dev).train()
x = tensors["input"].to(dev)
mask = torch.nn.Transformer.generate_square_subsequent_mask(dims["L"], device=dev)
out = block(x, src_mask=mask, is_causal=True)
loss = out.square().mean()
loss.backward()
loss_v = loss.item()


def compare(want, idx, got):
    want = want.detach().flatten().cpu().double()[torch.tensor(idx)]
    got = torch.tensor(got, dtype=torch.float64)
    scale = max(want.abs().max().item(), 1e-30)
    err = (got - want).abs().max().item()
    return {"max_abs_err": err, "scale": scale, "rel_to_scale": err / scale}


result = {"device": torch.cuda.get_device_name() if dev == "cuda" else "cpu", "torch": torch.__version__,
          "loss": {"webtorch": rep["loss"], "pytorch": loss_v, "rel": abs(rep["loss"] - loss_v) / abs(loss_v)},
          "out": compare(out, rep["out"]["idx"], rep["out"]["got"]), "grads": {}}
params = dict(block.named_parameters())
for name, g in rep["grads"].items():
    result["grads"][name] = compare(params[name].grad, g["idx"], g["got"])
worst = max(r["rel_to_scale"] for r in result["grads"].values())
result["worst_grad_rel_to_scale"] = worst
(d / "block_check_result.json").write_text(json.dumps(result, indent=1))
print(f"loss webtorch {rep['loss']:.7g} pytorch {loss_v:.7g} (rel {result['loss']['rel']:.2e}); "
      f"output max err / scale {result['out']['rel_to_scale']:.2e}")
for name, r in result["grads"].items():
    print(f"  {name:40s} max |Δ| {r['max_abs_err']:.3e}  scale {r['scale']:.3e}  rel {r['rel_to_scale']:.2e}")
print(f"worst gradient error relative to its scale: {worst:.2e}")
