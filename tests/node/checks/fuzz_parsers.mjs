// Fuzzing the parsers that take untrusted input: safetensors files (torch.loadBytes), einsum
// equations and einops patterns. Seeded random mutations of valid input; each must either parse into something
// consistent or throw a TorchError — never another error, a hang or an allocation the input's
// size does not justify. Runs in Node and in Chromium like the other checks.
import { CheckFailure } from "./assert.mjs";

/** A small seeded generator (mulberry32), so a failing input can be replayed by its case number. */
function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    below: (n) => Math.floor(next() * n),
    pick: (a) => a[Math.floor(next() * a.length)],
  };
}

export const SAFETENSORS_CASES = 400;
export const EINSUM_CASES = 400;
export const EINOPS_CASES = 400;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A safetensors file with `header` (an object) and `data` bytes. */
function file(header, data = new Uint8Array(0)) {
  const json = enc.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const HOSTILE_VALUES = [
  -1,
  0.5,
  2 ** 31,
  2 ** 40,
  2 ** 53 + 2,
  1e308,
  "8",
  null,
  [],
  {},
  true,
];
const DTYPES = [
  "F32",
  "F16",
  "BF16",
  "I32",
  "I64",
  "U8",
  "BOOL",
  "F64",
  "X",
  "",
  4,
];

/** One malformed variant of the valid file `good` (header `hdr`, data `data`). */
function mutate(r, good, hdr, data) {
  const kind = r.below(8);
  if (kind === 0) {
    // flip bytes anywhere
    const b = good.slice();
    for (let i = 0, n = 1 + r.below(8); i < n; i++)
      b[r.below(b.length)] = r.below(256);
    return b;
  }
  if (kind === 1) return good.slice(0, r.below(good.length)); // truncated
  if (kind === 2) {
    // a header size that lies (small, huge, past the end)
    const b = good.slice();
    const v = r.pick([
      0n,
      1n,
      7n,
      2n ** 40n,
      2n ** 63n,
      BigInt(b.length),
      BigInt(r.below(200)),
    ]);
    new DataView(b.buffer).setBigUint64(0, v, true);
    return b;
  }
  const h = JSON.parse(JSON.stringify(hdr));
  const names = Object.keys(h).filter((n) => n !== "__metadata__");
  const e = h[r.pick(names)];
  if (kind === 3)
    e.shape = Array.from({ length: r.below(5) }, () =>
      r.pick([0, 1, 2, 3, ...HOSTILE_VALUES]),
    );
  else if (kind === 4)
    e.data_offsets = [
      r.pick([0, 4, ...HOSTILE_VALUES]),
      r.pick([0, 16, 24, ...HOSTILE_VALUES]),
    ];
  else if (kind === 5) e.dtype = r.pick(DTYPES);
  else if (kind === 6) {
    // hostile names and shapes: many dims, prototype keys, metadata of the wrong type
    const which = r.below(4);
    if (which === 0) e.shape = Array(100).fill(1);
    else if (which === 1)
      Object.defineProperty(h, "__proto__", {
        value: { dtype: "F32", shape: [0], data_offsets: [0, 0] },
        enumerable: true,
      });
    else if (which === 2) h.__metadata__ = r.pick([5, "x", { a: 1 }, null]);
    else h[r.pick(names)] = r.pick(HOSTILE_VALUES);
  } else {
    // not JSON, or JSON of the wrong shape
    const text = r.pick([
      "",
      "[]",
      "null",
      "{",
      '{"a":',
      "\u0000",
      JSON.stringify(h).slice(0, -1),
    ]);
    const json = enc.encode(text);
    const b = new Uint8Array(8 + json.length);
    new DataView(b.buffer).setBigUint64(0, BigInt(json.length), true);
    b.set(json, 8);
    return b;
  }
  return file(h, data);
}

/** Every loaded tensor must agree with the header it came from. */
function consistent(dict, bytes) {
  let total = 0;
  for (const t of Object.values(dict)) total += t.numel();
  return total <= bytes.length; // never more elements than the file has bytes
}

async function fuzzSafetensors(torch, device) {
  const a = torch.arange(6, { device }).float().reshape(2, 3);
  const b = torch.tensor([1, 2, 3, 4], { dtype: "int32", device });
  const good = await torch.save({ a, b });
  a.dispose();
  b.dispose();
  const n = Number(
    new DataView(good.buffer, good.byteOffset).getBigUint64(0, true),
  );
  const hdr = JSON.parse(dec.decode(good.subarray(8, 8 + n)));
  const data = good.slice(8 + n);
  const problems = [];
  let refused = 0;
  for (let i = 0; i < SAFETENSORS_CASES; i++) {
    const bytes = mutate(rng(i), good, hdr, data);
    try {
      const dict = torch.loadBytes(bytes, { device });
      const ok = consistent(dict, bytes);
      for (const t of Object.values(dict)) t.dispose();
      if (!ok)
        problems.push(
          `case ${i}: loaded more elements than the file has bytes`,
        );
    } catch (e) {
      refused++;
      if (!(e instanceof torch.TorchError))
        problems.push(`case ${i}: ${e?.name}: ${e?.message}`);
    }
  }
  for (const junk of [
    undefined,
    null,
    "file",
    42,
    [1, 2, 3],
    new ArrayBuffer(16),
  ]) {
    try {
      torch.loadBytes(junk);
      problems.push(`loadBytes(${typeof junk}) returned`);
    } catch (e) {
      if (!(e instanceof torch.TorchError))
        problems.push(`loadBytes(${typeof junk}): ${e?.name}: ${e?.message}`);
    }
  }
  if (refused < SAFETENSORS_CASES / 2)
    problems.push(
      `only ${refused} of ${SAFETENSORS_CASES} mutations were refused: the fuzzer is not mutating`,
    );
  return problems;
}

async function fuzzEinsum(torch, device) {
  const alphabet = [
    "i",
    "j",
    "k",
    "a",
    "B",
    ",",
    "-",
    ">",
    "->",
    ".",
    "...",
    " ",
    "$",
    "1",
  ];
  const problems = [];
  let accepted = 0;
  for (let i = 0; i < EINSUM_CASES; i++) {
    const r = rng(10_000 + i);
    const eq = Array.from({ length: 1 + r.below(10) }, () =>
      r.pick(alphabet),
    ).join("");
    const ops = Array.from({ length: r.below(4) }, () =>
      torch.ones(
        Array.from({ length: r.below(4) }, () => 1 + r.below(3)),
        { device },
      ),
    );
    try {
      const out = torch.einsum(eq, ...ops);
      const values = await out.toArray();
      if (values.length !== out.numel())
        problems.push(
          `${eq}: ${values.length} values for ${out.numel()} elements`,
        );
      accepted++;
      out.dispose();
    } catch (e) {
      if (!(e instanceof torch.TorchError))
        problems.push(
          `einsum(${JSON.stringify(eq)}): ${e?.name}: ${e?.message}`,
        );
    } finally {
      for (const t of ops) t.dispose();
    }
  }
  if (accepted === 0)
    problems.push("no random equation was valid: the generator is broken");
  return problems;
}

// Valid einops calls to start from: [op, pattern, shape, lengths].
const EINOPS_SEEDS = [
  ["rearrange", "b c h w -> b (h w) c", [2, 3, 2, 2]],
  ["rearrange", "b (h w) -> b h w", [2, 6], { h: 2 }],
  ["rearrange", "... c -> c ...", [2, 3]],
  ["rearrange", "a 1 b -> b () a", [2, 1, 3]],
  ["sum", "b c (h 2) -> b h", [1, 2, 4]],
  ["max", "b ... -> b", [2, 3, 2]],
  ["repeat", "h w -> (h 2) w k", [2, 3], { k: 2 }],
  ["pack", "b * c", [2, 3, 2]],
  ["unpack", "b * c", [2, 3, 2]],
];
const EINOPS_TOKENS = [
  "a",
  "b",
  "h",
  "k",
  "_",
  "x_",
  "1",
  "2",
  "0",
  "12",
  " ",
  "(",
  ")",
  "()",
  "->",
  "-",
  ">",
  ".",
  "...",
  "\u2026",
  "*",
  ",",
  "$",
  "é",
  "\u0000",
];

/** A valid einops call with 0–3 random edits of its pattern, rank or lengths. */
function einopsMutant(r) {
  const [op, good, goodShape, goodLengths] = r.pick(EINOPS_SEEDS);
  let pattern = good;
  for (let k = r.below(4); k > 0; k--) {
    const at = r.below(pattern.length + 1);
    const edit = r.below(3); // 0: insert, 1: replace one char, 2: delete one char
    pattern =
      pattern.slice(0, at) +
      (edit === 2 ? "" : r.pick(EINOPS_TOKENS)) +
      pattern.slice(at + (edit > 0 ? 1 : 0));
  }
  const shape =
    r.below(4) === 0
      ? goodShape.slice(0, r.below(goodShape.length + 1))
      : goodShape;
  const lengths =
    r.below(4) === 0
      ? { [r.pick(["a", "h", "q", "_"])]: r.below(4) }
      : goodLengths;
  return [op, pattern, shape, lengths];
}

async function fuzzEinops(torch, device) {
  const { rearrange, reduce, repeat, pack, unpack } = torch.einops;
  const call = {
    rearrange: (x, p, l) => rearrange(x, p, l),
    sum: (x, p, l) => reduce(x, p, "sum", l),
    max: (x, p, l) => reduce(x, p, "max", l),
    repeat: (x, p, l) => repeat(x, p, l),
    pack: (x, p) => pack([x, x], p)[0],
    unpack: (x, p) => unpack(x, [[1], [-1]], p)[0],
  };
  const problems = [];
  let accepted = 0;
  for (let i = 0; i < EINOPS_CASES; i++) {
    const [op, pattern, shape, lengths] = einopsMutant(rng(50_000 + i));
    const x = torch.ones(shape, { device });
    try {
      const out = call[op](x, pattern, lengths);
      const values = await out.toArray();
      if (values.length !== out.numel())
        problems.push(
          `#${i} ${JSON.stringify(pattern)}: ${values.length} values for ${out.numel()}`,
        );
      accepted++;
      out.dispose();
    } catch (e) {
      if (!(e instanceof torch.TorchError))
        problems.push(
          `#${i} ${op}(${JSON.stringify(pattern)}) on [${shape}]: ${e?.name}: ${e?.message}`,
        );
    } finally {
      x.dispose();
    }
  }
  // Both outcomes must be common, or the generator tests nothing.
  if (accepted < 40 || accepted > EINOPS_CASES - 40)
    problems.push(
      `${accepted} of ${EINOPS_CASES} mutated calls were valid: the generator is broken`,
    );
  return problems;
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: `fuzz: ${SAFETENSORS_CASES} malformed safetensors files are refused with a TorchError or load consistently`,
    async run(torch, { device }) {
      const problems = await fuzzSafetensors(torch, device);
      if (problems.length)
        throw new CheckFailure(problems.slice(0, 20).join("\n"));
      const x = torch.tensor([1.5, 2.5], { device });
      if ((await x.sum().item()) !== 4)
        throw new CheckFailure("engine broken after the fuzz");
    },
  },
  {
    name: `fuzz: ${EINSUM_CASES} random einsum equations give a result or a TorchError`,
    async run(torch, { device }) {
      const problems = await fuzzEinsum(torch, device);
      if (problems.length)
        throw new CheckFailure(problems.slice(0, 20).join("\n"));
    },
  },
  {
    name: `fuzz: ${EINOPS_CASES} mutated einops patterns give a result or a TorchError`,
    async run(torch, { device }) {
      const problems = await fuzzEinops(torch, device);
      if (problems.length)
        throw new CheckFailure(problems.slice(0, 20).join("\n"));
    },
  },
];
