// int64 without silent wrap: webtorch stores int64 as 32-bit integers (docs/dtypes.md), so a
// result PyTorch would hold exactly but 32 bits cannot raises an OverflowError — at the call on
// the CPU backend, at the read on WebGPU — instead of wrapping; results within the range are
// PyTorch's exact values, and int32 wraps as PyTorch's int32 does.
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const MAX = 2147483647;
const MIN = -2147483648;
const values = async (t) => Array.from(await t.toArray()).map(Number);
const overflows = async (f) =>
  assert.rejects(
    async () => values(f()),
    (e) => e instanceof torch.OverflowError && e instanceof torch.TorchError,
  );

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
for (const device of devices) {
  describe(`[${device}] int64 range`, () => {
    before(async () => {
      await torch.init({ device });
    });
    const i64 = (v) => torch.tensor(v, { dtype: "int64" });

    test("arithmetic that leaves the range raises; at its edges it is exact", async () => {
      await overflows(() => i64([MAX]).mul(2));
      await overflows(() => i64([MAX]).add(1));
      await overflows(() => i64([MIN + 1]).sub(2));
      await overflows(() => i64([MIN]).neg());
      await overflows(() => i64([MIN]).abs());
      await overflows(() => i64([123456789]).mul(i64([987654321])));
      await overflows(() => i64([3]).pow(20));
      await overflows(() => i64([5]).add(i64([1e9]), { alpha: 3 }));
      await overflows(() => torch.arange(100000).mul(40000));
      assert.deepEqual(await values(i64([1073741823]).mul(2)), [2147483646]);
      assert.deepEqual(await values(i64([MAX - 1]).add(1)), [MAX]);
      assert.deepEqual(await values(i64([MIN + 2]).sub(2)), [MIN]);
      assert.deepEqual(await values(i64([3]).pow(19)), [1162261467]);
      assert.deepEqual(await values(i64([-46340]).square()), [2147395600]);
      await overflows(() => i64([-46341]).square());
      // int32 is PyTorch's int32: it wraps.
      const i32 = torch.tensor([MAX], { dtype: "int32" }).add(1);
      assert.deepEqual(await values(i32), [MIN]);
    });

    test("sums, products and their cumulative forms", async () => {
      await overflows(() => i64([MAX, 1]).sum());
      await overflows(() => i64([MAX, 1, -5]).cumsum(0));
      await overflows(() => i64([65536, 65536]).prod());
      await overflows(() => i64([65536, 65536, 1]).cumprod(0));
      await overflows(() =>
        torch.full([10_000_000], 255, { dtype: "uint8" }).sum(),
      );
      assert.deepEqual(await values(i64([MAX, 1, -5]).sum()), [MAX - 4]);
      assert.deepEqual(await values(i64([MAX - 7, 7, -5]).cumsum(0)), [
        MAX - 7,
        MAX,
        MAX - 5,
      ]);
      assert.deepEqual(await values(i64([65536, 32767]).prod()), [2147418112]);
      const counts = torch.ones(1000, { dtype: "bool" }).sum();
      assert.deepEqual(await values(counts), [1000]);
      // Large magnitudes that cancel: exact, and nothing refused.
      const big = i64([MAX, -MAX, MAX, -MAX, 12]);
      assert.deepEqual(await values(big.sum()), [12]);
    });

    test("casts from float: outside ±2³¹ and NaN raise", async () => {
      const f = (v) => torch.tensor(v, { dtype: "float32" });
      await overflows(() => f([3e9]).to("int64"));
      await overflows(() => f([2147483648]).to("int64"));
      await overflows(() => f([NaN]).to("int64"));
      await overflows(() => f([-Infinity]).to("int64"));
      const edge = f([MIN, 2147483520, -2.5, 7.9]).to("int64");
      assert.deepEqual(await values(edge), [MIN, 2147483520, -2, 7]);
    });

    test("after an overflow the engine keeps working", async () => {
      await overflows(() => i64([MAX]).add(1));
      assert.deepEqual(await values(torch.arange(4).mul(3).sum()), [18]);
    });
  });
}
