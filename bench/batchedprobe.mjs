// Batched launches of tiny ops (src/backend/webgpu/batched.rs) against one dispatch per op, in
// one process, alternated round by round (the GPU machine's host speed drifts between rounds
// and processes): chains of 1,000 tiny adds, of x + w (two tensors), of a unary op, and of 8×8
// products, recorded (host) and +wait, with the dispatches each chain took, and the latency of
// one tiny add read back or waited for with sync_device. Figures for
// bench/KERNELS.md ("Batched tiny ops"), never asserted.
//
//   node bench/batchedprobe.mjs [--pkg pkg/dist/index.js] [--rounds 4] [--quick] [--out dir]

import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chainCost, median, medianUs } from "./lib/timing.mjs";
import { flag, option, loadPkg } from "./lib/cli.mjs";

const quick = flag("quick");
const outDir = option("out");
const rounds = Number(option("rounds", quick ? 1 : 4));
const { torch, core } = await loadPkg();
const N = quick ? 200 : 1000;
const reps = quick ? 3 : 15;

const w = torch.randn([64]);
const m = torch.randn([8, 8]).mul(0.3);
const chains = {
  "x + 0.001": [() => torch.randn([64]), (x) => x.add(0.001)],
  "x + w": [() => torch.randn([64]), (x) => x.add(w)],
  "tanh(x)": [() => torch.randn([64]), (x) => x.tanh()],
  "x @ m (8×8)": [() => torch.randn([8, 8]), (x) => x.matmul(m)],
};
const rows = [];
const lat = [];
for (let r = 1; r <= rounds; r++) {
  for (const batched of [true, false]) {
    core.set_batched_launches(batched);
    // Latency of one tiny op: read back, or waited for with sync_device.
    const v = torch.randn([64]);
    const readUs = await medianUs(
      async () => {
        const y = v.add(1);
        await y.toArray();
        y.dispose();
      },
      quick ? 20 : 200,
    );
    const syncUs = await medianUs(
      async () => {
        const y = v.add(1);
        await torch.webgpu.sync_device();
        y.dispose();
      },
      quick ? 20 : 200,
    );
    v.dispose();
    lat.push({ round: r, batched, read_us: readUs, sync_us: syncUs });
    console.log(
      `round ${r} ${batched ? "batched " : "one each"} tiny add + read-back ${readUs.toFixed(1)} µs, + sync_device ${syncUs.toFixed(1)} µs`,
    );
    for (const [name, [make, f]] of Object.entries(chains)) {
      const x0 = make();
      const s0 = torch.webgpu.runtime_stats();
      const cost = await chainCost(torch, x0, f, { n: N, reps });
      const s1 = torch.webgpu.runtime_stats();
      x0.dispose();
      // chainCost runs the chain reps + 1 times.
      const per = (k) => (s1[k] - s0[k]) / ((reps + 1) * N);
      const row = {
        round: r,
        batched,
        chain: name,
        ...cost,
        dispatches_per_op: per("dispatches"),
      };
      rows.push(row);
      console.log(
        `round ${r} ${batched ? "batched " : "one each"} ${name.padEnd(12)} record ${cost.record_us.toFixed(2).padStart(6)} µs/op` +
          `  +wait ${cost.wait_us.toFixed(2).padStart(6)}  dispatches/op ${row.dispatches_per_op.toFixed(3)}`,
      );
    }
  }
}
core.set_batched_launches(true);
console.log("\nmedians over rounds (µs/op, record / +wait):");
for (const name of Object.keys(chains)) {
  const pick = (b, k) =>
    median(
      rows.filter((x) => x.chain === name && x.batched === b).map((x) => x[k]),
    );
  console.log(
    `${name.padEnd(12)} batched ${pick(true, "record_us").toFixed(2)} / ${pick(true, "wait_us").toFixed(2)}` +
      `   one each ${pick(false, "record_us").toFixed(2)} / ${pick(false, "wait_us").toFixed(2)}`,
  );
}
for (const b of [true, false]) {
  const pick = (k) =>
    median(lat.filter((x) => x.batched === b).map((x) => x[k]));
  console.log(
    `tiny add ${b ? "batched " : "one each"} + read-back ${pick("read_us").toFixed(1)} µs, + sync_device ${pick("sync_us").toFixed(1)} µs`,
  );
}
if (outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    path.join(outDir, "batchedprobe.json"),
    JSON.stringify({ chains: rows, latency: lat }, null, 2),
  );
}
