/**
 * The single-step recurrent cells `RNNCell`, `LSTMCell` and `GRUCell`, and the step they share
 * with the sequence layers (rnn.ts, rnn_packed.ts): PyTorch's gate order (LSTM i, f, g, o; GRU
 * r, z, n), parameters named and initialised as PyTorch's (`weight_ih`, `bias_hh`,
 * U(-1/√hidden_size, 1/√hidden_size)).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full, zeros } from "../ops/creation.js";
import { scope } from "../lifetime.js";
import * as F from "./functional/index.js";
import * as init from "./init.js";
import { Module, Parameter, ownedParameter } from "./module.js";
import type { FactoryOptions } from "./layers.js";

/** Which cell a recurrent layer runs. */
export type Mode = "RNN_TANH" | "RNN_RELU" | "LSTM" | "GRU";

/** Gate blocks per cell: rows of the weights are `GATES[mode] · hidden_size`. */
export const GATES: Record<Mode, number> = {
  RNN_TANH: 1,
  RNN_RELU: 1,
  LSTM: 4,
  GRU: 3,
};

/** One time step's weights. */
export interface CellWeights {
  w_hh: Tensor;
  b_hh: Tensor | null;
  w_hr: Tensor | null;
}

/**
 * One step from the projected input `gi` (`x W_ihᵀ + b_ih`) and the state; returns `[h, c]`
 * (`c` only for LSTM).
 */
export function step(
  mode: Mode,
  gi: Tensor,
  h: Tensor,
  c: Tensor | null,
  w: CellWeights,
): [Tensor, Tensor | null] {
  const gh = F.linear(h, w.w_hh, w.b_hh);
  if (mode === "RNN_TANH") return [gi.add(gh).tanh(), null];
  if (mode === "RNN_RELU") return [gi.add(gh).relu(), null];
  if (mode === "LSTM") {
    const [i, f, g, o] = gi.add(gh).chunk(4, -1) as [
      Tensor,
      Tensor,
      Tensor,
      Tensor,
    ];
    const c2 = f.sigmoid().mul(c!).add(i.sigmoid().mul(g.tanh()));
    let h2 = o.sigmoid().mul(c2.tanh());
    if (w.w_hr) h2 = h2.matmul(w.w_hr.t());
    return [h2, c2];
  }
  const [ri, zi, ni] = gi.chunk(3, -1) as [Tensor, Tensor, Tensor];
  const [rh, zh, nh] = gh.chunk(3, -1) as [Tensor, Tensor, Tensor];
  const r = ri.add(rh).sigmoid();
  const z = zi.add(zh).sigmoid();
  const n = ni.add(r.mul(nh)).tanh();
  // (1 - z) * n + z * h  ==  n + z * (h - n)
  return [n.add(z.mul(h.sub(n))), null];
}

/** The shared machinery of the single-step cells (PyTorch's `RNNCellBase`). */
abstract class RNNCellBase extends Module {
  weight_ih: Parameter;
  weight_hh: Parameter;
  bias_ih: Parameter | null = null;
  bias_hh: Parameter | null = null;

  constructor(
    protected readonly mode: Mode,
    readonly input_size: number,
    readonly hidden_size: number,
    bias: boolean,
    options: FactoryOptions,
  ) {
    super();
    const gate = GATES[mode] * hidden_size;
    const p = (shape: number[]) =>
      ownedParameter(
        full(shape, 0, { dtype: "float32", device: options.device }),
      );
    this.weight_ih = p([gate, input_size]);
    this.weight_hh = p([gate, hidden_size]);
    if (bias) {
      this.bias_ih = p([gate]);
      this.bias_hh = p([gate]);
    } else {
      this.register_parameter("bias_ih", null);
      this.register_parameter("bias_hh", null);
    }
    const std = 1 / Math.sqrt(hidden_size);
    for (const w of this.parameters()) init.uniform_(w, -std, std);
  }

  /** One step; `h`/`c` zeros when absent; 1-D input is an unbatched step. */
  protected cell(
    input: Tensor,
    h: Tensor | null,
    c: Tensor | null,
  ): [Tensor, Tensor | null] {
    if (input.ndim !== 1 && input.ndim !== 2)
      throw new TorchError(
        `${this.constructor.name}: Expected input to be 1D or 2D, got ${input.ndim}D instead`,
      );
    if (input.shape.at(-1) !== this.input_size)
      throw new TorchError(
        `input has inconsistent input_size: got ${input.shape.at(-1)} expected ${this.input_size}`,
      );
    return scope(() => {
      const batched = input.ndim === 2;
      const x = batched ? input : input.unsqueeze(0);
      const n = x.shape[0]!;
      const device = input.device;
      let h0 = h ?? zeros([n, this.hidden_size], { device });
      let c0 =
        this.mode === "LSTM"
          ? (c ?? zeros([n, this.hidden_size], { device }))
          : null;
      if (!batched) {
        if (h) h0 = h0.unsqueeze(0);
        if (c) c0 = c0!.unsqueeze(0);
      }
      const gi = F.linear(x, this.weight_ih, this.bias_ih);
      let [h1, c1] = step(this.mode, gi, h0, c0, {
        w_hh: this.weight_hh,
        b_hh: this.bias_hh,
        w_hr: null,
      });
      if (!batched) {
        h1 = h1.squeeze(0);
        c1 = c1?.squeeze(0) ?? null;
      }
      return [h1, c1] as [Tensor, Tensor | null];
    });
  }
}

/** One Elman RNN step. */
export class RNNCell extends RNNCellBase {
  constructor(
    input_size: number,
    hidden_size: number,
    bias = true,
    readonly nonlinearity: "tanh" | "relu" = "tanh",
    options: FactoryOptions = {},
  ) {
    const a = args("nn.RNNCell", arguments);
    super(
      a.nonlinearity === "relu" ? "RNN_RELU" : "RNN_TANH",
      a.input_size,
      a.hidden_size,
      a.bias,
      { device: a.device as FactoryOptions["device"] },
    );
    this.nonlinearity = a.nonlinearity;
  }

  /** `h'`. */
  override forward(input: Tensor, hx: Tensor | null = null): Tensor {
    return this.cell(input, hx, null)[0];
  }
}

/** One LSTM step. */
export class LSTMCell extends RNNCellBase {
  constructor(
    input_size: number,
    hidden_size: number,
    bias = true,
    options: FactoryOptions = {},
  ) {
    const a = args("nn.LSTMCell", arguments);
    super("LSTM", a.input_size, a.hidden_size, a.bias, {
      device: a.device as FactoryOptions["device"],
    });
  }

  /** `[h', c']`; `hx` is `[h, c]` or absent (zeros). */
  override forward(
    input: Tensor,
    hx: readonly [Tensor, Tensor] | null = null,
  ): [Tensor, Tensor] {
    const [h, c] = this.cell(input, hx?.[0] ?? null, hx?.[1] ?? null);
    return [h, c!];
  }
}

/** One GRU step. */
export class GRUCell extends RNNCellBase {
  constructor(
    input_size: number,
    hidden_size: number,
    bias = true,
    options: FactoryOptions = {},
  ) {
    const a = args("nn.GRUCell", arguments);
    super("GRU", a.input_size, a.hidden_size, a.bias, {
      device: a.device as FactoryOptions["device"],
    });
  }

  /** `h'`. */
  override forward(input: Tensor, hx: Tensor | null = null): Tensor {
    return this.cell(input, hx, null)[0];
  }
}
