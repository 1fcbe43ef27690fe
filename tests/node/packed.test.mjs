// nn.utils.rnn and packed input to RNN/LSTM/GRU against PyTorch (fixtures from
// tests/parity/packed_gen.py): pack/pad utilities (values, batch sizes, permutations, the
// gradient back to the padded input), and multi-layer, bidirectional, batch_first and proj_size
// layers over packed batches of unsorted lengths — packed outputs, final states per sequence,
// parameter and input gradients — on WebGPU and on the CPU backend.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn } = torch;
const R = nn.utils.rnn;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/packed_rnn.json", import.meta.url),
  ),
);
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];
const t = (s) => torch.tensor(Float32Array.from(s.data)).reshape(s.shape);
const weights = (x) => torch.linspace(-1, 1, x.numel()).reshape(x.shape);
const ints = async (x) => (await x.tolist()).map(Number);

async function close(actual, expected, what, tol = 1e-4) {
  assert.deepEqual(actual.shape, expected.shape, `${what} shape`);
  assertClose(await actual.toArray(), expected.data, tol, what);
}

for (const device of devices) {
  describe(`[${device}] nn.utils.rnn and packed recurrent layers match PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("pack/pad utilities and the gradient to the padded input", async () => {
      const U = FIX.utils;
      const x = t(U.x).requires_grad_();
      const p = R.pack_padded_sequence(x, U.lengths, false, false);
      await close(p.data, U.packed.data, "packed data");
      assert.deepEqual(await ints(p.batch_sizes), U.packed.batch_sizes);
      assert.equal(p.batch_sizes.device, "cpu");
      assert.deepEqual(await ints(p.sorted_indices), U.packed.sorted_indices);
      assert.deepEqual(
        await ints(p.unsorted_indices),
        U.packed.unsorted_indices,
      );
      p.data.mul(weights(p.data)).sum().backward();
      await close(x.grad, U.x_grad, "x grad");
      const [padded, lens] = R.pad_packed_sequence(p, false, 0, 6);
      await close(padded, U.padded, "padded");
      assert.deepEqual(await ints(lens), U.padded_lengths);
      const [paddedBf] = R.pad_packed_sequence(p, true, -1);
      await close(paddedBf, U.padded_bf, "padded batch_first");
      const xs = x.detach();
      const sorted = R.pack_padded_sequence(
        xs.index_select(1, torch.tensor([0, 2, 1, 3])),
        [5, 4, 3, 2],
      );
      assert.equal(sorted.sorted_indices, null);
      await close(sorted.data, U.sorted_data, "sorted data");
      const bf = R.pack_padded_sequence(
        xs.transpose(0, 1),
        U.lengths,
        true,
        false,
      );
      await close(bf.data, U.bf_data, "batch_first data");
      const seqs = [
        xs.narrow(0, 0, 2).select(1, 0),
        xs.narrow(0, 0, 4).select(1, 1),
        xs.narrow(0, 0, 3).select(1, 2),
      ];
      const ps = R.pack_sequence(seqs, false);
      await close(ps.data, U.seq_packed.data, "pack_sequence");
      assert.deepEqual(await ints(ps.batch_sizes), U.seq_packed.batch_sizes);
      assert.deepEqual(
        await ints(ps.sorted_indices),
        U.seq_packed.sorted_indices,
      );
      await close(R.pad_sequence(seqs, false, 2), U.pad_right, "pad right");
      await close(
        R.pad_sequence(seqs, true, 0, "left"),
        U.pad_left_bf,
        "pad left",
      );
      const back = R.unpack_sequence(ps);
      for (const [i, s] of seqs.entries())
        assertClose(await back[i].toArray(), await s.toArray(), 0, `seq ${i}`);
      const unpadded = R.unpad_sequence(
        R.pad_sequence(seqs, true),
        [2, 4, 3],
        true,
      );
      assert.deepEqual(
        unpadded.map((u) => u.shape),
        [
          [2, 3],
          [4, 3],
          [3, 3],
        ],
      );
    });

    test("PyTorch's errors", () => {
      const x = torch.zeros(3, 2, 1);
      assert.throws(
        () => R.pack_padded_sequence(x, [2, 3]),
        /`lengths` array must be sorted in decreasing order when `enforce_sorted` is True/,
      );
      assert.throws(
        () => R.pack_padded_sequence(x, [3, 0]),
        /Length of all samples has to be greater than 0/,
      );
      assert.throws(
        () => R.pack_padded_sequence(x, [3, 2, 1]),
        /Expected `len\(lengths\)` to be equal to batch_size, but got 3 \(batch_size=2\)/,
      );
      const p = R.pack_padded_sequence(x, [3, 2]);
      assert.throws(
        () => R.pad_packed_sequence(p, false, 0, 2),
        /Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 and max sequence length being 3/,
      );
    });

    for (const c of FIX.modules)
      test(`${c.module} ${JSON.stringify(c.options)}${c.hx ? " with hx" : ""} over a packed batch`, async () => {
        const m = new nn[c.module](3, 4, c.options);
        m.load_state_dict(
          Object.fromEntries(c.state.map(([k, v]) => [k, t(v)])),
        );
        const x = t(c.x).requires_grad_();
        const bf = c.options.batch_first ?? false;
        const p = R.pack_padded_sequence(x, c.lengths, bf, false);
        let hx = null;
        if (c.hx) hx = c.module === "LSTM" ? c.hx.map(t) : t(c.hx[0]);
        const [out, h] = m.call(p, hx);
        assert.ok(out instanceof R.PackedSequence);
        assert.deepEqual(await ints(out.batch_sizes), c.batch_sizes);
        await close(out.data, c.out, "output");
        const hs = c.module === "LSTM" ? h : [h];
        for (const [i, s] of hs.entries()) await close(s, c.h[i], `h ${i}`);
        let loss = out.data.mul(weights(out.data)).sum();
        for (const s of hs) loss = loss.add(s.mul(weights(s)).mul(0.5).sum());
        loss.backward();
        const params = Object.fromEntries(m.named_parameters());
        for (const [k, g] of c.grads)
          await close(params[k].grad, g, `grad ${k}`);
        await close(x.grad, c.x_grad, "x grad");
      });
  });
}
