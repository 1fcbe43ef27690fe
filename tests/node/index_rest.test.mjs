// torch.frombuffer against PyTorch (tests/parity/index_rest_gen.py): the values read from a JS
// byte view at its own byte offset, the dtype (float16 and bfloat16 decoded from their bits,
// float64 on the CPU device), and PyTorch's errors for a bad count or offset.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";
import { readFixture } from "./inplace_fixture.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = readFixture("index_rest.json");

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] frombuffer`, () => {
    before(async () => {
      await torch.init({ device });
    });

    for (const [i, c] of FIX.cases.entries())
      test(`frombuffer ${c.dtype} #${i}`, async () => {
        const bytes = Uint8Array.from(c.bytes);
        const view = new Uint8Array(bytes.buffer, c.view);
        const call = () => torch.frombuffer(view, { dtype: c.dtype, ...c.kw });
        if (c.error !== undefined) {
          assert.throws(call, (e) => {
            assert.ok(e instanceof torch.TorchError);
            assert.equal(e.message, c.error);
            return true;
          });
          return;
        }
        if (c.dtype === "float64" && device === "webgpu") {
          // The WebGPU device holds no float64 (docs/dtypes.md): refused, as everywhere.
          assert.throws(call, torch.DTypeError);
          return;
        }
        const t = call();
        assert.equal(t.dtype, c.dtype);
        assert.deepEqual(t.shape, [c.values.length]);
        const got = await t.tolist();
        // tolist gives numbers for every dtype; float32 values rounded as the bytes hold them.
        const want =
          c.dtype === "float32"
            ? Array.from(Float32Array.from(c.values))
            : c.values;
        assert.deepEqual(got, want);
      });

    test("other byte containers: ArrayBuffer, DataView, Buffer", async () => {
      const f = Float32Array.of(1, 2, 3);
      for (const b of [f.buffer, new DataView(f.buffer), Buffer.from(f.buffer)])
        assert.deepEqual(
          await torch.frombuffer(b, { dtype: "float32" }).tolist(),
          [1, 2, 3],
        );
      assert.throws(
        () => torch.frombuffer([1, 2], { dtype: "float32" }),
        torch.TorchError,
      );
    });
  });
}
