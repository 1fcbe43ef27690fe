// Checks of tensor creation: devices, torch.tensor and its dtype inference, factories, random numbers.
// Part of the shared API checks: see ./index.mjs.
import { eq, close, ok, throws, tensorIs, show } from "./assert.mjs";

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "device: default device, adapter, tensors land on it",
    async run(torch, { device }) {
      eq(torch.get_default_device(), device, "get_default_device()");
      eq(torch.zeros(2).device, device, "zeros(2).device");
      eq(torch.tensor([1, 2]).device, device, "tensor().device");
      eq(
        torch.ones(1, { device: "cpu" }).device,
        "cpu",
        "ones(1, {device: 'cpu'}).device",
      );
      if (device === "webgpu") {
        ok(
          torch.webgpu.is_available(),
          "torch.webgpu.is_available() should be true",
        );
        const info = torch._C.adapter_info();
        ok(
          info !== null && typeof info === "object",
          "adapter_info() should describe a real adapter",
        );
        ok(
          Array.isArray(info.features),
          "adapter_info().features should be an array",
        );
        ok(
          typeof info.limits === "object" && info.limits !== null,
          "adapter_info().limits should be an object",
        );
        ok(
          [info.vendor, info.architecture, info.name, info.description].some(
            (s) => typeof s === "string" && s.length > 0,
          ),
          `adapter_info() should name the adapter: ${show(info)}`,
        );
      }
    },
  },
  {
    name: "tensor(): data and dtype inference as in PyTorch",
    async run(torch) {
      await tensorIs(
        torch.tensor([
          [1, 2],
          [3, 4],
        ]),
        {
          shape: [2, 2],
          dtype: "int64",
          values: [
            [1, 2],
            [3, 4],
          ],
        },
        "ints",
      );
      await tensorIs(
        torch.tensor([1.5, 2]),
        { shape: [2], dtype: "float32", values: [1.5, 2] },
        "floats",
      );
      await tensorIs(
        torch.tensor([true, false]),
        { shape: [2], dtype: "bool", values: [true, false] },
        "bools",
      );
      await tensorIs(
        torch.tensor([true, 2]),
        { dtype: "int64", values: [1, 2] },
        "bool+int",
      );
      await tensorIs(
        torch.tensor(3),
        { shape: [], dtype: "int64", values: 3 },
        "int scalar",
      );
      await tensorIs(
        torch.tensor(-2.5),
        { shape: [], dtype: "float32", values: -2.5 },
        "float scalar",
      );
      await tensorIs(
        torch.tensor([]),
        { shape: [0], dtype: "float32", values: [] },
        "empty",
      );
      await tensorIs(
        torch.tensor([[], []]),
        { shape: [2, 0], dtype: "float32", values: [[], []] },
        "empty rows",
      );
      await tensorIs(
        torch.tensor(new Float32Array([0.5, -1])),
        { shape: [2], dtype: "float32", values: [0.5, -1] },
        "Float32Array",
      );
      await tensorIs(
        torch.tensor(new Int32Array([7, -8])),
        { dtype: "int32", values: [7, -8] },
        "Int32Array",
      );
      await tensorIs(
        torch.tensor(new Uint8Array([255, 0])),
        { dtype: "uint8", values: [255, 0] },
        "Uint8Array",
      );
      await tensorIs(
        torch.tensor([new Float32Array([1, 2]), new Float32Array([3, 4])]),
        { shape: [2, 2], dtype: "float32" },
        "rows of Float32Array",
      );
      await tensorIs(
        torch.tensor([[1, 2]], { dtype: torch.float32 }),
        { dtype: "float32", values: [[1, 2]] },
        "dtype option",
      );
      await tensorIs(
        torch.tensor([0, 3, 0], { dtype: "bool" }),
        { dtype: "bool", values: [false, true, false] },
        "to bool",
      );
      await tensorIs(
        torch.tensor([NaN, Infinity, -Infinity]),
        { dtype: "float32", values: [NaN, Infinity, -Infinity] },
        "non-finite",
      );
      eq(
        [torch.float32, torch.int32, torch.int64, torch.uint8, torch.bool],
        ["float32", "int32", "int64", "uint8", "bool"],
        "dtype values",
      );
    },
  },
  {
    name: "tensor(): ragged and invalid data throw PyTorch's errors",
    async run(torch) {
      throws(
        () => torch.tensor([[1, 2], [3]]),
        torch.TorchError,
        "expected sequence of length 2 at dim 1 (got 1)",
        "ragged",
      );
      throws(
        () => torch.tensor([[1, 2], 3]),
        torch.TorchError,
        "expected sequence of length 2 at dim 1",
        "scalar for a row",
      );
      throws(
        () => torch.tensor([1, "a"]),
        torch.TorchError,
        "new(): invalid data type 'str'",
        "string",
      );
      throws(
        () => torch.tensor([1], { dtype: "complex64" }),
        torch.DTypeError,
        "complex64",
        "unknown dtype",
      );
    },
  },
  {
    name: "factories: zeros, ones, full, arange with PyTorch's overloads and dtypes",
    async run(torch) {
      await tensorIs(
        torch.zeros(2, 3),
        {
          shape: [2, 3],
          dtype: "float32",
          values: [
            [0, 0, 0],
            [0, 0, 0],
          ],
        },
        "zeros(2, 3)",
      );
      await tensorIs(
        torch.zeros([2, 1]),
        { shape: [2, 1], values: [[0], [0]] },
        "zeros([2, 1])",
      );
      await tensorIs(torch.zeros(), { shape: [], values: 0 }, "zeros()");
      await tensorIs(
        torch.ones([3], { dtype: "int32" }),
        { dtype: "int32", values: [1, 1, 1] },
        "ones int32",
      );
      await tensorIs(
        torch.ones(2, { dtype: torch.bool }),
        { dtype: "bool", values: [true, true] },
        "ones bool",
      );
      await tensorIs(
        torch.zeros([0, 3]),
        { shape: [0, 3], values: [] },
        "zeros size 0",
      );
      await tensorIs(
        torch.full([2, 2], 7),
        {
          dtype: "int64",
          values: [
            [7, 7],
            [7, 7],
          ],
        },
        "full int",
      );
      await tensorIs(
        torch.full([1], 0.5),
        { dtype: "float32", values: [0.5] },
        "full float",
      );
      await tensorIs(
        torch.full([2], true),
        { dtype: "bool", values: [true, true] },
        "full bool",
      );
      await tensorIs(
        torch.arange(5),
        { shape: [5], dtype: "int64", values: [0, 1, 2, 3, 4] },
        "arange(5)",
      );
      await tensorIs(
        torch.arange(1, 4),
        { dtype: "int64", values: [1, 2, 3] },
        "arange(1, 4)",
      );
      await tensorIs(
        torch.arange(10, 0, -3),
        { dtype: "int64", values: [10, 7, 4, 1] },
        "arange(10, 0, -3)",
      );
      await tensorIs(
        torch.arange(0, 1, 0.25),
        { dtype: "float32", values: [0, 0.25, 0.5, 0.75] },
        "arange float step",
      );
      await tensorIs(
        torch.arange(3, { dtype: "float32" }),
        { dtype: "float32", values: [0, 1, 2] },
        "arange dtype",
      );
      throws(
        () => torch.zeros(2.5),
        torch.TorchError,
        "must be tuple of ints",
        "zeros(2.5)",
      );
    },
  },
  {
    name: "rand/randn: shapes, ranges, moments, manual_seed repeats across devices",
    async run(torch) {
      eq(torch.randn(2, 3).shape, [2, 3], "randn(2, 3).shape");
      eq(torch.randn([2, 3]).shape, [2, 3], "randn([2, 3]).shape");
      eq(torch.rand(4).dtype, "float32", "rand dtype");
      torch.manual_seed(0);
      const a = await torch.rand(1000).toArray();
      torch.manual_seed(0);
      const b = await torch.rand(1000).toArray();
      eq(a, b, "same seed, same numbers");
      ok(
        a.every((x) => x >= 0 && x < 1),
        "rand in [0, 1)",
      );
      const meanA = a.reduce((s, x) => s + x, 0) / a.length;
      ok(Math.abs(meanA - 0.5) < 0.05, `rand mean ≈ 0.5, got ${meanA}`);
      torch.manual_seed(1);
      const c = await torch.rand(1000).toArray();
      ok(!a.every((x, i) => x === c[i]), "another seed gives other numbers");
      torch.manual_seed(42);
      const n = await torch.randn(4000).toArray();
      const m = n.reduce((s, x) => s + x, 0) / n.length;
      const sd = Math.sqrt(n.reduce((s, x) => s + (x - m) ** 2, 0) / n.length);
      ok(
        Math.abs(m) < 0.1 && Math.abs(sd - 1) < 0.1,
        `randn moments ≈ (0, 1), got (${m}, ${sd})`,
      );
      torch.manual_seed(7);
      const onCpu = await torch.randn([64], { device: "cpu" }).toArray();
      torch.manual_seed(7);
      const onDefault = await torch.randn([64]).toArray();
      close(onDefault, onCpu, {
        atol: 1e-5,
        what: "randn: same seed on the default device and the CPU",
      });
    },
  },
];
