/**
 * `torch.profiler`: which ops ran and how long their host side took.
 *
 * ```ts
 * const prof = await torch.profiler.profile(async () => {
 *   await torch.profiler.record_function("forward", () => model.call(x));
 * });
 * console.log(prof.key_averages().table({ sort_by: "cpu_time_total", row_limit: 10 }));
 * const trace = prof.export_chrome_trace(); // JSON for chrome://tracing or Perfetto
 * ```
 *
 * Each op's host time is the time its call spent in the engine (recording or dispatching its
 * kernels): WebGPU work is asynchronous, so host time is what a page's main thread pays. On an
 * adapter with `timestamp-query`, every kernel's GPU time is recorded too (each dispatch gets
 * its own compute pass with timestamp writes while the profile records) and read back when the
 * profile ends: the table gains PyTorch's device columns ("Self GPU", "GPU total") and the Chrome
 * trace a GPU track. Without it the table says that only host times were recorded.
 *
 * @module
 */

import { core } from "./runtime.js";

/** One timed range: an op, or a {@link record_function} block. */
export interface ProfilerEvent {
  name: string;
  /** Start, in µs (performance.now() × 1000). */
  start_us: number;
  dur_us: number;
  /** `"op"` for engine ops, `"user"` for record_function blocks. */
  kind: "op" | "user";
}

/** One kernel's GPU time (recorded with `timestamp-query`). */
export interface GpuEvent {
  /** The kernel's label, e.g. `webtorch:matmul+add+gelu:t128x64k16:bt:float32`. */
  kernel: string;
  /** The op whose call dispatched it; `""` for kernels a flush or a read dispatched. */
  op: string;
  /** That op's host start (µs), matching its {@link ProfilerEvent}; -1 outside any op. */
  op_start_us: number;
  /** GPU start in ns since the profile's first kernel began. */
  start_ns: number;
  dur_ns: number;
}

/** A row of {@link Profile.key_averages} (times in µs). */
export interface KeyAverage {
  key: string;
  count: number;
  cpu_time_total: number;
  self_cpu_time_total: number;
  cpu_time: number;
  /** GPU time of the kernels this op dispatched itself (a kernel row: its own time). */
  self_gpu_time_total: number;
  /** GPU time of every kernel dispatched inside it (a record_function range: all of its ops'). */
  gpu_time_total: number;
  /** `gpu_time_total / count`. */
  gpu_time: number;
}

/** Options of {@link KeyAverages.table}. */
export interface TableOptions {
  /** The column to sort by, PyTorch's key names (default `"cpu_time_total"`). */
  sort_by?:
    | "cpu_time_total"
    | "self_cpu_time_total"
    | "count"
    | "cpu_time"
    | "self_gpu_time_total"
    | "gpu_time_total"
    | "gpu_time";
  /** Rows shown (default: all). */
  row_limit?: number;
}

const userEvents: ProfilerEvent[] = [];
let active: Profile | null = null;

function now_us(): number {
  return (globalThis.performance?.now() ?? Date.now()) * 1000;
}

/** A finished profile. */
export class Profile {
  readonly events: ProfilerEvent[] = [];
  /** Each kernel's GPU time, in dispatch order (filled by {@link synchronize}). */
  readonly gpu_events: GpuEvent[] = [];
  /** Whether kernels' GPU times are recorded (the adapter has `timestamp-query`). */
  gpu_timing = false;
  private gpuRead: Promise<void> | null = null;

  /** Starts recording (`profile()` without a function returns a started profile). */
  start(): this {
    if (active !== null) throw new Error("a profiler is already recording");
    active = this;
    userEvents.length = 0;
    this.gpu_timing = core.profiler_start();
    return this;
  }

  /**
   * Reads the GPU times back (`profile(async fn)` does this before it resolves; after a
   * synchronous `profile(fn)` or `stop()`, await it before the table to get the GPU columns).
   */
  synchronize(): Promise<this> {
    if (active === this) this.stop();
    this.gpuRead ??= (core.profiler_gpu_events() as Promise<GpuEvent[]>).then(
      (events) => {
        this.gpu_events.push(...events);
      },
    );
    return this.gpuRead.then(() => this);
  }

