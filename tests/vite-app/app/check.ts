// Type-checks against the installed package's published .d.ts (resolved through `exports.types`).
import * as torch from "webtorch";

const x: torch.Tensor = torch.tensor(
  [
    [1, 2],
    [3, 4],
  ],
  { dtype: torch.float32 },
);
const shape: readonly number[] = x.matmul(x).relu().sum(0, true).shape;
const dtype: torch.DType = x.dtype;
export const value: Promise<number | boolean> = x.sum().item();
export const info = {
  shape,
  dtype,
  device: torch.get_default_device() satisfies torch.Device,
};
await torch.webgpu.sync_device();
// @ts-expect-error — dtypes are checked names
torch.zeros(2, { dtype: "float128" });
