// torch.save / torch.load (safetensors) — files written by PyTorch's safetensors.torch load with
// their values; webtorch's bytes are those PyTorch read back (fixtures from
// tests/parity/train_gen.py and train_save.mjs); malformed headers are refused with clear errors;
// every source (bytes, streams, Blobs, Node files) is read chunk by chunk with the same result.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createReadStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";
import { SAVED_STATE } from "../parity/train_save.mjs";

const torch = await import(PKG_ENTRY.href);
const dir = new URL("../parity/fixtures/train/", import.meta.url);
const EXPECTED = JSON.parse(readFileSync(new URL("dtypes.json", dir)));
const PT_READ = JSON.parse(
  readFileSync(new URL("pytorch_read_webtorch.json", dir)),
);
const WEBTORCH_SAVED = new Uint8Array(
  readFileSync(new URL("webtorch_saved.safetensors", dir)),
);

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const DTYPE = {
  float32: "float32",
  float16: "float16",
  bfloat16: "bfloat16",
  int32: "int32",
  int64: "int64",
  uint8: "uint8",
  bool: "bool",
};

/** A safetensors file from a header object and data bytes. */
function file(header, data = new Uint8Array(0)) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

for (const device of devices) {
  describe(`[${device}] safetensors`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("loads every dtype PyTorch wrote (F16/BF16 as float16/bfloat16), from a URL, bytes and a Response", async () => {
      const progress = [];
      const fromUrl = await torch.load(new URL("dtypes.safetensors", dir), {
        onProgress: (n, t) => progress.push([n, t]),
      });
      const bytes = readFileSync(new URL("dtypes.safetensors", dir));
      const fromResponse = await torch.load(
        new Response(bytes, {
          headers: { "content-length": String(bytes.length) },
        }),
        {
          onProgress: (n, t) => progress.push([n, t]),
        },
      );
      const fromBuffer = await torch.load(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
      );
      assert.ok(
        progress.length >= 2 &&
          progress.at(-1)[0] === bytes.length &&
          progress.at(-1)[1] === bytes.length,
      );
      for (const sd of [fromUrl, fromResponse, fromBuffer]) {
        assert.deepEqual(Object.keys(sd).sort(), Object.keys(EXPECTED).sort());
        for (const [name, e] of Object.entries(EXPECTED)) {
          const t = sd[name];
          assert.equal(t.dtype, DTYPE[e.dtype], name);
          assert.equal(t.device, device);
          assert.deepEqual([...t.shape], e.shape, name);
          const v = Array.from(await t.toArray());
          if (e.dtype === "bool") assert.deepEqual(v, e.data.map(Number), name);
          else assertClose(v, e.data, 1e-7, name);
        }
      }
    });

    test("torch.save writes the bytes PyTorch read back (names, dtypes, shapes, values)", async () => {
      const state = SAVED_STATE(torch);
      const bytes = await torch.save(state);
      assert.deepEqual(
        bytes,
        WEBTORCH_SAVED,
        "same bytes as the file PyTorch verified",
      );
      for (const [name, t] of Object.entries(state)) {
        const pt = PT_READ[name];
        assert.equal(pt.dtype, t.dtype, name);
        assert.deepEqual(pt.shape, [...t.shape], name);
        const v = Array.from(await t.toArray());
        if (t.dtype === "bool") assert.deepEqual(pt.data, v.map(Boolean), name);
        else assertClose(v, pt.data, 0, name);
      }
      const back = await torch.load(bytes);
      for (const [name, t] of Object.entries(state))
        assert.deepEqual(await back[name].tolist(), await t.tolist(), name);
    });

    test("a model round-trips through save, load and load_state_dict", async () => {
      const a = new torch.nn.Sequential(
        new torch.nn.Linear(3, 2),
        new torch.nn.Tanh(),
      );
      const b = new torch.nn.Sequential(
        new torch.nn.Linear(3, 2),
        new torch.nn.Tanh(),
      );
      b.load_state_dict(await torch.load(await torch.save(a.state_dict())));
      assert.deepEqual(
        await b.at(0).weight.tolist(),
        await a.at(0).weight.tolist(),
      );
    });

    test("malformed files are refused with a clear TorchError", async () => {
      const f32 = (n) => new Uint8Array(4 * n);
      const cases = [
        [new Uint8Array(4), /too short/],
        [
          (() => {
            const b = new Uint8Array(16);
            new DataView(b.buffer).setBigUint64(0, 1000n, true);
            return b;
          })(),
          /runs past the end/,
        ],
        [
          (() => {
            const b = new Uint8Array(16);
            new DataView(b.buffer).setBigUint64(0, 2n ** 40n, true);
            return b;
          })(),
          /exceeds/,
        ],
        [file([1, 2]), /not a JSON object/],
        [
          file(
            { a: { dtype: "F32", shape: [2], data_offsets: [0, 8] } },
            f32(1),
          ),
          /run past the 4 data bytes/,
        ],
        [
          file(
            { a: { dtype: "F32", shape: [3], data_offsets: [0, 8] } },
            f32(2),
          ),
          /needs 12 bytes but data_offsets span 8/,
        ],
        [
          file(
            {
              a: { dtype: "F32", shape: [2], data_offsets: [0, 8] },
              b: { dtype: "F32", shape: [1], data_offsets: [4, 8] },
            },
            f32(2),
          ),
          /overlaps/,
        ],
        [
          file(
            { a: { dtype: "F32", shape: [1], data_offsets: [4, 8] } },
            f32(2),
          ),
          /hole/,
        ],
        [
          file(
            { a: { dtype: "F32", shape: [1], data_offsets: [0, 4] } },
            f32(2),
          ),
          /not described by the header/,
        ],
        [
          file(
            { a: { dtype: "Q4", shape: [1], data_offsets: [0, 1] } },
            new Uint8Array(1),
          ),
          /unknown dtype "Q4"/,
        ],
        [
          file({ a: { dtype: "F32", shape: [-1], data_offsets: [0, 0] } }),
          /non-negative integers/,
        ],
        [
          file(
            { a: { dtype: "F32", shape: [1], data_offsets: [4, 0] } },
            f32(1),
          ),
          /reversed/,
        ],
        [file({ __metadata__: { n: 1 } }), /__metadata__/],
      ];
      for (const [bytes, re] of cases) {
        await assert.rejects(
          () => torch.load(bytes),
          (err) => err instanceof torch.TorchError && re.test(err.message),
          String(re),
        );
      }
      await assert.rejects(
        () =>
          torch.load(
            file(
              { a: { dtype: "I16", shape: [1], data_offsets: [0, 2] } },
              new Uint8Array(2),
            ),
          ),
        torch.DTypeError,
      );
      const big = new Uint8Array(8);
      new DataView(big.buffer).setBigInt64(0, 1n << 40n, true);
      await assert.rejects(
        () =>
          torch.load(
            file(
              { a: { dtype: "I64", shape: [1], data_offsets: [0, 8] } },
              big,
            ),
          ),
        /outside webtorch's 32-bit/,
      );
      const empty = await torch.load(
        file({ e: { dtype: "F32", shape: [0, 3], data_offsets: [0, 0] } }),
      );
      assert.deepEqual([...empty.e.shape], [0, 3]);
    });
  });
}

