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
 * Each op's time is the time its call spent in the engine (recording or dispatching its kernels);
 * GPU time is not recorded yet — the table says so. WebGPU work is asynchronous, so host time
 * is what a page's main thread pays.
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

/** A row of {@link Profile.key_averages}. */
export interface KeyAverage {
  key: string;
  count: number;
  cpu_time_total: number;
  self_cpu_time_total: number;
  cpu_time: number;
}

/** Options of {@link KeyAverages.table}. */
export interface TableOptions {
  sort_by?: "cpu_time_total" | "self_cpu_time_total" | "count" | "cpu_time";
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

  /** Starts recording (`profile()` without a function returns a started profile). */
  start(): this {
    if (active !== null) throw new Error("a profiler is already recording");
    active = this;
    userEvents.length = 0;
    core.profiler_start();
    return this;
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
    for (const e of this.events) {
      const r = rows.get(e.name) ?? {
        key: e.name,
        count: 0,
        cpu_time_total: 0,
        self_cpu_time_total: 0,
        cpu_time: 0,
      };
      r.count += 1;
      r.cpu_time_total += e.dur_us;
      // A user range's self time excludes the ops inside it.
      const inner =
        e.kind === "user"
          ? this.events.filter(
              (o) =>
                o !== e &&
                o.kind === "op" &&
                o.start_us >= e.start_us &&
                o.start_us + o.dur_us <= e.start_us + e.dur_us,
            )
          : [];
      r.self_cpu_time_total +=
        e.dur_us - inner.reduce((s, o) => s + o.dur_us, 0);
      rows.set(e.name, r);
    }
    for (const r of rows.values()) r.cpu_time = r.cpu_time_total / r.count;
    return new KeyAverages([...rows.values()]);
  }

  /** The events as Chrome trace JSON (chrome://tracing, Perfetto). */
  export_chrome_trace(): string {
    return JSON.stringify({
      traceEvents: this.events.map((e) => ({
        name: e.name,
        cat: e.kind === "op" ? "cpu_op" : "user_annotation",
        ph: "X",
        ts: e.start_us,
        dur: e.dur_us,
        pid: 0,
        tid: 0,
      })),
      displayTimeUnit: "ms",
      otherData: {
        profiler: "webtorch",
        gpu_time: "not recorded (host timings only)",
      },
    });
  }
}

/** The rows of a profile, with PyTorch's table layout. */
export class KeyAverages extends Array<KeyAverage> {
  constructor(rows: KeyAverage[] = []) {
    super();
    this.push(...rows);
  }

  /** The table `print(prof.key_averages().table(...))` shows in PyTorch. */
  table(options: TableOptions = {}): string {
    const key = options.sort_by ?? "cpu_time_total";
    const rows = [...this]
      .sort((a, b) => b[key] - a[key])
      .slice(0, options.row_limit ?? this.length);
    const selfTotal = this.reduce((s, r) => s + r.self_cpu_time_total, 0);
    const total = this.reduce((s, r) => s + r.cpu_time_total, 0);
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
      "# of Calls",
    ];
    const body = rows.map((r) => [
      r.key,
      pct(r.self_cpu_time_total, selfTotal),
      t(r.self_cpu_time_total),
      pct(r.cpu_time_total, total),
      t(r.cpu_time_total),
      t(r.cpu_time),
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
      "GPU time: not recorded (host timings only)",
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
      () => p.stop(),
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
