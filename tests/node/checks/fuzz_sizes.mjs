// A size fuzz: the public functions that take sizes or counts, called with hostile values (huge,
// negative, fractional, NaN, infinite, strings, BigInts, null, empty and nested lists). Each call
// must return a tensor of the right shape or throw a TorchError subclass — never a raw JS error,
// a wasm trap or a V8 fatal error (which would end the process) — and the engine must compute a
// known answer exactly afterwards. Part of the shared API checks: see ./index.mjs.
import { eq, ok, show } from "./assert.mjs";
import { engineWorks } from "./limits.mjs";

// The hostile values. 2^28 and 2^31 - 1 are sizes a tensor may really have (views of one element
// cost nothing); the others are beyond what the core takes or not sizes at all.
const BIG = [2 ** 28, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 40, 2 ** 53, 2 ** 63];
const BAD = [
  -1,
  0.5,
  NaN,
  Infinity,
  -Infinity,
  "3",
  3n,
  null,
  [],
  [[2]],
  [2, [3]],
];
const HOSTILE = [...BIG, ...BAD];

// Seeded pairs of hostile values per CPU run.
const PAIRS = 160;

const isSize = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0;
// Not a size under any reading: a TorchError is the only right answer.
const never = (v) =>
  (typeof v === "number" && !Number.isInteger(v)) ||
  typeof v === "string" ||
  typeof v === "bigint";

/** mulberry32: a seeded generator, so that a failure names a case that reruns the same. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The calls, each `[name, call(v), shape(v)]`: `shape` gives the expected shape when the call
 * succeeds with size `v` (a non-negative integer), or `undefined` when only the kind of outcome is
 * checked. Arguments that are not sizes stay small so that a success is cheap.
 */
