/**
 * `torch.utils.progress`: a progress bar for long loops (training epochs, downloads), in the
 * manner of tqdm.
 *
 * `for (const batch of torch.utils.progress(loader, { desc: "epoch 1" })) …` (or `for await`
 * over an async iterable) counts the items as they are taken; `bar.update(n)` counts by hand.
 * Where it goes:
 * - Node, stderr a terminal: one line redrawn in place (`\r`):
 *   `epoch 1:  40%|████      | 4/10 [00:02<00:03,  1.99it/s, loss=0.25]`.
 * - Node, stderr not a terminal (a log file, CI): the same text as plain lines, at most one every
 *   `mininterval` seconds (10 by default there), and the last one on `close()`.
 * - `file`: any `{ write(text) }` (with `isTTY: true` for the redrawn line).
 * - Listeners ({@link on_progress}) get every update's {@link ProgressState}, in any runtime: the
 *   playground's progress bar is one. In browsers nothing else is written.
 *
 * `torch.hub.load_state_dict_from_url(url, { progress: true })` and
 * `torch.load(url, { progress: true })` show their downloads with it (bytes, scaled: `kB`, `MB`).
 *
 * @module
 */

import { TorchError } from "../errors.js";

/** Where a bar writes: Node's `process.stderr`, or anything with `write`. */
export interface ProgressFile {
  /** Writes `text` (the bar's line, with `\r` or `\n`). */
  write(text: string): unknown;
  /** A terminal: the bar is one line redrawn in place. */
  isTTY?: boolean;
  /** The terminal's width (the bar fills it, at most `ncols`). */
  columns?: number;
}

/** Options of {@link progress}. */
export interface ProgressOptions {
  /** The number of items expected (default: the iterable's `length` or `size`, when it has one). */
  total?: number | null;
  /** The text before the bar. */
  desc?: string;
  /** The unit of the count (default `"it"`). */
  unit?: string;
  /** Scale the counts with k/M/G… (1000 each; downloads use it with unit `"B"`). */
  unit_scale?: boolean;
  /** Write nothing and tell no listener. */
  disable?: boolean;
  /** Keep the last line when closed (default true); `false` clears it on a terminal. */
  leave?: boolean;
  /** Seconds between two writes (default 0.1 on a terminal, 10 otherwise). The last is always written. */
  mininterval?: number;
  /** The line's width (default: the terminal's, else 80). */
  ncols?: number;
  /** Where to write (default: Node's `process.stderr`; nothing in browsers). */
  file?: ProgressFile | null;
  /** The clock, in seconds (tests use a fake one). Default `performance.now() / 1000`. */
  clock?: () => number;
}

/** What a bar shows, as listeners receive it. */
export interface ProgressState {
  /** The bar's description. */
  desc: string;
  /** Items counted so far. */
  n: number;
  /** Items expected, or `null` when unknown. */
  total: number | null;
  /** Seconds since the bar started. */
  elapsed: number;
  /** Items per second so far (0 before the first). */
  rate: number;
  /** The unit of the count. */
  unit: string;
  /** The `set_postfix` values, as text (`loss=0.25`). */
  postfix: string;
  /** Whether the bar has been closed. */
  done: boolean;
}

const listeners = new Set<(state: ProgressState) => void>();

/**
 * Calls `listener` with every update of every bar (throttled as the bar's output is, and always
 * on `close()`); returns the function that stops it.
 */
