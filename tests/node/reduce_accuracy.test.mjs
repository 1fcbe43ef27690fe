// Long float32 reductions keep PyTorch's accuracy (cascade sums, bench/KERNELS.md "Summation
// order") on the CPU backend and on WebGPU: sums and means of 10^6–10^7 elements, var/std of
// offset data and of constants, mean/var/std/norm of 10^7 (10^6 on WebGPU, split across
// workgroups), layer_norm of a constant row, softmax/log_softmax/logsumexp of a long row, reduced along the inner and the outer dim. Expected values come from PyTorch
// (tests/node/reduce_accuracy.py); the inputs are rebuilt here from the same exact operations.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const F = torch.nn.functional;
const want = JSON.parse(
  readFileSync(new URL("reduce_accuracy.json", import.meta.url), "utf8"),
);

/** torch.testing.assert_close's float32 tolerance. */
function closeTorch(actual, expected, what) {
  const tol = 1e-5 + 1.3e-6 * Math.abs(expected);
  assert.ok(
    Math.abs(actual - expected) <= tol,
    `${what}: ${actual}, PyTorch ${expected} (tolerance ${tol})`,
  );
}

// The generator's inputs (reduce_accuracy.py), op for op.
const scrambled = (n) =>
  torch.arange(n).remainder(10007).mul(7919).remainder(10007).float();
const noisy = (n) =>
  scrambled(n)
    .mul(2 ** -12)
    .add(0.1);
const offset = (n) =>
  torch
    .arange(n)
    .remainder(1000)
    .float()
    .mul(2 ** -8)
    .add(1e4);
const offsetFine = (n) =>
  torch
    .arange(n)
    .remainder(17)
    .float()
    .mul(2 ** -10)
    .add(1e4);
const logits = (n) => scrambled(n).mul(2 ** -10);

async function picked(t) {
  const flat = t.reshape(-1);
  const out = [];
  for (const i of want.picked) out.push(await flat.narrow(0, i, 1).item());
  return out;
}

const devices = ["cpu", ...(torch.webgpu.is_available() ? ["webgpu"] : [])];

for (const device of devices) {
  test(`[${device}] sums and means of 10^6–10^7 float32 elements`, async () => {
    await torch.init({ device });
    const p1 = torch.full([1_000_000], 0.1);
    closeTorch(await p1.sum().item(), want["full_0.1_1e6_sum"], "sum 1e6×0.1");
    closeTorch(await p1.mean().item(), want["full_0.1_1e6_mean"], "mean");
    closeTorch(
      await torch.full([10_000_000], 0.1).sum().item(),
      want["full_0.1_1e7_sum"],
      "sum 1e7×0.1",
    );
    closeTorch(
      await noisy(10_000_000).sum().item(),
      want["noisy_1e7_sum"],
      "sum of 1e7 scrambled values",
    );
    closeTorch(
      await noisy(1_000_000).reshape(-1, 1).mean(0).item(),
      want["noisy_1e6_mean_dim0"],
      "mean over the outer dim",
    );
  });

  test(`[${device}] var/std of offset data and of constants`, async () => {
    await torch.init({ device });
    const x = offset(1_000_000);
    closeTorch(await x.var().item(), want["offset_1e6_var"], "var 1e4 + noise");
    closeTorch(await x.std().item(), want["offset_1e6_std"], "std 1e4 + noise");
    const y = offsetFine(1_000_000);
    closeTorch(
      await y.var().item(),
      want["offset_fine_1e6_var"],
      "var 1e4 + fine noise",
    );
    closeTorch(
      await y.std().item(),
      want["offset_fine_1e6_std"],
      "std 1e4 + fine noise",
    );
    closeTorch(
      await torch.full([1_000_000], 0.1).var().item(),
      want["full_0.1_1e6_var"],
      "var of 0.1s",
    );
    // A constant whose mean is exact has a variance of exactly 0, as PyTorch's.
    assert.equal(
      await torch.full([100_000], 7, { dtype: "float32" }).var().item(),
      want["full_7_1e5_var"],
    );
    assert.equal(
      await torch.full([100_000, 1], 7, { dtype: "float32" }).std(0).item(),
      want["full_7_1e5_std_dim0"],
    );
  });

  // 10^7 values on the CPU; 10^6 on WebGPU (SwiftShader takes seconds per pass over 10^7),
  // where both sizes split each row across workgroups (reduce_launch.rs, `row_chunk`).
  const [tag, n] = device === "cpu" ? ["1e7", 10_000_000] : ["1e6", 1_000_000];
  test(`[${device}] mean, var, std and norm of ${tag} elements (one row, and four rows)`, async () => {
    await torch.init({ device });
    const x = noisy(n);
    const key = (what) => want[`noisy_${tag}_${what}`];
    closeTorch(await x.mean().item(), key("mean"), `mean ${tag}`);
    closeTorch(await x.var().item(), key("var"), `var ${tag}`);
    closeTorch(await x.std().item(), key("std"), `std ${tag}`);
    closeTorch(await x.norm().item(), key("norm"), `norm ${tag}`);
    const rows = Array.from(await x.reshape(4, -1).var(1).toArray());
    rows.forEach((v, i) =>
      closeTorch(v, key("var_rows")[i], `var of row ${i} of 4`),
    );
  });

  test(`[${device}] nll_loss summed over 10^6 rows`, async () => {
    await torch.init({ device });
    const loss = F.nll_loss(
      noisy(1_000_000).reshape(-1, 1),
      torch.zeros([1_000_000], { dtype: "int64" }),
      { reduction: "sum" },
    );
    closeTorch(await loss.item(), want["nll_loss_1e6_sum"], "nll_loss sum");
  });

  test(`[${device}] layer_norm of a constant row of 700 is 0`, async () => {
    await torch.init({ device });
    const y = F.layer_norm(torch.full([2, 700], 0.1), [700]).reshape(-1);
    const got = [];
    for (const i of [0, 699, 1399]) got.push(await y.narrow(0, i, 1).item());
    got.forEach((v, i) =>
      closeTorch(v, want.layer_norm_700[i], `layer_norm[${i}]`),
    );
  });

  test(`[${device}] softmax, log_softmax, logsumexp of a row of 10^6 (inner and outer dim)`, async () => {
    await torch.init({ device });
    const x = logits(1_000_000);
    const rows = [
      ["inner", x.reshape(1, -1), 1],
      ["outer", x.reshape(-1, 1), 0],
    ];
    for (const [where, t, dim] of rows) {
      // Softmax values are ~1e-6, under assert_close's atol: compared relative to PyTorch's
      // float64 result instead.
      const sm = await picked(F.softmax(t, dim));
      sm.forEach((v, i) => {
        const e = want.softmax[i];
        assert.ok(
          Math.abs(v - e) <= 2e-6 * e,
          `softmax ${where} [${want.picked[i]}]: ${v}, PyTorch (float64) ${e}`,
        );
      });
      const ls = await picked(F.log_softmax(t, dim));
      ls.forEach((v, i) =>
        closeTorch(v, want.log_softmax[i], `log_softmax ${where} [${i}]`),
      );
    }
    closeTorch(
      await torch.logsumexp(x, 0).item(),
      want.logsumexp_1e6,
      "logsumexp",
    );
  });
}