  /** Stops recording and keeps the events. */
  stop(): this {
    if (active !== this) return this;
    const ops = core.profiler_stop() as Omit<ProfilerEvent, "kind">[];
    this.events.push(
      ...ops.map((e) => ({ ...e, kind: "op" as const })),
      ...userEvents,
    );
    this.events.sort((a, b) => a.start_us - b.start_us);
    userEvents.length = 0;
    active = null;
    return this;
  }

  /** Per-name statistics, as PyTorch's `prof.key_averages()`. */
  key_averages(): KeyAverages {
    const rows = new Map<string, KeyAverage>();
    const row = (key: string): KeyAverage => {
      let r = rows.get(key);
      if (r === undefined) {
        r = {
          key,
          count: 0,
          cpu_time_total: 0,
          self_cpu_time_total: 0,
          cpu_time: 0,
          self_gpu_time_total: 0,
          gpu_time_total: 0,
          gpu_time: 0,
        };
        rows.set(key, r);
      }
      return r;
    };
    // Kernels by the op call that dispatched them (its name and host start identify it).
    const gpuOf = new Map<string, number>();
    for (const k of this.gpu_events) {
      const us = k.dur_ns / 1000;
      if (k.op === "") {
        // Dispatched by a flush or a read, outside any op: a row of its own, as PyTorch lists
        // kernels.
        const r = row(k.kernel);
        r.count += 1;
        r.self_gpu_time_total += us;
        r.gpu_time_total += us;
      } else {
        const id = `${k.op}@${k.op_start_us}`;
        gpuOf.set(id, (gpuOf.get(id) ?? 0) + us);
      }
    }
    for (const e of this.events) {
      const r = row(e.name);
      r.count += 1;
      r.cpu_time_total += e.dur_us;
      if (e.kind === "op") {
        const gpu = gpuOf.get(`${e.name}@${e.start_us}`) ?? 0;
        r.self_cpu_time_total += e.dur_us;
        r.self_gpu_time_total += gpu;
        r.gpu_time_total += gpu;
        continue;
      }
      // A user range's self time excludes the ops inside it; its GPU time is theirs.
      const end = e.start_us + e.dur_us;
      const inner = this.events.filter(
        (o) =>
          o !== e &&
          o.kind === "op" &&
          o.start_us >= e.start_us &&
          o.start_us + o.dur_us <= end,
      );
      r.self_cpu_time_total +=
        e.dur_us - inner.reduce((s, o) => s + o.dur_us, 0);
      r.gpu_time_total += inner.reduce(
        (s, o) => s + (gpuOf.get(`${o.name}@${o.start_us}`) ?? 0),
        0,
      );
    }
    for (const r of rows.values()) {
      r.cpu_time = r.cpu_time_total / r.count;
      r.gpu_time = r.gpu_time_total / r.count;
    }
    const gpu = this.gpu_events.length > 0 ? "recorded" : this.gpuNote();
    return new KeyAverages([...rows.values()], gpu);
  }

  /** Why a profile has no GPU times. */
  private gpuNote(): string {
    if (!this.gpu_timing)
      return "not recorded (host timings only: the adapter has no timestamp-query, or no WebGPU device)";
    if (this.gpuRead === null)
      return "not read yet (await prof.synchronize() after a synchronous profile)";
    return "no kernels ran on the GPU";
  }

  /**
   * The events as Chrome trace JSON (chrome://tracing, Perfetto): host ops and ranges on the
   * "host" process, kernels on a "GPU" track. GPU timestamps have their own clock: the track
   * starts at the host start of the op that dispatched the first kernel.
   */
  export_chrome_trace(): string {
    const host = this.events.map((e) => ({
      name: e.name,
      cat: e.kind === "op" ? "cpu_op" : "user_annotation",
      ph: "X",
      ts: e.start_us,
      dur: e.dur_us,
      pid: 0,
      tid: 0,
    }));
    const first = this.gpu_events[0];
    const origin =
      first === undefined
        ? 0
        : first.op_start_us >= 0
          ? first.op_start_us
          : (this.events[0]?.start_us ?? 0);
    const kernels = this.gpu_events.map((k) => ({
      name: k.kernel,
      cat: "kernel",
      ph: "X",
      ts: origin + k.start_ns / 1000,
      dur: k.dur_ns / 1000,
      pid: 1,
      tid: 0,
      args: { op: k.op },
    }));
    const names = [
      { name: "process_name", ph: "M", pid: 0, tid: 0, args: { name: "host" } },
      { name: "process_name", ph: "M", pid: 1, tid: 0, args: { name: "GPU" } },
    ];
    return JSON.stringify({
      traceEvents: [...names, ...host, ...kernels],
      displayTimeUnit: "ms",
      otherData: {
        profiler: "webtorch",
        gpu_time:
          this.gpu_events.length > 0
            ? "timestamp-query, one compute pass per dispatch"
            : this.gpuNote(),
      },
    });
  }
}

