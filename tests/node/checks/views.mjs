// Checks of views and shapes, dtype conversions and metadata.
// Part of the shared API checks: see ./index.mjs.
import { eq, ok, throws, tensorIs } from "./assert.mjs";

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    // Expected values and strides printed by PyTorch 2.x (x.mT, x.T, x.permute(2, 1, 0)).
    name: "views: t.mT swaps the last two dims, t.T reverses all dims (views)",
    async run(torch) {
      const x = torch.arange(12).reshape(2, 3, 2);
      await tensorIs(
        x.mT,
        {
          shape: [2, 2, 3],
          values: [
            [
              [0, 2, 4],
              [1, 3, 5],
            ],
            [
              [6, 8, 10],
              [7, 9, 11],
            ],
          ],
        },
        "mT",
      );
      eq(x.mT.stride(), [6, 1, 2], "mT is a view (strides)");
      await tensorIs(
        torch.arange(6).reshape(2, 3).T,
        {
          shape: [3, 2],
          values: [
            [0, 3],
            [1, 4],
            [2, 5],
          ],
        },
        "T of a matrix",
      );
      await tensorIs(
        torch.arange(8).reshape(2, 2, 2).T,
        {
          values: [
            [
              [0, 4],
              [2, 6],
            ],
            [
              [1, 5],
              [3, 7],
            ],
          ],
        },
        "T of a 3-D tensor is permute(2, 1, 0)",
      );
      throws(
        () => torch.arange(3).mT,
        torch.TorchError,
        "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
        "mT of a 1-D tensor",
      );
    },
  },
  {
    name: "views: transpose/permute/t/view/expand share storage; contiguous copies",
    async run(torch) {
      const x = torch.arange(6).reshape(2, 3);
      const y = x.transpose(0, 1);
      await tensorIs(
        y,
        {
          shape: [3, 2],
          values: [
            [0, 3],
            [1, 4],
            [2, 5],
          ],
        },
        "transpose",
      );
      eq(y.stride(), [1, 3], "transpose strides");
      eq(y.is_contiguous(), false, "transpose is not contiguous");
      const yc = y.contiguous();
      eq(yc.is_contiguous(), true, "contiguous()");
      eq(yc.stride(), [2, 1], "contiguous strides");
      await tensorIs(
        yc,
        {
          values: [
            [0, 3],
            [1, 4],
            [2, 5],
          ],
        },
        "contiguous values",
      );
      await tensorIs(
        yc.view(-1),
        { shape: [6], values: [0, 3, 1, 4, 2, 5] },
        "contiguous().view(-1)",
      );
      await tensorIs(
        y.reshape(6),
        { values: [0, 3, 1, 4, 2, 5] },
        "reshape of a transposed view",
      );
      throws(
        () => y.view(6),
        torch.ShapeError,
        "view size is not compatible with input tensor's size and stride",
        "view of transposed",
      );
      await tensorIs(
        x.t(),
        {
          shape: [3, 2],
          values: [
            [0, 3],
            [1, 4],
            [2, 5],
          ],
        },
        "t()",
      );
      eq(torch.arange(3).t().shape, [3], "t() of 1-D");
      throws(
        () => torch.zeros(1, 2, 3).t(),
        torch.TorchError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
        "t() of 3-D",
      );
      const z = torch.arange(24).reshape(2, 3, 4);
      const p = z.permute(2, 0, 1);
      eq(p.shape, [4, 2, 3], "permute shape");
      eq(p.stride(), [1, 12, 4], "permute strides");
      eq((await p.tolist())[3][1][2], 1 * 12 + 2 * 4 + 3, "permute value");
      await tensorIs(
        z.permute([1, 0, 2]).contiguous().sum(-1),
        {
          values: [
            [6, 54],
            [22, 70],
            [38, 86],
          ],
        },
        "permute list + sum",
      );
      await tensorIs(z.view(4, -1), { shape: [4, 6] }, "view(4, -1)");
      await tensorIs(z.reshape([-1]), { shape: [24] }, "reshape([-1])");
      throws(
        () => z.view(5, -1),
        torch.ShapeError,
        "shape '[5, -1]' is invalid for input of size 24",
        "bad view",
      );
      const col = torch.tensor([[1], [2], [3]]);
      const e = col.expand(3, 4);
      eq(e.stride(), [1, 0], "expand strides");
      await tensorIs(
        e,
        {
          shape: [3, 4],
          values: [
            [1, 1, 1, 1],
            [2, 2, 2, 2],
            [3, 3, 3, 3],
          ],
        },
        "expand",
      );
      await tensorIs(
        col.expand([2, -1, 2]),
        { shape: [2, 3, 2] },
        "expand with -1 and a new dim",
      );
      await tensorIs(
        e.add(torch.ones([3, 4], { dtype: "int64" })).sum(1),
        { values: [8, 12, 16] },
        "op on expanded view",
      );
      // A view keeps its storage alive after its base is disposed.
      const base = torch.arange(4, { dtype: "float32" });
      const v = base.view(2, 2).transpose(0, 1);
      base.dispose();
      await tensorIs(
        v,
        {
          values: [
            [0, 2],
            [1, 3],
          ],
        },
        "view after its base is disposed",
      );
      // Ops read strided inputs directly: an elementwise op on a transpose gives transposed values.
      await tensorIs(
        y.mul(10),
        {
          values: [
            [0, 30],
            [10, 40],
            [20, 50],
          ],
        },
        "op on transposed view",
      );
      await tensorIs(
        z
          .transpose(0, 2)
          .matmul(torch.ones([2, 1], { dtype: "int64" }))
          .view(4, 3),
        {
          values: [
            [12, 20, 28],
            [14, 22, 30],
            [16, 24, 32],
            [18, 26, 34],
          ],
        },
        "matmul of permuted view",
      );
    },
  },
  {
    name: "dtype conversion: to/float/int/long/bool",
    async run(torch) {
      const x = torch.tensor([1.7, -1.7, 0, 2.5]);
      await tensorIs(
        x.to("int32"),
        { dtype: "int32", values: [1, -1, 0, 2] },
        "to int32 truncates",
      );
      await tensorIs(
        x.int(),
        { dtype: "int32", values: [1, -1, 0, 2] },
        "int()",
      );
      await tensorIs(
        x.long(),
        { dtype: "int64", values: [1, -1, 0, 2] },
        "long()",
      );
      await tensorIs(
        x.bool(),
        { dtype: "bool", values: [true, true, false, true] },
        "bool()",
      );
      await tensorIs(
        x.to({ dtype: torch.bool }),
        { dtype: "bool" },
        "to({dtype})",
      );
      await tensorIs(
        torch.tensor([1, 2]).float(),
        { dtype: "float32", values: [1, 2] },
        "float()",
      );
      await tensorIs(
        torch.tensor([true, false]).float(),
        { dtype: "float32", values: [1, 0] },
        "bool → float",
      );
      await tensorIs(
        torch.tensor([300, 2]).to("uint8"),
        { dtype: "uint8", values: [44, 2] },
        "int64 → uint8 wraps",
      );
    },
  },
  {
    name: "metadata: shape, size, stride, ndim, numel, toString",
    async run(torch) {
      const x = torch.zeros(2, 3, 4);
      eq(x.shape, [2, 3, 4], "shape");
      eq(x.size(), [2, 3, 4], "size()");
      eq(x.size(-1), 4, "size(-1)");
      eq(x.stride(), [12, 4, 1], "stride()");
      eq(x.stride(0), 12, "stride(0)");
      eq([x.ndim, x.dim(), x.numel()], [3, 3, 24], "ndim, dim(), numel()");
      ok(Object.isFrozen(x.shape), "shape is frozen");
      throws(
        () => x.size(3),
        torch.IndexError,
        "Dimension out of range (expected to be in range of [-3, 2], but got 3)",
        "size(3)",
      );
      // PyTorch's text when the values are on the host; the size and dtype until a GPU read.
      const text = x.toString();
      ok(
        x.device === "cpu"
          ? text === (await x.format())
          : text.includes("size=(2, 3, 4)") &&
              text.includes("dtype=torch.float32"),
        `toString(): ${text}`,
      );
      ok(torch.is_tensor(x) && !torch.is_tensor([1]), "is_tensor");
    },
  },
];