function calls(torch, device) {
  const o = { device };
  const F = torch.nn.functional;
  const x4 = () => torch.ones(1, 1, 4, 4, o);
  const x3 = () => torch.ones(1, 1, 4, o);
  const v = () => torch.arange(6, o);
  const one = () => torch.ones(1, o);
  return [
    ["zeros", (n) => torch.zeros(n, o), (n) => [n]],
    ["ones([n, 2])", (n) => torch.ones([n, 2], o), (n) => [n, 2]],
    ["empty", (n) => torch.empty(n, o), (n) => [n]],
    ["full", (n) => torch.full([n], 7, o), (n) => [n]],
    ["rand", (n) => torch.rand(n, o), (n) => [n]],
    ["randn", (n) => torch.randn(2, n, o), (n) => [2, n]],
    ["randint", (n) => torch.randint(0, 5, [n], o), (n) => [n]],
    // arange takes any numbers (arange(0.5) is [0]): only its size is checked.
    ["arange(n)", (n) => torch.arange(n, o), (n) => [n], true],
    ["arange(0, 1, step)", (n) => torch.arange(0, 1, n, o), undefined, true],
    ["linspace", (n) => torch.linspace(0, 1, n, o), (n) => [n]],
    ["logspace", (n) => torch.logspace(0, 1, n, 10, o), (n) => [n]],
    ["eye", (n) => torch.eye(n, 3, o), (n) => [n, 3]],
    ["tril_indices", (n) => torch.tril_indices(n, n, 0, o), undefined],
    ["triu_indices", (n) => torch.triu_indices(3, n, 1, o), undefined],
    ["tril_indices offset", (n) => torch.tril_indices(4, 5, n, o), undefined],
    ["view", (n) => v().view(n, -1), undefined],
    ["reshape", (n) => v().reshape([2, n]), undefined],
    ["expand", (n) => one().expand(n), (n) => [n]],
    ["expand 2-D", (n) => one().expand(n, n), (n) => [n, n]],
    ["repeat", (n) => one().repeat(n), (n) => [n]],
    ["tile", (n) => one().tile([n]), (n) => [n]],
    ["unflatten", (n) => v().unflatten(0, [n, -1]), undefined],
    ["new_zeros", (n) => one().new_zeros([n]), (n) => [n]],
    [
      "interpolate size",
      (n) => F.interpolate(x3(), { size: n }),
      (n) => [1, 1, n],
    ],
    [
      "interpolate bilinear",
      (n) => F.interpolate(x4(), { size: [2, n], mode: "bilinear" }),
      (n) => [1, 1, 2, n],
    ],
    [
      "interpolate scale",
      (n) => F.interpolate(x3(), { scale_factor: n }),
      undefined,
      true,
    ],
    ["upsample", (n) => F.upsample(x4(), { size: n }), (n) => [1, 1, n, n]],
    ["max_pool2d kernel", (n) => F.max_pool2d(x4(), n), undefined],
    ["max_pool2d stride", (n) => F.max_pool2d(x4(), 2, n), undefined],
    ["max_pool2d padding", (n) => F.max_pool2d(x4(), 4, 1, n), undefined],
    ["avg_pool2d kernel", (n) => F.avg_pool2d(x4(), n), undefined],
    ["max_pool1d kernel", (n) => F.max_pool1d(x3(), n), undefined],
    [
      "adaptive_avg_pool2d",
      (n) => F.adaptive_avg_pool2d(x4(), n),
      (n) => [1, 1, n, n],
    ],
    [
      "adaptive_max_pool2d",
      (n) => F.adaptive_max_pool2d(x4(), n),
      (n) => [1, 1, n, n],
    ],
    [
      "adaptive_avg_pool1d",
      (n) => F.adaptive_avg_pool1d(x3(), n),
      (n) => [1, 1, n],
    ],
    [
      "one_hot",
      (n) => F.one_hot(torch.tensor([0, 1], { ...o, dtype: "int64" }), n),
      (n) => [2, n],
    ],
    ["Tensor.unfold size", (n) => v().unfold(0, n, 1), undefined],
    ["Tensor.unfold step", (n) => v().unfold(0, 2, n), undefined],
    ["pad", (n) => F.pad(torch.ones(2, o), [n, 0]), (n) => [2 + n]],
    ["topk", (n) => v().float().topk(n).values, (n) => [n]],
    ["kthvalue", (n) => v().float().kthvalue(n).values, () => []],
    [
      "multinomial",
      (n) => torch.multinomial(torch.ones(3, o), n, true),
      (n) => [n],
    ],
    ["randperm", (n) => torch.randperm(n, o), (n) => [n]],
    [
      "bincount minlength",
      (n) =>
        torch.bincount(torch.tensor([1], { ...o, dtype: "int64" }), null, n),
      (n) => [Math.max(n, 2)],
    ],
    ["histc bins", (n) => torch.histc(torch.ones(3, o), n), (n) => [n]],
    ["narrow length", (n) => v().narrow(0, 0, n), (n) => [n]],
    ["narrow start", (n) => v().narrow(0, n, 1), () => [1]],
    ["split", (n) => v().split(n)[0], undefined],
    ["chunk", (n) => v().chunk(n)[0], undefined],
    ["tensor_split", (n) => v().tensor_split(n)[0], undefined],
    ["combinations r", (n) => torch.combinations(v(), n), undefined],
    [
      "cartesian_prod",
      (n) => torch.cartesian_prod(one().expand(n), v()),
      (n) => [6 * n, 2],
    ],
  ];
}

const name = (v) =>
  Array.isArray(v)
    ? `[${v.map(name).join(", ")}]`
    : typeof v === "bigint"
      ? `${v}n`
      : typeof v === "string"
        ? JSON.stringify(v)
        : String(v);

/**
 * Runs `thunk`: it must return (a tensor of shape `expected` when that is given) or throw a
 * TorchError, and must throw when `mustThrow`; then the engine must still compute.
 */