export function on_progress(
  listener: (state: ProgressState) => void,
): () => void {
  if (typeof listener !== "function")
    throw new TorchError(
      `on_progress(): argument 'listener' must be a function, not ${typeof listener}`,
    );
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Node's stderr, when there is one. */
function defaultFile(): ProgressFile | null {
  const p = (globalThis as { process?: { stderr?: ProgressFile } }).process;
  return p?.stderr && typeof p.stderr.write === "function" ? p.stderr : null;
}

/**
 * The number of items of `it` when it says: an array's `length`, a Set's `size`, a DataLoader's
 * or Dataset's `len()`.
 */
function lengthOf(it: unknown): number | null {
  if (it === null || typeof it !== "object") return null;
  const o = it as { length?: unknown; size?: unknown; len?: unknown };
  let n: unknown = null;
  if (typeof o.length === "number") n = o.length;
  else if (typeof o.size === "number") n = o.size;
  else if (typeof o.len === "function") {
    try {
      n = (o.len as () => unknown).call(it);
    } catch {
      n = null; // an iterable dataset without a length
    }
  }
  return typeof n === "number" && Number.isFinite(n) ? n : null;
}

/** A bar over `iterable` (or counting by hand without one): see the module's description. */
export class ProgressBar<T = unknown> implements Iterable<T>, AsyncIterable<T> {
  /** Items counted so far. */
  n = 0;
  /** Items expected, or `null`. */
  total: number | null;
  /** The text before the bar. */
  desc: string;
  readonly #iterable: Iterable<T> | AsyncIterable<T> | null;
  readonly #file: ProgressFile | null;
  readonly #tty: boolean;
  readonly #options: ProgressOptions;
  readonly #clock: () => number;
  readonly #start: number;
  readonly #interval: number;
  #lastWrite = -Infinity;
  #lastLen = 0;
  #lastLine = "";
  #postfix = "";
  #closed = false;

  constructor(
    iterable: Iterable<T> | AsyncIterable<T> | null = null,
    options: ProgressOptions = {},
  ) {
    if (
      iterable !== null &&
      !(
        typeof iterable === "object" &&
        (Symbol.iterator in iterable || Symbol.asyncIterator in iterable)
      )
    )
      throw new TorchError(
        `progress(): argument 'iterable' must be an iterable or async iterable, not ${typeof iterable}`,
      );
    this.#iterable = iterable;
    this.#options = options;
    this.total = options.total ?? lengthOf(iterable);
    this.desc = options.desc ?? "";
    this.#file =
      options.disable === true
        ? null
        : options.file === undefined
          ? defaultFile()
          : options.file;
    this.#tty = this.#file?.isTTY === true;
    this.#clock = options.clock ?? (() => performance.now() / 1000);
    this.#interval = options.mininterval ?? (this.#tty ? 0.1 : 10);
    this.#start = this.#clock();
    this.#refresh(true);
  }

  /** Counts `n` more items (default 1). */
  update(n = 1): void {
    if (this.#closed) return;
    this.n += n;
    this.#refresh(false);
  }

  /** Sets the description (redrawn now). */
  set_description(desc: string): void {
    this.desc = desc;
    this.#refresh(true);
  }

  /** Shows `key=value` pairs after the counts (numbers with 4 significant digits, as tqdm). */
  set_postfix(values: Record<string, unknown>): void {
    this.#postfix = Object.entries(values)
      .map(
        ([k, v]) =>
          `${k}=${typeof v === "number" && !Number.isInteger(v) ? Number(v.toPrecision(4)) : String(v)}`,
      )
      .join(", ");
    this.#refresh(false);
  }

  /** Writes the last state and ends the line (clears it with `leave: false` on a terminal). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#emit();
    if (this.#file === null) return;
    if (this.#options.leave === false && this.#tty)
      this.#file.write(`\r${" ".repeat(this.#lastLen)}\r`);
    else {
      this.#write();
      if (this.#tty) this.#file.write("\n");
    }
  }

  /** What the bar shows now. */
  state(): ProgressState {
    const elapsed = Math.max(0, this.#clock() - this.#start);
    return {
      desc: this.desc,
      n: this.n,
      total: this.total,
      elapsed,
      rate: elapsed > 0 ? this.n / elapsed : 0,
      unit: this.#options.unit ?? "it",
      postfix: this.#postfix,
      done: this.#closed,
    };
  }

  /** The line as written: `desc:  40%|████      | 4/10 [00:02<00:03,  1.99it/s]`. */
  toString(): string {
    return formatLine(this.state(), {
      unitScale: this.#options.unit_scale === true,
      width:
        this.#options.ncols ??
        (this.#tty && this.#file?.columns ? this.#file.columns : 80),
    });
  }

  *[Symbol.iterator](): Iterator<T> {
    const it = this.#iterable;
    if (it === null || !(Symbol.iterator in it))
      throw new TorchError(
        "progress(): this bar's iterable is not synchronous: use for await",
      );
    try {
      for (const item of it) {
        yield item;
        this.update(1);
      }
    } finally {
      this.close();
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const it = this.#iterable;
    if (it === null)
      throw new TorchError("progress(): this bar has no iterable");
    try {
      for await (const item of it as AsyncIterable<T>) {
        yield item;
        this.update(1);
      }
    } finally {
      this.close();
    }
  }

  #refresh(force: boolean): void {
    const now = this.#clock();
    if (!force && now - this.#lastWrite < this.#interval) return;
    this.#lastWrite = now;
    this.#emit();
    this.#write();
  }

  #emit(): void {
    if (this.#options.disable === true || listeners.size === 0) return;
    const s = this.state();
    for (const l of listeners) l(s);
  }

  #write(): void {
    if (this.#file === null) return;
    const line = this.toString();
    // Closing repeats no line a log already has.
    if (this.#closed && !this.#tty && line === this.#lastLine) return;
    this.#lastLine = line;
    if (this.#tty) {
      const pad = Math.max(0, this.#lastLen - line.length);
      this.#file.write(`\r${line}${" ".repeat(pad)}`);
      this.#lastLen = line.length;
    } else this.#file.write(`${line}\n`);
  }
}

/**
 * A progress bar over `iterable` (tqdm's `tqdm(iterable, total=…, desc=…)`): iterate it as the
 * iterable (`for`/`for await`), or call `update(n)` on a bar made without one.
 */
export function progress<T>(
  iterable?: Iterable<T> | AsyncIterable<T> | null,
  options?: ProgressOptions,
): ProgressBar<T> {
  return new ProgressBar(iterable ?? null, options);
}

/**
 * @internal A byte-counting bar for a download or load named `name`, as a `(loaded, total)`
 * callback: made at the first call, closed when `loaded` reaches `total` (or by `close()`).
 */
export function bytesBar(
  name: string,
): ((loaded: number, total: number | undefined) => void) & { close(): void } {
  let bar: ProgressBar | null = null;
  const report = (loaded: number, total: number | undefined) => {
    bar ??= progress(null, {
      desc: name,
      total: total ?? null,
      unit: "B",
      unit_scale: true,
    });
    if (total !== undefined) bar.total = total;
    bar.update(loaded - bar.n);
    if (total !== undefined && loaded >= total) bar.close();
  };
  return Object.assign(report, { close: () => bar?.close() });
}

// ---- the line's text ----

/** `mm:ss`, or `h:mm:ss` past an hour (tqdm's `format_interval`). */
export function formatInterval(seconds: number): string {
  const t = Math.floor(seconds);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const s = t % 60;
  const two = (v: number) => String(v).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}

/** `999`, `1.23k`, `45.6M`: three significant digits with a 1000-step prefix (tqdm's `format_sizeof`). */
export function formatSizeof(n: number): string {
  let v = n;
  for (const prefix of ["", "k", "M", "G", "T", "P"]) {
    if (Math.abs(v) < 999.5) {
      if (Math.abs(v) < 99.95) {
        if (Math.abs(v) < 9.995) return `${v.toFixed(2)}${prefix}`;
        return `${v.toFixed(1)}${prefix}`;
      }
      return `${v.toFixed(0)}${prefix}`;
    }
    v /= 1000;
  }
  return `${v.toFixed(1)}E`;
}

const PARTIAL = " ▏▎▍▌▋▊▉";

function formatLine(
  s: ProgressState,
  o: { unitScale: boolean; width: number },
): string {
  const count = (v: number) =>
    o.unitScale ? formatSizeof(v) : String(Math.round(v * 1e6) / 1e6);
  const rate =
    s.rate > 0
      ? `${o.unitScale ? formatSizeof(s.rate) : s.rate.toFixed(2).padStart(5)}${s.unit}/s`
      : `?${s.unit}/s`;
  const desc = s.desc ? `${s.desc}: ` : "";
  const post = s.postfix ? `, ${s.postfix}` : "";
  if (s.total === null || s.total <= 0)
    return `${desc}${count(s.n)}${s.unit} [${formatInterval(s.elapsed)}, ${rate}${post}]`;
  const frac = Math.min(1, s.n / s.total);
  const remaining = s.rate > 0 ? formatInterval((s.total - s.n) / s.rate) : "?";
  const pct = `${Math.floor(frac * 100)
    .toString()
    .padStart(3)}%`;
  const right = `| ${count(s.n)}/${count(s.total)} [${formatInterval(s.elapsed)}<${remaining}, ${rate}${post}]`;
  const barWidth = Math.max(
    1,
    o.width - desc.length - pct.length - right.length - 1,
  );
  const eighths = Math.floor(frac * barWidth * 8);
  const full = Math.floor(eighths / 8);
  let bar = "█".repeat(full);
  if (full < barWidth) bar += PARTIAL[eighths % 8]!;
  bar = bar.padEnd(barWidth);
  return `${desc}${pct}|${bar}${right}`;
}
