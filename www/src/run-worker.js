// The run worker: imports the built webtorch (from /pkg/, on WebGPU when the worker has an adapter,
// else on the CPU backend), runs the editor's code (transpiled to JS by the TypeScript worker) as a
// module, and posts what the page shows: printed lines, plots, progress, the engine's statistics
// while the code runs, the profiler table of the run, and errors with their line in the source.
//
// Running here keeps the page responsive during long runs, and Stop can end a runaway loop by
// terminating the worker.
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { parseDigits } from "../../examples/digits.mjs";

// The user's frame sits under webtorch's own: keep enough frames to find its line.
Error.stackTraceLimit = 100;
const PKG = new URL("/pkg/dist/index.js", self.location.origin).href;
const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

/** @type {typeof import("webtorch")} */
let torch;

const ready = (async () => {
  torch = await import(/* webpackIgnore: true */ PKG);
  // torch.utils.progress bars (training loops, torch.hub and torch.load downloads) show in the
  // page's progress bar.
  torch.utils.on_progress((s) =>
    progress(s.desc || "progress", s.n, s.total ?? 0),
  );
  const caps = torch.webgpu.getCapabilities();
  post({
    type: "ready",
    device: torch.get_default_device(),
    navigatorGpu: "gpu" in navigator,
    adapter: caps && {
      name:
        caps.name ||
        caps.description ||
        [caps.vendor, caps.architecture]
          .filter((s) => s && !/^0x0*$/.test(s))
          .join(" ") ||
        "WebGPU adapter",
      backend: caps.backend,
      features: caps.features,
      limits: caps.limits,
    },
  });
  postStats();
})().catch((e) => post({ type: "fatal", message: String(e?.stack ?? e) }));

/** The engine's counters, for the side panels. */
function stats() {
  const r = torch.webgpu.runtime_stats();
  return {
    memory: torch.memory_stats?.() ?? torch.webgpu.memory_stats(),
    live_tensors: r.live_tensors,
    fusion: torch.webgpu.get_fusion_stats(),
    batching: {
      enabled: torch.webgpu.is_batching_enabled(),
      pending: torch.webgpu.get_pending_count(),
      submits: r.submits,
      dispatches: r.dispatches,
      pipelines: r.pipelines,
    },
  };
}
const postStats = () => post({ type: "stats", stats: stats() });

// ---- the playground's globals (www/src/playground.d.ts documents them) ----

let printQueue = Promise.resolve();
function print(...values) {
  printQueue = printQueue.then(async () => {
    const parts = await Promise.all(
      values.map((v) =>
        v instanceof torch.Tensor
          ? v.format() // PyTorch's repr (ts/src/tensor/printing.ts)
          : typeof v === "string"
            ? v
            : v instanceof Error
              ? `${v.name}: ${v.message}`
              : typeof v === "object" && v !== null && !Array.isArray(v)
                ? String(v) === "[object Object]"
                  ? JSON.stringify(v)
                  : String(v)
                : Array.isArray(v)
                  ? JSON.stringify(v)
                  : String(v),
      ),
    );
    post({ type: "print", text: parts.join(" ") });
  });
  return printQueue;
}

// webtorch's warnings (console.warn: the one-time notice that "cuda" is WebGPU, memory pressure …)
// show in the output too, in order with the printed lines, as Python shows warnings beside a
// program's output. They still go to the console.
const consoleWarn = console.warn.bind(console);
console.warn = (...values) => {
  consoleWarn(...values);
  const text = values.map(String).join(" ");
  printQueue = printQueue.then(() =>
    post({ type: "print", text, warning: true }),
  );
};

/** A tensor's (or array's) values as a Float32Array, with its shape. */
async function values(t) {
  if (t instanceof torch.Tensor) {
    const data = Float32Array.from(await t.float().toArray());
    return { data, shape: [...t.shape] };
  }
  return { data: Float32Array.from(t), shape: [t.length] };
}

