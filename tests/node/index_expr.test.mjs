// x.index / x.index_async / x.set beyond the PyTorch fixtures (tests/parity/cases/tensor_index.py):
// basic indexing returns views (no copy), the mask rules, index strings fuzzed (a result or a
// TorchError, never another error or a hang), and writes through views without autograd.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`indexing on ${device}`, () => {
    test("integers, slices, ... and null give views of the same storage", async () => {
      const x = torch.arange(24, { dtype: "float32", device }).reshape(2, 3, 4);
      const v = x.index(1, "1:", "::2");
      assert.deepEqual(v.shape, [2, 2]);
      assert.deepEqual(v.stride(), [4, 2]);
      assert.equal(v.storage_offset(), 12 + 4);
      v.fill_(-1); // written through the view: the base changes
      assert.deepEqual(await x.index(1).tolist(), [
        [12, 13, 14, 15],
        [-1, 17, -1, 19],
        [-1, 21, -1, 23],
      ]);
      const e = x.index("...", null);
      assert.deepEqual(
        [e.shape, e.stride()],
        [
          [2, 3, 4, 1],
          [12, 4, 1, 1],
        ],
      );
    });

    test("boolean masks: index refuses, index_async reads, set needs no read", async () => {
      const x = torch.tensor(
        [
          [1, -2],
          [-3, 4],
        ],
        { dtype: "float32", device },
      );
      assert.throws(() => x.index(x.gt(0)), {
        name: "TorchError",
        message: /use await x.index_async/,
      });
      assert.deepEqual(await (await x.index_async(x.gt(0))).tolist(), [1, 4]);
      assert.deepEqual(
        await (
          await x.index_async(":", torch.tensor([false, true], { device }))
        ).tolist(),
        [[-2], [4]],
      );
      x.set(x.lt(0), 0);
      assert.deepEqual(await x.tolist(), [
        [1, 0],
        [0, 4],
      ]);
      assert.throws(() => x.set([x.gt(0), "1:"], 0), torch.TorchError);
    });

    test("set without autograd writes through the view; with it, the history is kept", async () => {
      const x = torch.zeros([2, 3], { device });
      x.set([0, "1:"], torch.tensor([5, 6], { dtype: "float32", device }));
      x.set("1, 0", 7);
      assert.deepEqual(await x.tolist(), [
        [0, 5, 6],
        [7, 0, 0],
      ]);
      const w = torch.ones([2, 3], { requires_grad: true, device });
      const v = torch.full([3], 2.5, { requires_grad: true, device });
      const y = w.mul(3);
      y.set(1, v);
      y.sum().backward();
      assert.deepEqual(await w.grad.tolist(), [
        [3, 3, 3],
        [0, 0, 0],
      ]);
      assert.deepEqual(await v.grad.tolist(), [1, 1, 1]);
    });
  });
}

test("fuzz: 500 random index strings give a result or a TorchError", async () => {
  const x = torch.arange(60, { dtype: "float32" }).reshape(3, 4, 5);
  const parts = [
    "0",
    "-1",
    "7",
    ":",
    "1:",
    ":-1",
    "::2",
    "::0",
    "::-1",
    "...",
    "None",
    "",
    " ",
    ",",
    "a",
    "1:2:3:4",
    "+2",
    "--1",
    "1.5",
    ":::",
  ];
  let seed = 12345;
  const below = (n) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const problems = [];
  let ok = 0;
  for (let i = 0; i < 500; i++) {
    const s = Array.from(
      { length: 1 + below(4) },
      () => parts[below(parts.length)],
    ).join(below(2) ? "," : ", ");
    try {
      const out = x.index(s);
      const n = (await out.toArray()).length;
      if (n !== out.numel())
        problems.push(`${JSON.stringify(s)}: ${n} values for ${out.numel()}`);
      ok++;
    } catch (e) {
      if (!(e instanceof torch.TorchError))
        problems.push(`${JSON.stringify(s)}: ${e?.name}: ${e?.message}`);
    }
  }
  assert.deepEqual(problems.slice(0, 20), []);
  assert.ok(ok > 50 && ok < 450, `${ok} of 500 strings were valid`);
});
