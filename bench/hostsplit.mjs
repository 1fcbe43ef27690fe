// Host cost per eager op, split by kind, and the MLP Adam step's host time per phase, for one or
// more builds of the package alternated in the same process order (the GPU machine's host speed
// drifts by up to 2x between processes, so builds are compared round by round, never across
// machine starts). Figures for bench/KERNELS.md ("Host path"), never asserted.
//
//   node bench/hostsplit.mjs [--pkg pkg/dist/index.js[,other/dist/index.js]] [--rounds 2] [--quick]
//
// Rows: chains of 1,000 ops on 64 elements (x.add(0.001), x.add(w), relu, a view that launches
// nothing, 8x8 matmuls) timed while recording (the GPU runs behind), then the MLP 784-256-128-10
// step at batch 1,000 (zero_grad, forward, cross_entropy, backward, Adam), ten steps per wait.
// Each build runs in its own child process (one package per process: the core is a singleton).
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : dflt;

if (process.env.HOSTSPLIT_CHILD) {
  await child(process.env.HOSTSPLIT_CHILD);
} else {
  const pkgs = opt("--pkg", "pkg/dist/index.js").split(",");
  const rounds = Number(opt("--rounds", 2));
  const self = fileURLToPath(import.meta.url);
  for (let r = 1; r <= rounds; r++) {
    for (const pkg of pkgs) {
      const out = execFileSync(process.execPath, [self], {
        env: {
          ...process.env,
          HOSTSPLIT_CHILD: pkg,
          HOSTSPLIT_QUICK: args.includes("--quick") ? "1" : "",
        },
        encoding: "utf8",
      });
      for (const line of out.trim().split("\n"))
        console.log(`round ${r} ${pkg.padEnd(22)} ${line}`);
    }
  }
}

async function child(pkg) {
  const torch = await import(pathToFileURL(path.resolve(pkg)).href);
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const N = 1000;
  // --quick (SwiftShader, where the MLP's GPU work runs on the CPU): fewer repetitions.
  const quick = process.env.HOSTSPLIT_QUICK === "1";
  const R = quick ? 3 : 10;
  const [warm, rounds] = quick ? [1, 3] : [10, 40];
  async function chain(name, x0, step) {
    const rec = [];
    for (let r = 0; r < R + 3; r++) {
      let x = x0;
      const t0 = performance.now();
      for (let i = 0; i < N; i++) {
        const y = step(x);
        if (x !== x0) x.dispose();
        x = y;
      }
      const t1 = performance.now();
      await torch.webgpu.sync_device();
      if (r >= 3) rec.push(((t1 - t0) * 1e3) / N);
      x.dispose();
    }
    console.log(`${name.padEnd(12)} ${med(rec).toFixed(2).padStart(6)} µs/op`);
  }
  const v = torch.randn([64]);
  const w = torch.randn([64]);
  const m0 = torch.randn([8, 8]);
  const eye = torch.eye(8);
  await chain("add scalar", v, (x) => x.add(0.001));
  await chain("add tensor", v, (x) => x.add(w));
  await chain("relu", v, (x) => x.relu());
  await chain("view", v, (x) => x.view([8, 8]));
  await chain("matmul 8x8", m0, (x) => x.matmul(eye));

  const { nn, optim } = torch;
  const model = new nn.Sequential(
    new nn.Linear(784, 256),
    new nn.ReLU(),
    new nn.Linear(256, 128),
    new nn.ReLU(),
    new nn.Linear(128, 10),
  );
  const X = torch.randn([1000, 784]);
  const Y = torch.randint(0, 10, [1000], { dtype: "int64" });
  const adam = new optim.Adam(model.parameters(), { lr: 1e-3 });
  const ph = {
    zero_grad: [],
    forward: [],
    loss: [],
    backward: [],
    adam: [],
    step: [],
  };
  let s0;
  for (let r = 0; r < rounds; r++) {
    if (r === warm) s0 = torch.webgpu.runtime_stats();
    const outs = [];
    for (let i = 0; i < 10; i++) {
      const t = [performance.now()];
      const loss = torch.scope(() => {
        model.zero_grad();
        t.push(performance.now());
        const out = model.call(X);
        t.push(performance.now());
        const l = nn.functional.cross_entropy(out, Y);
        t.push(performance.now());
        l.backward();
        t.push(performance.now());
        return l.detach();
      });
      t.push(performance.now());
      adam.step();
      t.push(performance.now());
      if (r >= warm) {
        const d = (i, j) => t[j] - t[i];
        ph.zero_grad.push(d(0, 1));
        ph.forward.push(d(1, 2));
        ph.loss.push(d(2, 3));
        ph.backward.push(d(3, 4));
        ph.adam.push(d(5, 6));
        ph.step.push(d(0, 6));
      }
      outs.push(loss);
    }
    await torch.webgpu.sync_device();
    outs.forEach((o) => o.dispose());
  }
  const s1 = torch.webgpu.runtime_stats();
  const per = (k) => ((s1[k] - s0[k]) / (10 * (rounds - warm))).toFixed(1);
  console.log(
    `MLP step host ms: ${Object.entries(ph)
      .map(([k, a]) => `${k} ${med(a).toFixed(3)}`)
      .join(", ")}; ` +
      `per step ${per("dispatches")} dispatches, ${per("bind_groups")} new bind groups`,
  );
}