/** The rows of a profile, with PyTorch's table layout. */
export class KeyAverages extends Array<KeyAverage> {
  /** `"recorded"`, or why the rows have no GPU times. */
  readonly gpu: string;

  constructor(rows: KeyAverage[] = [], gpu = "not recorded") {
    super();
    this.push(...rows);
    this.gpu = gpu;
  }

  /** The table `print(prof.key_averages().table(...))` shows in PyTorch. */
  table(options: TableOptions = {}): string {
    const withGpu = this.gpu === "recorded";
    const key = options.sort_by ?? "cpu_time_total";
    const rows = [...this]
      .sort((a, b) => b[key] - a[key])
      .slice(0, options.row_limit ?? this.length);
    const sum = (f: (r: KeyAverage) => number) =>
      this.reduce((s, r) => s + f(r), 0);
    const selfTotal = sum((r) => r.self_cpu_time_total);
    const total = sum((r) => r.cpu_time_total);
    const selfGpu = sum((r) => r.self_gpu_time_total);
    const t = (us: number) =>
      us >= 1000 ? `${(us / 1000).toFixed(3)}ms` : `${us.toFixed(3)}us`;
    const pct = (x: number, of: number) =>
      `${of > 0 ? ((100 * x) / of).toFixed(2) : "0.00"}%`;
    const head = [
      "Name",
      "Self CPU %",
      "Self CPU",
      "CPU total %",
      "CPU total",
      "CPU time avg",
      ...(withGpu
        ? ["Self GPU", "Self GPU %", "GPU total", "GPU time avg"]
        : []),
      "# of Calls",
    ];
    const body = rows.map((r) => [
      r.key,
      pct(r.self_cpu_time_total, selfTotal),
      t(r.self_cpu_time_total),
      pct(r.cpu_time_total, total),
      t(r.cpu_time_total),
      t(r.cpu_time),
      ...(withGpu
        ? [
            t(r.self_gpu_time_total),
            pct(r.self_gpu_time_total, selfGpu),
            t(r.gpu_time_total),
            t(r.gpu_time),
          ]
        : []),
      String(r.count),
    ]);
    const widths = head.map(
      (h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)) + 2,
    );
    const line = widths.map((w) => "-".repeat(w)).join("  ");
    const fmt = (cells: string[]) =>
      cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
    return [
      line,
      fmt(head),
      line,
      ...body.map(fmt),
      line,
      `Self CPU time total: ${t(selfTotal)}`,
      withGpu ? `Self GPU time total: ${t(selfGpu)}` : `GPU time: ${this.gpu}`,
      "",
    ].join("\n");
  }
}

/**
 * Profiles what runs in `fn` (sync or async) and returns the finished {@link Profile}; without
 * `fn`, returns a started profile to `stop()` yourself.
 */
export function profile(): Profile;
export function profile(fn: () => void): Profile;
export function profile(fn: () => Promise<void>): Promise<Profile>;
export function profile(
  fn?: () => void | Promise<void>,
): Profile | Promise<Profile> {
  const p = new Profile().start();
  if (fn === undefined) return p;
  let r: void | Promise<void>;
  try {
    r = fn();
  } catch (e) {
    p.stop();
    throw e;
  }
  if (r instanceof Promise)
    return r.then(
      () => p.stop().synchronize(),
      (e: unknown) => {
        p.stop();
        throw e;
      },
    );
  return p.stop();
}

/** Times `fn` as a named range in the current profile (a no-op cost when none records). */
export function record_function<T>(name: string, fn: () => T): T {
  if (active === null) return fn();
  const start = now_us();
  const done = () =>
    userEvents.push({
      name,
      start_us: start,
      dur_us: now_us() - start,
      kind: "user",
    });
  const r = fn();
  if (r instanceof Promise) return r.finally(done) as T;
  done();
  return r;
}
