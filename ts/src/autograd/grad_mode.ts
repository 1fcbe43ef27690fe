/**
 * Grad mode: whether ops are recorded for autograd, and the scopes that set it —
 * `torch.no_grad`, `torch.enable_grad`, `torch.inference_mode` (PyTorch's context managers, as
 * functions that run a callback). The mode is the core's.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { core } from "../runtime.js";

/** Whether ops are recorded for autograd right now. */
export function is_grad_enabled(): boolean {
  args("is_grad_enabled", arguments);
  return core.is_grad_enabled();
}

/** Turns recording on or off (prefer the scoped {@link no_grad} / {@link enable_grad}). */
export function set_grad_enabled(mode: boolean): void {
  ({ mode } = args("set_grad_enabled", arguments));
  core.set_grad_enabled(mode);
}

/**
 * Runs `fn` with grad mode set to `mode` and restores the previous mode afterwards — when `fn`
 * returns, throws, or (for an async `fn`) when its promise settles. NOTE: grad mode is global to
 * the core, as it is per thread in PyTorch; other code running while an async `fn` awaits sees
 * the same mode.
 */
function withGradMode<T>(mode: boolean, fn: () => T): T {
  const previous = core.set_grad_enabled(mode);
  let result: T;
  try {
    result = fn();
  } catch (err) {
    core.set_grad_enabled(previous);
    throw err;
  }
  if (result instanceof Promise) {
    return result.finally(() => core.set_grad_enabled(previous)) as T;
  }
  core.set_grad_enabled(previous);
  return result;
}

/** `with torch.no_grad():` — runs `fn` (sync or async) without recording ops for autograd. */
export function no_grad<T>(fn: () => T): T {
  ({ fn } = args("no_grad", arguments));
  return withGradMode(false, fn);
}

/** `with torch.enable_grad():` — runs `fn` with recording on, even inside {@link no_grad}. */
export function enable_grad<T>(fn: () => T): T {
  ({ fn } = args("enable_grad", arguments));
  return withGradMode(true, fn);
}

/**
 * `with torch.inference_mode():` — here the same as {@link no_grad} (the core has no separate
 * inference tensors; nothing is recorded either way).
 */
export function inference_mode<T>(fn: () => T): T {
  ({ fn } = args("inference_mode", arguments));
  return withGradMode(false, fn);
}