async function tryCall(torch, device, what, thunk, expected, mustThrow, seen) {
  let out;
  try {
    out = await thunk();
  } catch (e) {
    ok(
      e instanceof torch.TorchError,
      `${what} on ${device} threw ${e?.name}: ${e?.message} (not a TorchError)`,
    );
    // A trap the guard caught is a TorchError too, but a size must be refused before one.
    ok(
      !(e instanceof torch.InternalError) &&
        !e.message.startsWith("webtorch core out of memory in "),
      `${what} on ${device} trapped in the core: ${e.message}`,
    );
    seen.errors++;
    await engineWorks(torch, device, what);
    return;
  }
  seen.values++;
  ok(!mustThrow, `${what} on ${device} accepted a value that is no size`);
  if (out instanceof torch.Tensor) {
    if (expected !== undefined) eq(out.shape, expected, `${what}'s shape`);
    out.dispose();
  }
  await engineWorks(torch, device, what);
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "size fuzz: hostile sizes give a right-shaped result or a TorchError, never a crash",
    async run(torch, { device }) {
      // A small budget makes every size the CPU cannot hold fail fast (WebGPU tensors are lazy:
      // results are checked by shape, never read).
      const budget = torch.cpu.memory_budget();
      torch.cpu.set_memory_budget(64 * 2 ** 20);
      const seen = { values: 0, errors: 0 };
      try {
        const table = calls(torch, device);
        // On WebGPU (SwiftShader in the tests: slow) every call once with a few values; on the
        // CPU every call with every value, then seeded pairs.
        const values =
          device === "cpu"
            ? HOSTILE
            : [2 ** 31, 2 ** 53, -1, 0.5, NaN, "3", 3n, null, []];
        for (const [fn, call, shape, numbers] of table)
          for (const value of values) {
            await tryCall(
              torch,
              device,
              `${fn}(${name(value)})`,
              () => call(value),
              shape !== undefined && isSize(value) ? shape(value) : undefined,
              never(value) && !(numbers && typeof value === "number"),
              seen,
            );
          }
        if (device === "cpu") {
          const next = rng(0x5eed);
          const pick = () => HOSTILE[Math.floor(next() * HOSTILE.length)];
          const o = { device };
          const pairs = [
            [
              "zeros(a, b)",
              ([a, b]) => torch.zeros(a, b, o),
              ([a, b]) => [a, b],
            ],
            [
              "view(a, b)",
              ([a, b]) => torch.arange(6, o).view(a, b),
              undefined,
            ],
            [
              "expand(a, b)",
              ([a, b]) => torch.ones(1, 1, o).expand(a, b),
              ([a, b]) => [a, b],
            ],
            [
              "arange(a, b)",
              ([a, b]) => torch.arange(a, b, o),
              undefined,
              true,
            ],
            ["eye(a, b)", ([a, b]) => torch.eye(a, b, o), ([a, b]) => [a, b]],
            [
              "tril_indices(a, b)",
              ([a, b]) => torch.tril_indices(a, b, 0, o),
              undefined,
            ],
            [
              "interpolate [a, b]",
              ([a, b]) =>
                torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2, o), {
                  size: [a, b],
                }),
              ([a, b]) => [1, 1, a, b],
            ],
            [
              "narrow(0, a, b)",
              ([a, b]) => torch.arange(6, o).narrow(0, a, b),
              undefined,
            ],
          ];
          for (let i = 0; i < PAIRS; i++) {
            const [fn, call, shape, numbers] = pairs[i % pairs.length];
            const pair = [pick(), pick()];
            await tryCall(
              torch,
              device,
              `${fn} with ${name(pair)} (seed 0x5eed, #${i})`,
              () => call(pair),
              shape !== undefined && pair.every(isSize)
                ? shape(pair)
                : undefined,
              pair.some((p) => never(p) && !(numbers && typeof p === "number")),
              seen,
            );
          }
        }
      } finally {
        torch.cpu.set_memory_budget(budget);
      }
      ok(seen.values > 0 && seen.errors > 0, `outcomes: ${show(seen)}`);
    },
  },
];
