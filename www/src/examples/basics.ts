// Tensor basics: creation, dtypes, elementwise math, reductions, matmul
import * as torch from "webtorch";

const x = torch.tensor(
  [
    [1, 2, 3],
    [4, 5, 6],
  ],
  { dtype: torch.float32 },
);
print("x =", x);
print("shape", x.shape, "dtype", x.dtype, "device", x.device);

// Elementwise ops chain lazily and run as one fused kernel when read.
const y = x.mul(2).add(1).sqrt();
print("sqrt(2x + 1) =", y);

print("sum over dim 1:", x.sum(1));
print("mean:", x.mean());
print("x @ xᵀ =", x.matmul(x.transpose(0, 1)));

const i = torch.arange(6);
print("arange(6):", i, "dtype", i.dtype); // integers are int64, as in PyTorch

torch.manual_seed(0);
const r = torch.randn(1000);
// Reads are async: await a number out of a 0-d tensor.
print("randn mean ≈ 0:", Number(await r.mean().item()).toFixed(3));
await plot.hist(r, { title: "randn(1000)" });