const plot = {
  line(chart, series, x) {
    post({ type: "plot", kind: "line", chart: String(chart), series, x });
  },
  async bars(chart, t, { labels } = {}) {
    const { data } = await values(t);
    post({
      type: "plot",
      kind: "bars",
      chart: String(chart),
      values: Array.from(data),
      labels: labels
        ? labels.map(String)
        : Array.from(data, (_, i) => String(i)),
    });
  },
  async image(t, { title = "", colormap = "viridis", rgb = false } = {}) {
    const { data, shape } = await values(t);
    if (shape.length < 2 || shape.length > 3)
      throw new torch.ShapeError(
        `plot.image: expected a [H, W], [N, H, W] or [3, H, W] tensor, got [${shape.join(", ")}]`,
      );
    post({ type: "plot", kind: "image", title, colormap, rgb, shape, data }, [
      data.buffer,
    ]);
  },
  async hist(t, { title = "", bins = 30 } = {}) {
    const { data } = await values(t);
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of data) {
      if (!Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (lo === Infinity) lo = hi = 0;
    if (hi === lo) hi = lo + 1;
    const width = (hi - lo) / bins;
    const counts = new Array(bins).fill(0);
    for (const v of data) {
      if (!Number.isFinite(v)) continue;
      counts[Math.min(bins - 1, Math.floor((v - lo) / width))]++;
    }
    const centers = counts.map((_, i) => lo + (i + 0.5) * width);
    post({ type: "plot", kind: "hist", title, centers, counts, width });
  },
};

function progress(label, done, total) {
  post({ type: "progress", label: String(label), done, total });
}

// Drawing pads: the page draws the canvas and sends each finished drawing back as pixels.
let padCount = 0;
const pads = new Map();
function drawPad({ title = "draw here", size = 32 } = {}) {
  const id = ++padCount;
  const queue = [];
  const waiting = [];
  pads.set(id, (pixels) => {
    const next = waiting.shift();
    if (next) next(pixels);
    else queue.push(pixels);
  });
  post({ type: "pad", id, title: String(title), size });
  const next = () =>
    queue.length
      ? Promise.resolve(queue.shift())
      : new Promise((resolve) => waiting.push(resolve));
  return {
    size,
    next,
    async *[Symbol.asyncIterator]() {
      for (;;) yield await next();
    },
  };
}

let digits = null;
async function loadDigits() {
  if (!digits) {
    const res = await fetch(new URL("/data/digits.bin", self.location.origin));
    if (!res.ok) throw new Error(`/data/digits.bin: HTTP ${res.status}`);
    digits = parseDigits(new Uint8Array(await res.arrayBuffer()));
  }
  const split = ({ pixels, labels, n }) => ({
    x: torch.tensor(Float32Array.from(pixels, (p) => p / 16)).reshape([n, 64]),
    y: torch.tensor(Array.from(labels), { dtype: "int64" }),
    n,
  });
  return { train: split(digits.train), test: split(digits.test) };
}

Object.assign(self, {
  print,
  plot,
  progress,
  drawPad,
  loadDigits,
  QUICK: false,
});

// ---- running code ----

/** Where an error was raised in the user's files: `{ file, line, column }` (1-based), or null. */
function sourceLine(err, modules) {
  const stack = String(err?.stack ?? "");
  // The innermost frame in any of the files (the stack lists the innermost first).
  const frames = [];
  for (const m of modules) {
    const at = new RegExp(
      `${m.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+):(\\d+)`,
      "g",
    );
    for (const x of stack.matchAll(at)) frames.push({ m, x });
  }
  frames.sort((a, b) => a.x.index - b.x.index);
  for (const { m, x } of frames) {
    const pos = originalPositionFor(m.traced, {
      line: Number(x[1]),
      column: Number(x[2]) - 1,
    });
    if (pos.line !== null)
      return { file: m.name, line: pos.line, column: pos.column + 1 };
  }
  return null;
}

const TOKENIZERS = new URL("/dist/vendor/tokenizers.js", self.location.origin)
  .href;

/**
 * The files as blob: modules, `files[0]` the entry. Each file's imports are rewritten: "webtorch"
 * to the module this worker uses (same URL, one engine), "@huggingface/tokenizers" to its bundle,
 * "./other.ts" to that tab's module (made first), site paths ("/assets/…") to this origin (a blob:
 * module has no base URL). Returns `[{ name, url, traced }]`, the entry first.
 */
function linkModules(files) {
  const byName = new Map(files.map((f) => [f.name, f]));
  const made = new Map();
  const make = (name, chain) => {
    if (made.has(name)) return made.get(name).url;
    if (chain.includes(name))
      throw new Error(`circular imports: ${[...chain, name].join(" → ")}`);
    const f = byName.get(name);
    const code = f.js.replace(
      /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\2/g,
      (all, head, q, spec) => {
        let to = null;
        if (spec === "webtorch") to = PKG;
        else if (spec === "@huggingface/tokenizers") to = TOKENIZERS;
        else if (spec.startsWith("./")) {
          const dep = spec.slice(2);
          if (!byName.has(dep))
            throw new Error(
              `${f.name} imports "${spec}": no tab is named ${dep}`,
            );
          to = make(dep, [...chain, name]);
        } else if (spec.startsWith("/") && !spec.startsWith("//"))
          to = self.location.origin + spec;
        return to ? `${head}${q}${to}${q}` : all;
      },
    );
    const url = URL.createObjectURL(
      new Blob([code], { type: "text/javascript" }),
    );
    made.set(name, { name, url, traced: new TraceMap(f.map) });
    return url;
  };
  make(files[0].name, []);
  return [...made.values()].sort((a) => (a.name === files[0].name ? -1 : 0));
}

async function run({ files, quick }) {
  await ready;
  self.QUICK = !!quick;
  printQueue = Promise.resolve();
  let modules = [];
  const ticker = setInterval(postStats, 200);
  // The profiler panel's table, unless the code runs torch.profiler itself (one profile records
  // at a time).
  let prof = null;
  if (!files.some((f) => /\bprofiler\.profile\b/.test(f.js)))
    try {
      prof = torch.profiler.profile();
    } catch {
      prof = null; // a profiler left recording by an earlier run
    }
  const t0 = performance.now();
  let error = null;
  try {
    modules = linkModules(files);
    await import(/* webpackIgnore: true */ modules[0].url);
    await printQueue;
    await torch.webgpu.sync_device();
  } catch (e) {
    await printQueue.catch(() => {});
    error = {
      name: e?.name ?? "Error",
      message: String(e?.message ?? e),
      at: sourceLine(e, modules),
    };
  } finally {
    clearInterval(ticker);
    for (const m of modules) URL.revokeObjectURL(m.url);
    pads.clear();
  }
  const ms = performance.now() - t0;
  let profile = [];
  if (prof) {
    prof.stop();
    profile = [...prof.key_averages()]
      .sort((a, b) => b.cpu_time_total - a.cpu_time_total)
      .slice(0, 12)
      .map((r) => ({ ...r }));
  }
  postStats();
  post({ type: "done", ms, error, profile });
}

self.addEventListener("message", (e) => {
  if (e.data?.type === "run") run(e.data);
  else if (e.data?.type === "pad") pads.get(e.data.id)?.(e.data.pixels);
});
// Promises the code left un-awaited: report them instead of losing them.
self.addEventListener("unhandledrejection", (e) => {
  e.preventDefault();
  const r = e.reason;
  post({
    type: "print",
    error: true,
    text: `Unhandled rejection: ${r?.name ?? "Error"}: ${r?.message ?? r}`,
  });
});
