// A ResNet-18 training step (torchvision's layout: 7×7 stride-2 stem, max pool, four stages of
// two basic blocks, strided 3×3 and 1×1 downsampling, batch norm, average pool, linear) at batch
// 32 on 224×224 images: forward, cross-entropy, backward, SGD with momentum. The conv kernels of
// session 13 on (`new`: the window kernel, the weight gradient in slices, strided input
// gradients by phases) and off (`old`), rounds alternated in one process, with each step's GPU
// time per kernel family (`--profile`). `bench/resnet_torch.py` times PyTorch on the same
// model. Figures for bench/KERNELS.md, never asserted.
//
//   node bench/resnetprobe.mjs [--pkg pkg/dist/index.js] [--quick] [--batch 32] [--profile [--events FILE]]
import path from "node:path";
import { pathToFileURL } from "node:url";
import { heldBatch, median, warmGpu } from "./lib/timing.mjs";

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const quick = args.includes("--quick");
const pkg = opt("--pkg", "pkg/dist/index.js");
const torch = await import(pathToFileURL(path.resolve(pkg)).href);
const core = await import(
  pathToFileURL(path.resolve(path.dirname(pkg), "wasm/webtorch_core.js")).href
);
const { nn } = torch;
const F = nn.functional;
const B = Number(opt("--batch", quick ? "2" : "32"));
const S = quick ? 64 : 224;

class Block extends nn.Module {
  constructor(cin, cout, stride) {
    super();
    this.conv1 = new nn.Conv2d(cin, cout, 3, { stride, padding: 1, bias: false });
    this.bn1 = new nn.BatchNorm2d(cout);
    this.conv2 = new nn.Conv2d(cout, cout, 3, { padding: 1, bias: false });
    this.bn2 = new nn.BatchNorm2d(cout);
    this.down =
      stride !== 1 || cin !== cout
        ? new nn.Sequential(
            new nn.Conv2d(cin, cout, 1, { stride, bias: false }),
            new nn.BatchNorm2d(cout),
          )
        : null;
  }
  forward(x) {
    const y = this.bn2.call(this.conv2.call(this.bn1.call(this.conv1.call(x)).relu()));
    return y.add(this.down ? this.down.call(x) : x).relu();
  }
}

class ResNet18 extends nn.Module {
  constructor(classes = 1000) {
    super();
    this.conv1 = new nn.Conv2d(3, 64, 7, { stride: 2, padding: 3, bias: false });
    this.bn1 = new nn.BatchNorm2d(64);
    this.pool = new nn.MaxPool2d(3, { stride: 2, padding: 1 });
    const blocks = [];
    let cin = 64;
    for (const [cout, stride] of [[64, 1], [128, 2], [256, 2], [512, 2]]) {
      blocks.push(new Block(cin, cout, stride), new Block(cout, cout, 1));
      cin = cout;
    }
    this.layers = new nn.Sequential(...blocks);
    this.avg = new nn.AdaptiveAvgPool2d(1);
    this.fc = new nn.Linear(512, classes);
  }
  forward(x) {
    const y = this.pool.call(this.bn1.call(this.conv1.call(x)).relu());
    return this.fc.call(this.avg.call(this.layers.call(y)).flatten(1));
  }
}

const model = new ResNet18();
model.train();
const opt_ = new torch.optim.SGD(model.parameters(), { lr: 0.01, momentum: 0.9 });
const x = torch.randn([B, 3, S, S]);
const y = torch.randint(0, 1000, [B]);
const step = () => {
  const loss = torch.scope(() => {
    opt_.zero_grad();
    const l = F.cross_entropy(model.call(x), y);
    l.backward();
    return l.detach();
  });
  opt_.step();
  return loss;
};
const variants = { new: true, old: false };
const set = (on) => {
  core.set_conv_window(on ? "auto" : "off");
  core.set_conv_splits(on ? 0 : 1);
  core.set_conv_grad_phases(on);
};
const wait = async (hs) => {
  await torch.webgpu.sync_device();
  for (const h of hs) h.dispose();
};
await warmGpu(torch, quick ? 200 : 1000, quick);
for (const on of Object.values(variants)) {
  set(on);
  for (let i = 0; i < 3; i++) await heldBatch(2, step, wait);
}
const n = quick ? 2 : 8;
const ts = { new: [], old: [] };
for (let r = 0; r < (quick ? 2 : 7); r++) {
  for (const [v, on] of Object.entries(variants)) {
    set(on);
    ts[v].push(await heldBatch(n, step, wait));
  }
}
for (const v of Object.keys(variants))
  console.log(`ResNet-18 training step, batch ${B}, ${S}×${S}, ${v}: ${median(ts[v]).toFixed(2)} ms`);
if (args.includes("--profile")) {
  for (const [v, on] of Object.entries(variants)) {
    set(on);
    const prof = await torch.profiler.profile(async () => {
      const l = step();
      await torch.webgpu.sync_device();
      l.dispose();
    });
    const by = {};
    for (const e of prof.gpu_events ?? []) {
      const k = e.kernel.replace(/^webtorch:/, "").split(":")[0];
      by[k] = (by[k] ?? 0) + e.dur_ns / 1e6;
    }
    const top = Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.log(`  ${v} GPU ms by kernel: ` + top.map(([k, ms]) => `${k} ${ms.toFixed(2)}`).join(", "));
    // The longest single dispatches, with their labels (tile, kernel shape).
    const each = (prof.gpu_events ?? []).map((e) => [e.kernel.replace(/^webtorch:/, ""), e.dur_ns / 1e6]);
    each.sort((a, b) => b[1] - a[1]);
    console.log(`  ${v} longest: ` + each.slice(0, 10).map(([k, ms]) => `${k} ${ms.toFixed(2)}`).join(", "));
    // Every dispatch in order, for tracing where a step's time goes.
    if (opt("--events", null) && v === "new") {
      const { writeFileSync } = await import("node:fs");
      const events = (prof.gpu_events ?? []).map((e) => ({ kernel: e.kernel, ms: e.dur_ns / 1e6 }));
      writeFileSync(opt("--events", null), JSON.stringify(events));
    }
  }
}
set(true);
