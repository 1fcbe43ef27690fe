// torch.save / torch.load (safetensors) — files written by PyTorch's safetensors.torch load with
// their values; webtorch's bytes are those PyTorch read back (fixtures from
// tests/parity/train_gen.py and train_save.mjs); malformed headers are refused with clear errors.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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
              { a: { dtype: "F64", shape: [1], data_offsets: [0, 8] } },
              new Uint8Array(8),
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
