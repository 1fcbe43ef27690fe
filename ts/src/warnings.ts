/**
 * `torch.warnings`: how webtorch warns, and how to silence it (after Python's `warnings`).
 *
 * Every warning webtorch gives goes through {@link warnOnce}: it has a key (what it is about,
 * e.g. `"device.cpu-fallback"`) and is written once per key with `console.warn`. Filters decide
 * what happens to a warning, the newest matching filter first:
 *
 * - `"ignore"`: nothing is written;
 * - `"default"`: written the first time its key is seen (what happens when no filter matches);
 * - `"always"`: written every time;
 * - `"error"`: thrown as a {@link TorchWarning} instead.
 *
 * A filter matches a warning whose message starts with its `message` pattern (a string, or a
 * `RegExp` tested against the message) and whose key starts with its `key` (both default to
 * everything).
 *
 * The notes on which device webtorch runs on (`console.info`, keys `"device.…"`) follow the same
 * filters. They are given while `import "webtorch"` loads, before a program can add a filter: in
 * Node the environment variable `WEBTORCH_WARNINGS` sets filters first (like `PYTHONWARNINGS`), a
 * comma-separated list of `action` or `action:key-prefix`, e.g. `WEBTORCH_WARNINGS=ignore` or
 * `WEBTORCH_WARNINGS=ignore:device.`; the last entry is tried first.
 *
 * @example
 * torch.warnings.simplefilter("ignore"); // no warnings at all
 * torch.warnings.filterwarnings("ignore", { key: "device." }); // not the device notes
 * torch.warnings.filterwarnings("error", { message: /webtorch: live tensor memory/ });
 *
 * @module
 */

import { TorchError } from "./errors.js";

/** What a filter does with the warnings it matches (Python's `warnings` actions). */
export type WarningAction = "ignore" | "default" | "always" | "error";

/** Which warnings a filter applies to: all of them when both are left out. */
export interface WarningFilter {
  /** The message starts with this string, or this `RegExp` matches it. */
  message?: string | RegExp;
  /** The warning's key starts with this (keys are dotted: `"device.cpu-fallback"`). */
  key?: string;
}

/** A warning turned into an error by an `"error"` filter. */
export class TorchWarning extends TorchError {
  static {
    this.prototype.name = "TorchWarning";
  }
  /** The warning's key (see {@link filterwarnings}). */
  readonly key: string;
  constructor(key: string, message: string) {
    super(message);
    this.key = key;
  }
}

interface Filter extends WarningFilter {
  action: WarningAction;
}

const ACTIONS: readonly WarningAction[] = [
  "ignore",
  "default",
  "always",
  "error",
];
let filters: Filter[] = fromEnvironment();
const seen = new Set<string>();

/** The filters `WEBTORCH_WARNINGS` sets in Node (see the module's doc); none elsewhere. */
function fromEnvironment(): Filter[] {
  const env = (
    globalThis as {
      process?: { env?: Record<string, string | undefined> };
    }
  ).process?.env?.WEBTORCH_WARNINGS;
  const out: Filter[] = [];
  for (const item of (env ?? "").split(",")) {
    const [action, key] = item.trim().split(":", 2) as [string, string?];
    if (!ACTIONS.includes(action as WarningAction)) continue;
    out.unshift({ action: action as WarningAction, ...(key ? { key } : {}) });
  }
  return out;
}

function checkAction(action: WarningAction): void {
  if (!ACTIONS.includes(action))
    throw new TorchError(
      `invalid action: '${String(action)}' (one of ${ACTIONS.join(", ")})`,
    );
}

/**
 * Adds a filter in front of the others (or behind them with `append`): warnings matching
 * `which` get `action`.
 */
export function filterwarnings(
  action: WarningAction,
  which: WarningFilter = {},
  append = false,
): void {
  checkAction(action);
  const f: Filter = { action, ...which };
  filters = append ? [...filters, f] : [f, ...filters];
}

/** A filter for every warning: `simplefilter("ignore")` silences webtorch. */
export function simplefilter(action: WarningAction, append = false): void {
  filterwarnings(action, {}, append);
}

/**
 * Removes every filter (those `WEBTORCH_WARNINGS` set too) and forgets which warnings were given
 * (each may be given again).
 */
export function resetwarnings(): void {
  filters = [];
  seen.clear();
}

function actionFor(key: string, message: string): WarningAction {
  for (const f of filters) {
    if (f.key !== undefined && !key.startsWith(f.key)) continue;
    const m = f.message;
    if (m !== undefined) {
      const hit =
        typeof m === "string"
          ? message.startsWith(m)
          : (m.lastIndex = 0) === 0 && m.test(message);
      if (!hit) continue;
    }
    return f.action;
  }
  return "default";
}

/**
 * Gives warning `message` under `key` as the filters say: by default once per key with
 * `console.warn`. Returns whether it was written. (For webtorch's own modules.)
 */
export function warnOnce(key: string, message: string): boolean {
  return give(key, message, true);
}

/**
 * Gives warning `message` under `key` as the filters say, but under `"default"` every time: for
 * a warning that decides itself when to fire again (the memory-pressure warning re-armed by
 * `set_memory_warning`). (For webtorch's own modules.)
 */
export function warn(key: string, message: string): boolean {
  return give(key, message, false);
}

/**
 * Gives note `message` under `key` (which device webtorch runs on): on stderr in Node, where
 * stdout is the program's output, with `console.info` elsewhere. The filters apply as to
 * warnings, except that `"error"` does not throw (a note is no problem). (For webtorch's own
 * modules.)
 */
export function note(key: string, message: string): boolean {
  const action = actionFor(key, message);
  if (action === "ignore") return false;
  const stderr = (
    globalThis as { process?: { stderr?: { write?(s: string): unknown } } }
  ).process?.stderr;
  if (typeof stderr?.write === "function") stderr.write(`${message}\n`);
  else console.info(message);
  return true;
}

function give(key: string, message: string, once: boolean): boolean {
  const action = actionFor(key, message);
  if (action === "ignore") return false;
  if (action === "error") throw new TorchWarning(key, message);
  if (action === "default" && once) {
    if (seen.has(key)) return false;
    seen.add(key);
  }
  console.warn(message);
  return true;
}
