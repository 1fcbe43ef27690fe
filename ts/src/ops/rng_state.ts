/**
 * `torch.get_rng_state()` / `torch.set_rng_state(state)`: the state of the default random
 * generators as a uint8 CPU tensor, to restore later — a state saved and then restored draws the
 * same numbers again. It holds both generators `torch.manual_seed` seeds: the core's Philox
 * generator (seed and counter: `rand`, `randn`, `dropout`, …) and {@link default_generator}
 * (PyTorch's mt19937: `torch.utils.data`'s index streams). The layout is webtorch's own (PyTorch's
 * CPU state is mt19937's 5,056 bytes), so a state only goes back into webtorch's `set_rng_state`.
 *
 * @module
 */

import { core } from "../runtime.js";
import { ArgumentError, DeviceError, TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import { Tensor } from "../tensor/tensor.js";
import { default_generator } from "../generator.js";
import { fromValues } from "../extend/registry.js";

/** The first word of every state: "WTR1" (webtorch RNG state, layout 1). */
const TAG = 0x31525457;
/** Words: the tag, the Philox seed and counter (2 words each, low first), the twister's state. */
const PHILOX_WORDS = 5;
const WORDS = PHILOX_WORDS + default_generator._getState().length;
const BYTES = WORDS * 4;

/** The default generators' state, a uint8 tensor on the CPU (see the module's notes). */
export function get_rng_state(): Tensor {
  args("get_rng_state", arguments);
  const words = new Uint32Array(WORDS);
  const [seed, offset] = core.rng_position() as BigUint64Array;
  words[0] = TAG;
  words[1] = Number(seed! & 0xffffffffn);
  words[2] = Number(seed! >> 32n);
  words[3] = Number(offset! & 0xffffffffn);
  words[4] = Number(offset! >> 32n);
  words.set(default_generator._getState(), PHILOX_WORDS);
  return fromValues(new Uint8Array(words.buffer), [BYTES], "uint8", "cpu");
}

/** Restores the default generators' state from {@link get_rng_state}'s tensor. */
export function set_rng_state(new_state: Tensor): void {
  const t = args("set_rng_state", arguments).new_state;
  if (t.dtype !== "uint8")
    throw new ArgumentError("RNG state must be a torch.ByteTensor");
  if (t.device !== "cpu")
    throw new DeviceError(
      `set_rng_state: expected a cpu tensor, but got a ${t.device} tensor (the state lives on the host)`,
    );
  if (t.numel() !== BYTES)
    throw new TorchError(
      `Expected a webtorch RNG state of size ${BYTES} but found the input RNG state size to be ${t.numel()}`,
    );
  const bytes = Uint8Array.from(core.read_cpu(t._raw) as ArrayLike<number>);
  const words = new Uint32Array(bytes.buffer);
  if (words[0] !== TAG) throw new TorchError("Invalid webtorch RNG state");
  const seed = (BigInt(words[2]!) << 32n) | BigInt(words[1]!);
  const offset = (BigInt(words[4]!) << 32n) | BigInt(words[3]!);
  default_generator._setState(words.slice(PHILOX_WORDS));
  core.set_rng_position(seed, offset);
}
