// Checks of sum/mean and matmul.
// Part of the shared API checks: see ./index.mjs.
import { close, throws, tensorIs } from "./assert.mjs";

function matmul2d(a, b) {
  return a.map((row) =>
    b[0].map((_, j) => row.reduce((s, x, k) => s + x * b[k][j], 0)),
  );
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "sum/mean: all dims, one dim, several, negative, keepdim, options object",
    async run(torch) {
      const x = torch.arange(6, { dtype: "float32" }).reshape(2, 3); // [[0,1,2],[3,4,5]]
      await tensorIs(x.sum(), { shape: [], values: 15 }, "sum()");
      await tensorIs(x.sum(0), { shape: [3], values: [3, 5, 7] }, "sum(0)");
      await tensorIs(
        x.sum(1, true),
        { shape: [2, 1], values: [[3], [12]] },
        "sum(1, keepdim)",
      );
      await tensorIs(x.sum(-1), { shape: [2], values: [3, 12] }, "sum(-1)");
      await tensorIs(x.sum([0, 1]), { shape: [], values: 15 }, "sum([0, 1])");
      await tensorIs(
        x.sum({ dim: 0, keepdim: true }),
        { shape: [1, 3], values: [[3, 5, 7]] },
        "sum({dim, keepdim})",
      );
      await tensorIs(torch.sum(x, 1), { values: [3, 12] }, "torch.sum");
      await tensorIs(x.mean(), { shape: [], values: 2.5 }, "mean()");
      await tensorIs(x.mean(0), { values: [1.5, 2.5, 3.5] }, "mean(0)");
      await tensorIs(
        torch.mean(x, [1], true),
        { shape: [2, 1], values: [[1], [4]] },
        "torch.mean keepdim",
      );
      await tensorIs(
        torch.tensor([1, 2, 3]).sum(),
        { dtype: "int64", values: 6 },
        "int64 sum",
      );
      await tensorIs(
        torch.tensor([true, true, false]).sum(),
        { dtype: "int64", values: 2 },
        "bool sum",
      );
      await tensorIs(
        torch.zeros([0, 3]).sum(0),
        { shape: [3], values: [0, 0, 0] },
        "sum over size 0",
      );
      await tensorIs(
        torch.tensor([]).sum(),
        { shape: [], values: 0 },
        "sum of empty",
      );
      const big = torch.ones([1000, 37]);
      await tensorIs(big.sum(), { values: 37000 }, "sum of 37000 ones");
      await tensorIs(
        big.sum(0),
        { shape: [37], values: Array(37).fill(1000) },
        "sum(0) of [1000, 37]",
      );
      throws(
        () => x.sum(2),
        torch.IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        "sum(2)",
      );
      throws(
        () => torch.tensor([1, 2]).mean(),
        torch.TorchError,
        "mean(): could not infer output dtype",
        "mean of int64",
      );
    },
  },
  {
    name: "matmul: 2-D, 1-D, batched with broadcasting, shape errors",
    async run(torch) {
      const A = [
        [1, 2],
        [3, 4],
      ];
      const B = [
        [5, 6],
        [7, 8],
      ];
      await tensorIs(
        torch
          .tensor(A, { dtype: "float32" })
          .matmul(torch.tensor(B, { dtype: "float32" })),
        {
          shape: [2, 2],
          values: [
            [19, 22],
            [43, 50],
          ],
        },
        "2x2 @ 2x2",
      );
      const C = [
        [1, 2, 3],
        [4, 5, 6],
      ];
      const D = [
        [1, -1],
        [0, 2],
        [3, 1],
      ];
      await tensorIs(
        torch.matmul(torch.tensor(C), torch.tensor(D)),
        { shape: [2, 2], dtype: "int64", values: matmul2d(C, D) },
        "int64 2x3 @ 3x2",
      );
      await tensorIs(
        torch
          .tensor([1, 2, 3], { dtype: "float32" })
          .matmul(torch.tensor([4, 5, 6], { dtype: "float32" })),
        { shape: [], values: 32 },
        "1-D dot",
      );
      await tensorIs(
        torch
          .tensor(C, { dtype: "float32" })
          .matmul(torch.tensor([1, 0, 1], { dtype: "float32" })),
        { shape: [2], values: [4, 10] },
        "2-D @ 1-D",
      );
      const batch = [
        C,
        [
          [0, 1, 0],
          [1, 0, 0],
        ],
      ];
      await tensorIs(
        torch
          .tensor(batch, { dtype: "float32" })
          .matmul(torch.tensor(D, { dtype: "float32" })),
        { shape: [2, 2, 2], values: batch.map((m) => matmul2d(m, D)) },
        "batched @ 2-D",
      );
      await tensorIs(
        torch.ones([2, 1, 2, 3]).matmul(torch.ones([3, 3, 4])),
        { shape: [2, 3, 2, 4] },
        "broadcast batch dims",
      );
      // Larger than one workgroup tile, with known values: (x·1)ᵀ structure.
      const n = 70;
      const left = torch
        .arange(n * n, { dtype: "float32" })
        .reshape(n, n)
        .div(n * n);
      const right = torch.ones([n, 3]);
      const rows = await left.matmul(right).tolist();
      const expected = Array.from({ length: n }, (_, i) => {
        const s = Array.from(
          { length: n },
          (_, j) => (i * n + j) / (n * n),
        ).reduce((p, q) => p + q, 0);
        return [s, s, s];
      });
      close(rows, expected, { atol: 1e-3, rtol: 1e-4, what: "70x70 @ 70x3" });
      throws(
        () => torch.ones([2, 3]).matmul(torch.ones([4, 5])),
        torch.ShapeError,
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        "2x3 @ 4x5",
      );
    },
  },
];