// Streaming: every source is read a chunk at a time (forced small here so that a few KiB span
// many chunks and elements straddle chunk and stream-piece boundaries), every dtype is converted
// straight into the tensor's storage, and bad or short files free what they had made.
const CHUNK = 100; // bytes per read and conversion: not a multiple of 8, so elements straddle

/** float32 value of float16 bits (the reference the loader's table must match). */
function half(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** A seeded generator of 32-bit words. */
function words(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

/** One tensor of every dtype: file bytes and the values a read must give. */
function everyDtype() {
  const r = words(7);
  const t = {};
  {
    const v = new Float32Array(777);
    for (let i = 0; i < v.length; i++)
      v[i] = (r() / 2 ** 32 - 0.5) * 2 ** ((i % 60) - 30);
    v.set([0, -0, Infinity, -Infinity, 1e-45, 3.4e38], 0);
    t.f32 = {
      dtype: "F32",
      shape: [777],
      bytes: new Uint8Array(v.buffer),
      want: [...v],
      as: "float32",
    };
  }
  {
    // Every float16 bit pattern but NaNs, in a 2-d shape.
    const h = new Uint16Array(64 * 1024);
    for (let i = 0; i < h.length; i++) h[i] = i;
    const keep = [...h].filter((b) => !Number.isNaN(half(b)));
    const v = Uint16Array.from(keep.slice(0, 63488));
    t.f16 = {
      dtype: "F16",
      shape: [496, 128],
      bytes: new Uint8Array(v.buffer),
      want: [...v].map(half),
      as: "float16",
    };
  }
  {
    const v = new Uint16Array(1001);
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    const want = [];
    for (let i = 0; i < v.length; i++) {
      let b = r() >>> 16;
      if ((b & 0x7f80) === 0x7f80) b &= 0xbfff; // no NaN/inf patterns
      v[i] = b;
      u[0] = b << 16;
      want.push(f[0]);
    }
    t.bf16 = {
      dtype: "BF16",
      shape: [7, 11, 13],
      bytes: new Uint8Array(v.buffer),
      want,
      as: "bfloat16",
    };
  }
  {
    const v = new Int32Array(555);
    for (let i = 0; i < v.length; i++) v[i] = r() | 0;
    v.set([2 ** 31 - 1, -(2 ** 31), 0, -1]);
    t.i32 = {
      dtype: "I32",
      shape: [5, 111],
      bytes: new Uint8Array(v.buffer),
      want: [...v],
      as: "int32",
    };
  }
  {
    const v = new BigInt64Array(333);
    for (let i = 0; i < v.length; i++) v[i] = BigInt(r() | 0);
    v.set([2n ** 31n - 1n, -(2n ** 31n), 0n, -1n]);
    t.i64 = {
      dtype: "I64",
      shape: [333],
      bytes: new Uint8Array(v.buffer),
      want: [...v].map(Number),
      as: "int64",
    };
  }
  {
    const v = new Uint8Array(1234);
    for (let i = 0; i < v.length; i++) v[i] = r() & 255;
    t.u8 = {
      dtype: "U8",
      shape: [2, 617],
      bytes: v,
      want: [...v],
      as: "uint8",
    };
  }
  {
    const v = new Uint8Array(999);
    for (let i = 0; i < v.length; i++) v[i] = (r() >>> 7) & 1;
    t.bool = {
      dtype: "BOOL",
      shape: [999],
      bytes: v,
      want: [...v],
      as: "bool",
    };
  }
  t.empty = {
    dtype: "F32",
    shape: [0, 4],
    bytes: new Uint8Array(0),
    want: [],
    as: "float32",
  };
  return t;
}

/** The safetensors file of `tensors` (name → {dtype, shape, bytes}), data in insertion order. */
function fileOf(tensors) {
  const header = { __metadata__: { format: "pt" } };
  let at = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = {
      dtype: t.dtype,
      shape: t.shape,
      data_offsets: [at, at + t.bytes.length],
    };
    at += t.bytes.length;
  }
  const data = new Uint8Array(at);
  at = 0;
  for (const t of Object.values(tensors)) {
    data.set(t.bytes, at);
    at += t.bytes.length;
  }
  return file(header, data);
}

/** A ReadableStream giving `bytes` in pieces of irregular sizes (1, 2, 3, 5, 8, … cycling). */
function piecewise(bytes, sizes = [1, 2, 3, 5, 8, 13, 64, 301, 7]) {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      const n = sizes[i++ % sizes.length];
      c.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

async function expectAll(sd, tensors, device, what) {
  assert.deepEqual(Object.keys(sd), Object.keys(tensors), what);
  for (const [name, t] of Object.entries(tensors)) {
    const x = sd[name];
    assert.equal(x.dtype, t.as, `${what}: ${name}`);
    assert.equal(x.device, device, `${what}: ${name}`);
    assert.deepEqual([...x.shape], t.shape, `${what}: ${name}`);
    const v = Array.from(await x.toArray());
    assert.equal(v.length, t.want.length, `${what}: ${name}`);
    for (let i = 0; i < v.length; i++)
      if (!Object.is(v[i], t.want[i]))
        assert.fail(`${what}: ${name}[${i}] is ${v[i]}, want ${t.want[i]}`);
  }
}

const live = () => torch.webgpu.runtime_stats().live_tensors;
/**
 * Nothing a load made is left alive: the count of live handles is no higher than `before` (the
 * garbage collector may finalize earlier tests' handles meanwhile, so it may fall).
 */
const noneLeft = (before, what) =>
  assert.ok(
    live() <= before,
    `${what}: tensors left behind (${live()} > ${before})`,
  );

for (const device of devices) {
  describe(`[${device}] safetensors streaming`, () => {
    const tensors = everyDtype();
    const bytes = fileOf(tensors);
    let dirPath;
    let path;
    before(async () => {
      await torch.init({ device });
      dirPath = mkdtempSync(join(tmpdir(), "webtorch-st-"));
      path = join(dirPath, "every-dtype.safetensors");
      writeFileSync(path, bytes);
    });
    after(() => rmSync(dirPath, { recursive: true, force: true }));

    test("every dtype loads exactly from bytes, a stream, a Response, a Node stream, a Blob, a FileHandle, a path and a file URL", async () => {
      const o = { device, _chunkBytes: CHUNK };
      const sources = {
        loadBytes: () => torch.loadBytes(bytes, o),
        "bytes, default chunks": () => torch.load(bytes, { device }),
        ReadableStream: () => torch.load(piecewise(bytes), o),
        "ReadableStream, one piece": () =>
          torch.load(new Blob([bytes]).stream(), o),
        Response: () => torch.load(new Response(piecewise(bytes, [4096])), o),
        "Node stream": () =>
          torch.load(createReadStream(path, { highWaterMark: 37 }), o),
        Blob: () => torch.load(new Blob([bytes]), o),
        FileHandle: async () => {
          const h = await open(path);
          try {
            return await torch.load(h, o);
          } finally {
            await h.close();
          }
        },
        path: () => torch.load(path, o),
        "file URL": () => torch.load(pathToFileURL(path), o),
      };
      for (const [what, make] of Object.entries(sources)) {
        const before = live();
        const sd = await make();
        await expectAll(sd, tensors, device, what);
        for (const t of Object.values(sd)) t.dispose();
        noneLeft(before, what);
      }
    });

    test("progress counts the bytes read, with the size when the source knows it", async () => {
      for (const [source, total] of [
        [new Blob([bytes]), bytes.length],
        [piecewise(bytes), undefined],
      ]) {
        const seen = [];
        const sd = await torch.load(source, {
          device,
          _chunkBytes: 4096,
          onProgress: (n, t) => seen.push([n, t]),
        });
        for (const t of Object.values(sd)) t.dispose();
        assert.ok(seen.length > 3);
        assert.deepEqual(seen.at(-1), [bytes.length, total]);
        assert.ok(seen.every(([n], i) => i === 0 || n > seen[i - 1][0]));
      }
    });

    test("a stream that ends early or goes on is an invalid file, and frees what it had made", async () => {
      const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
      const dataStart = 8 + n;
      const cuts = [
        [5, /5 bytes is too short for the 8-byte header size/],
        [8 + 10, /ends after 18 bytes, inside the \d+-byte header/],
        [dataStart, /inside tensor "f32"/],
        [dataStart + 4 * 777 + 1001, /inside tensor "f16"/],
        [bytes.length - 1, /inside tensor "bool"/],
      ];
      for (const [cut, re] of cuts) {
        const before = live();
        for (const source of [
          piecewise(bytes.slice(0, cut)),
          new Blob([bytes.slice(0, cut)]),
        ])
          await assert.rejects(
            () => torch.load(source, { device, _chunkBytes: CHUNK }),
            (e) =>
              e instanceof torch.TorchError &&
              (re.test(e.message) ||
                /runs past the end|run past the|not described/.test(e.message)),
            `cut at ${cut}`,
          );
        await assert.rejects(
          () =>
            torch.load(piecewise(bytes.slice(0, cut)), {
              device,
              _chunkBytes: CHUNK,
            }),
          (e) => e instanceof torch.TorchError && re.test(e.message),
          `stream cut at ${cut}`,
        );
        noneLeft(before, `cut at ${cut}`);
      }
      const longer = new Uint8Array(bytes.length + 3);
      longer.set(bytes);
      await assert.rejects(
        () => torch.load(piecewise(longer), { device, _chunkBytes: CHUNK }),
        /data bytes after the last tensor are not described by the header/,
      );
      await assert.rejects(
        () => torch.load(new Blob([longer]), { device, _chunkBytes: CHUNK }),
        /3 data bytes after the last tensor are not described by the header/,
      );
      await assert.rejects(
        () =>
          torch.load(
            new ReadableStream({
              start(c) {
                c.enqueue("not bytes");
                c.close();
              },
            }),
            { device },
          ),
        (e) =>
          e instanceof torch.TorchError && /not a Uint8Array/.test(e.message),
      );
    });

    test("bad values deep in a tensor are refused chunk by chunk (int64 range, bool bytes), freeing the tensors made", async () => {
      const i64 = new BigInt64Array(500);
      i64[431] = 1n << 40n;
      const bools = new Uint8Array(700);
      bools[650] = 2;
      for (const [t, re, cls] of [
        [
          { dtype: "I64", shape: [500], bytes: new Uint8Array(i64.buffer) },
          /int64 tensor "z" holds 1099511627776, outside webtorch's 32-bit/,
          torch.DTypeError,
        ],
        [
          { dtype: "BOOL", shape: [700], bytes: bools },
          /bool tensor "z" holds a byte other than 0 or 1/,
          torch.TorchError,
        ],
      ]) {
        const f = fileOf({ a: tensors.f32, z: t });
        const before = live();
        for (const load of [
          () => torch.load(piecewise(f), { device, _chunkBytes: CHUNK }),
          async () => torch.loadBytes(f, { device, _chunkBytes: CHUNK }),
        ])
          await assert.rejects(
            load,
            (e) => e instanceof cls && re.test(e.message),
          );
        noneLeft(before, "a refused value");
      }
    });

    test("registered dtypes decode chunk by chunk (int8 into int32; float64 into float16 and bfloat16, rounded as storing does)", async () => {
      const cfgs = [
        {
          name: "st_qint8",
          itemsize: 1,
          storage: "int32",
          safetensors: "I8",
          decode: (v, at) => v.getInt8(at),
        },
        {
          name: "st_f64h",
          itemsize: 8,
          storage: "float16",
          // A code the core does not load itself (F64 loads as float64); the bytes are f64s.
          safetensors: "C64",
          decode: (v, at) => v.getFloat64(at, true),
        },
        {
          name: "st_f64b",
          itemsize: 8,
          storage: "bfloat16",
          safetensors: "U64",
          decode: (v, at) => v.getFloat64(at, true),
        },
      ];
      for (const c of cfgs) torch.register_dtype(c);
      try {
        const q = new Int8Array(301);
        for (let i = 0; i < q.length; i++) q[i] = (i * 37) % 256;
        const r = words(3);
        const d = new Float64Array(257);
        for (let i = 0; i < d.length; i++)
          d[i] = (r() / 2 ** 32 - 0.5) * 2 ** ((i % 40) - 20);
        d.set([
          65519.99,
          65520,
          1e-8,
          2 ** -24 * 1.5,
          2 ** -25,
          -0,
          3e38,
          1 + 2 ** -8,
          1 + 3 * 2 ** -9,
        ]);
        const f = fileOf({
          q: { dtype: "I8", shape: [301], bytes: new Uint8Array(q.buffer) },
          h: { dtype: "C64", shape: [257], bytes: new Uint8Array(d.buffer) },
          b: { dtype: "U64", shape: [257], bytes: new Uint8Array(d.buffer) },
        });
        const sd = await torch.load(piecewise(f), {
          device,
          _chunkBytes: CHUNK,
        });
        assert.ok(sd.q instanceof torch.QuantizedTensor);
        assert.equal(sd.q.custom_dtype, "st_qint8");
        assert.deepEqual(Array.from(await sd.q.toArray()), [...q]);
        for (const [name, dtype] of [
          ["h", "float16"],
          ["b", "bfloat16"],
        ]) {
          const ref = torch.tensor([...d], { dtype, device });
          assert.equal(sd[name].dtype, dtype);
          assert.deepEqual(
            Array.from(await sd[name].toArray()),
            Array.from(await ref.toArray()),
            name,
          );
          ref.dispose();
        }
        for (const t of Object.values(sd)) t.dispose();
      } finally {
        for (const c of cfgs) torch.unregister_dtype(c.name);
      }
    });

    if (device === "cpu")
      test("a file whose tensors cannot fit the CPU budget is an OutOfMemoryError naming the tensor, before its data is read", async () => {
        const seen = [];
        torch.cpu.set_memory_budget(64 * 1024);
        try {
          await assert.rejects(
            () =>
              torch.load(piecewise(bytes), {
                device,
                onProgress: (n) => seen.push(n),
              }),
            (e) =>
              e instanceof torch.OutOfMemoryError &&
              /tensor "f16" \(F16 \[496, 128\]\) needs 253952 bytes of CPU memory/.test(
                e.message,
              ),
          );
        } finally {
          torch.cpu.set_memory_budget(null);
        }
        const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
        assert.equal(seen.at(-1), 8 + n, "only the header was read");
      });

    if (device === "cpu")
      test("a tensor the device cannot allocate beside the live ones is an OutOfMemoryError naming it, and frees the ones made", async () => {
        torch.cpu.set_memory_budget(1024 * 1024);
        const hog = torch.zeros(200 * 1024); // 800 KiB live; the file needs 274 KiB: alone it fits
        const before = live();
        try {
          await assert.rejects(
            () => torch.load(piecewise(bytes), { device, _chunkBytes: CHUNK }),
            (e) =>
              e instanceof torch.OutOfMemoryError &&
              /^torch\.load: tensor "f16" \(F16 \[496, 128\], 253952 bytes of storage\) does not fit: DefaultCPUAllocator/.test(
                e.message,
              ),
          );
          noneLeft(before, "the tensors made before it");
        } finally {
          hog.dispose();
          torch.cpu.set_memory_budget(null);
        }
      });
  });
}
