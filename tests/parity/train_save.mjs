// Writes tests/parity/fixtures/train/webtorch_saved.safetensors with webtorch's torch.save, for
// `train_gen.py --verify` to read with PyTorch's safetensors.torch (tests/node/safetensors.test.mjs
// checks that torch.save still writes these bytes and that PyTorch read back these values).
//   make pkg && node tests/parity/train_save.mjs && .venv-torch/bin/python tests/parity/train_gen.py --verify
import { writeFileSync } from "node:fs";

/** The state dict saved: one tensor per dtype webtorch has, odd shapes included. */
export function SAVED_STATE(torch) {
  return {
    "layer.weight": torch.tensor([[0.5, -1.25, 3], [1e-7, -0, 65536.5]], { dtype: "float32" }),
    "layer.bias": torch.tensor([0.1, 0.2], { dtype: "float32" }),
    "scalar": torch.tensor(3.25),
    "steps": torch.tensor([7, -2147483648, 2147483647], { dtype: "int64" }),
    "ids": torch.tensor([[1, -2], [3, 4]], { dtype: "int32" }),
    "bytes": torch.tensor([0, 128, 255], { dtype: "uint8" }),
    "mask": torch.tensor([true, false, true]),
    "empty": torch.zeros(0, 4),
    "half": torch.tensor([0.5, -65504, 6e-8, 1 / 3, 2049], { dtype: "float16" }),
    "brain": torch.tensor([[1, -3.14159], [1e30, 1e-40]], { dtype: "bfloat16" }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const torch = await import(new URL("../../pkg/dist/index.js", import.meta.url).href);
  await torch.init({ device: "cpu" });
  const bytes = await torch.save(SAVED_STATE(torch));
  const out = new URL("fixtures/train/webtorch_saved.safetensors", import.meta.url);
  writeFileSync(out, bytes);
  console.log(`wrote ${out.pathname} (${bytes.length} bytes)`);
}
