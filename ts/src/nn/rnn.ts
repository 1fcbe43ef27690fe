/**
 * Recurrent layers: `RNN`, `LSTM`, `GRU` (multi-layer, bidirectional, `batch_first`, unbatched
 * input, inter-layer dropout; LSTM `proj_size`); the single-step cells are in rnn_cells.ts.
 * Parameters carry PyTorch's names (`weight_ih_l0`, `bias_hh_l1_reverse`, `weight_hr_l0` …) in
 * PyTorch's order, so state dicts load both ways, and start from U(-1/√hidden_size,
 * 1/√hidden_size) as in PyTorch.
 *
 * Each layer and direction projects the whole input sequence with one matmul, then steps through
 * time with the hidden-state matmul and the gate math (rnn_cells.ts `step`, shared with the
 * cells). All of it is differentiable core ops, so backward is the core's. A `PackedSequence`
 * input (`nn.utils.rnn`) runs in rnn_packed.ts and gives a packed output.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { args, omit } from "../schema/index.js";
import type { Tensor } from "../tensor/tensor.js";
import { full, zeros } from "../ops/creation.js";
import { GATES, step, type CellWeights, type Mode } from "./rnn_cells.js";
import { stack, cat } from "../ops/indexing.js";
import { scope } from "../lifetime.js";
import * as F from "./functional/index.js";
import * as init from "./init.js";
import { Module, ownedParameter } from "./module.js";
import type { FactoryOptions } from "./layers.js";
import { PackedSequence } from "./rnn_utils.js";
import { runPacked } from "./rnn_packed.js";

export type { CellWeights, Mode } from "./rnn_cells.js";

const shapeStr = (s: readonly number[]) => `[${s.join(", ")}]`;

/** Options of {@link RNN}, {@link LSTM} and {@link GRU}. */
export interface RNNOptions extends FactoryOptions {
  /** Number of stacked recurrent layers (default 1). */
  num_layers?: number;
  /** `RNN` only: `"tanh"` (default) or `"relu"`. */
  nonlinearity?: "tanh" | "relu";
  /** Add a learnable bias (default true). */
  bias?: boolean;
  /** Input and output are `(N, L, H)` instead of `(L, N, H)`. */
  batch_first?: boolean;
  /** Dropout on the outputs of each layer but the last (training only). */
  dropout?: number;
  /** Run a second, reverse-direction RNN and concatenate the outputs (default false). */
  bidirectional?: boolean;
  /** `LSTM` only: project the hidden state to this size (0: no projection). */
  proj_size?: number;
}

/** Options of {@link LSTM} and {@link GRU} (and of {@link RNNBase}): no `nonlinearity`. */
export type LSTMOptions = Omit<RNNOptions, "nonlinearity">;

/** The shared machinery of RNN, LSTM and GRU (PyTorch's `RNNBase`). */
export abstract class RNNBase extends Module {
  readonly num_layers: number;
  readonly bias: boolean;
  readonly batch_first: boolean;
  readonly dropout: number;
  readonly bidirectional: boolean;
  readonly proj_size: number;
  readonly mode: Mode;

  constructor(
    mode: Mode,
    readonly input_size: number,
    readonly hidden_size: number,
    options: LSTMOptions = {},
  ) {
    super();
    const a = args("nn.RNNBase", arguments);
    mode = a.mode;
    ({ input_size, hidden_size } = Object.assign(this, {
      input_size: a.input_size,
      hidden_size: a.hidden_size,
    }));
    const o = omit(a, "mode", "input_size", "hidden_size") as LSTMOptions;
    this.mode = mode;
    this.num_layers = o.num_layers ?? 1;
    this.bias = o.bias ?? true;
    this.batch_first = o.batch_first ?? false;
    this.dropout = o.dropout ?? 0;
    this.bidirectional = o.bidirectional ?? false;
    this.proj_size = o.proj_size ?? 0;
    if (this.dropout < 0 || this.dropout > 1)
      throw new TorchError(
        "dropout should be a number in range [0, 1] representing the probability of an element being zeroed",
      );
    if (!Number.isInteger(hidden_size) || hidden_size <= 0)
      throw new TorchError("hidden_size must be greater than zero");
    if (!Number.isInteger(this.num_layers) || this.num_layers <= 0)
      throw new TorchError("num_layers must be greater than zero");
    if (this.proj_size < 0)
      throw new TorchError(
        "proj_size should be a positive integer or zero to disable projections",
      );
    if (this.proj_size >= hidden_size)
      throw new TorchError("proj_size has to be smaller than hidden_size");
    if (this.proj_size > 0 && mode !== "LSTM")
      throw new TorchError(
        "proj_size argument is only supported for LSTM, not RNN or GRU",
      );
    const gate = GATES[mode] * hidden_size;
    const real = this.proj_size > 0 ? this.proj_size : hidden_size;
    const dirs = this.bidirectional ? 2 : 1;
    const p = (shape: number[]) =>
      ownedParameter(full(shape, 0, { dtype: "float32", device: o.device }));
    for (let layer = 0; layer < this.num_layers; layer++) {
      for (let d = 0; d < dirs; d++) {
        const sfx = `_l${layer}${d === 1 ? "_reverse" : ""}`;
        const inSize = layer === 0 ? input_size : real * dirs;
        this.register_parameter(`weight_ih${sfx}`, p([gate, inSize]));
        this.register_parameter(`weight_hh${sfx}`, p([gate, real]));
        if (this.bias) {
          this.register_parameter(`bias_ih${sfx}`, p([gate]));
          this.register_parameter(`bias_hh${sfx}`, p([gate]));
        }
        if (this.proj_size > 0)
          this.register_parameter(
            `weight_hr${sfx}`,
            p([this.proj_size, hidden_size]),
          );
      }
    }
    this.reset_parameters();
  }

  /** Every weight and bias from U(-1/√hidden_size, 1/√hidden_size). */
  reset_parameters(): void {
    const std = 1 / Math.sqrt(this.hidden_size);
    for (const w of this.parameters()) init.uniform_(w, -std, std);
  }

  #param(name: string): Tensor | null {
    return (this as unknown as Record<string, Tensor | null>)[name] ?? null;
  }

  /** The output size of one direction. */
  get #real(): number {
    return this.proj_size > 0 ? this.proj_size : this.hidden_size;
  }

  #checkHidden(h: Tensor, want: number[], what: string): void {
    if (h.shape.join() !== want.join())
      throw new TorchError(
        `Expected ${what} size (${want.join(", ")}), got ${shapeStr(h.shape)}`,
      );
  }

  /**
   * Runs the sequence. `hx`: the initial hidden state `(num_layers·D, N, H_out)` (LSTM: the pair
   * `[h_0, c_0]`, `c_0` being `(num_layers·D, N, hidden_size)`), zeros when absent. Returns
   * `[output, h_n]` (LSTM: `[output, [h_n, c_n]]`).
   */
  protected run(
    input: Tensor | PackedSequence,
    hx: Tensor | readonly [Tensor, Tensor] | null,
  ): [Tensor | PackedSequence, Tensor | [Tensor, Tensor]] {
    const name =
      this.mode === "LSTM" ? "LSTM" : this.mode === "GRU" ? "GRU" : "RNN";
    if (input instanceof PackedSequence) {
      const [h0, c0] = this.#hx(name, hx);
      return runPacked(
        {
          mode: this.mode,
          input_size: this.input_size,
          hidden_size: this.hidden_size,
          real: this.#real,
          num_layers: this.num_layers,
          bidirectional: this.bidirectional,
          dropout: this.dropout,
          training: this.training,
          param: (n) => this.#param(n),
          checkHidden: (h, want, what) => this.#checkHidden(h, want, what),
          step: (gi, h, c, w) => step(this.mode, gi, h, c, w),
        },
        input,
        h0,
        c0,
      );
    }
    if (input.ndim !== 2 && input.ndim !== 3)
      throw new TorchError(
        `${name}: Expected input to be 2D or 3D, got ${input.ndim}D tensor instead`,
      );
    const batched = input.ndim === 3;
    if (input.shape.at(-1) !== this.input_size)
      throw new TorchError(
        `input.size(-1) must be equal to input_size. Expected ${this.input_size}, got ${input.shape.at(-1)}`,
      );
    const lstm = this.mode === "LSTM";
    let [h0, c0] = this.#hx(name, hx);
    if (h0) {
      for (const h of [h0, c0]) {
        if (h && batched && h.ndim !== 3)
          throw new TorchError(
            `For batched 3-D input, hx should also be 3-D but got ${h.ndim}-D tensor`,
          );
        if (h && !batched && h.ndim !== 2)
          throw new TorchError(
            `For unbatched 2-D input, hx should also be 2-D but got ${h.ndim}-D tensor`,
          );
      }
    }
    return scope(() => {
      // Work in (L, N, H).
      let x = batched ? input : input.unsqueeze(1);
      if (batched && this.batch_first) x = x.transpose(0, 1);
      if (!batched) {
        h0 = h0?.unsqueeze(1) ?? null;
        c0 = c0?.unsqueeze(1) ?? null;
      }
      const [len, n] = x.shape as [number, number];
      const dirs = this.bidirectional ? 2 : 1;
      const real = this.#real;
      const device = input.device;
      const hShape = [this.num_layers * dirs, n, real];
      const cShape = [this.num_layers * dirs, n, this.hidden_size];
      if (h0) this.#checkHidden(h0, hShape, "hidden");
      if (c0) this.#checkHidden(c0, cShape, "cell");
      const hInit = h0 ?? zeros(hShape, { device });
      const cInit = lstm ? (c0 ?? zeros(cShape, { device })) : null;
      const hN: Tensor[] = [];
      const cN: Tensor[] = [];
      let layerIn = x;
      for (let layer = 0; layer < this.num_layers; layer++) {
        const outs: Tensor[] = [];
        for (let d = 0; d < dirs; d++) {
          const sfx = `_l${layer}${d === 1 ? "_reverse" : ""}`;
          const k = layer * dirs + d;
          const gi = F.linear(
            layerIn,
            this.#param(`weight_ih${sfx}`)!,
            this.#param(`bias_ih${sfx}`),
          );
          const w: CellWeights = {
            w_hh: this.#param(`weight_hh${sfx}`)!,
            b_hh: this.#param(`bias_hh${sfx}`),
            w_hr: this.#param(`weight_hr${sfx}`),
          };
          let h = hInit.select(0, k);
          let c = cInit ? cInit.select(0, k) : null;
          const ys: Tensor[] = new Array<Tensor>(len);
          for (let s = 0; s < len; s++) {
            const t = d === 0 ? s : len - 1 - s;
            [h, c] = step(this.mode, gi.select(0, t), h, c, w);
            ys[t] = h;
          }
          outs.push(stack(ys, 0));
          hN.push(h);
          if (c) cN.push(c);
        }
        layerIn = dirs === 1 ? outs[0]! : cat(outs, 2);
        if (this.dropout > 0 && layer < this.num_layers - 1)
          layerIn = F.dropout(layerIn, this.dropout, this.training);
      }
      let output = layerIn;
      let hOut = stack(hN, 0);
      let cOut = lstm ? stack(cN, 0) : null;
      if (!batched) {
        output = output.squeeze(1);
        hOut = hOut.squeeze(1);
        cOut = cOut?.squeeze(1) ?? null;
      } else if (this.batch_first) output = output.transpose(0, 1);
      return [output, lstm ? [hOut, cOut!] : hOut];
    });
  }

  /** `hx` as `[h_0, c_0]` (`c_0` null but for LSTM), checking its form. */
  #hx(
    name: string,
    hx: Tensor | readonly [Tensor, Tensor] | null | undefined,
  ): [Tensor | null, Tensor | null] {
    if (hx === null || hx === undefined) return [null, null];
    if (this.mode === "LSTM") {
      if (!Array.isArray(hx) || hx.length !== 2)
        throw new TorchError("LSTM: hx must be a pair (h_0, c_0)");
      return [hx[0] as Tensor, hx[1] as Tensor];
    }
    if (Array.isArray(hx)) throw new TorchError(`${name}: hx must be a Tensor`);
    return [hx as Tensor, null];
  }

  override extra_repr(): string {
    let s = `${this.input_size}, ${this.hidden_size}`;
    if (this.proj_size !== 0) s += `, proj_size=${this.proj_size}`;
    if (this.num_layers !== 1) s += `, num_layers=${this.num_layers}`;
    if (!this.bias) s += ", bias=False";
    if (this.batch_first) s += ", batch_first=True";
    if (this.dropout !== 0) s += `, dropout=${this.dropout}`;
    if (this.bidirectional) s += ", bidirectional=True";
    return s;
  }
}

/** Elman RNN: `h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh)` (or relu). */
export class RNN extends RNNBase {
  readonly nonlinearity: "tanh" | "relu";

  constructor(
    input_size: number,
    hidden_size: number,
    options: RNNOptions = {},
  ) {
    const a = args("nn.RNN", arguments);
    const nl = a.nonlinearity;
    super(
      nl === "tanh" ? "RNN_TANH" : "RNN_RELU",
      a.input_size,
      a.hidden_size,
      omit(a, "input_size", "hidden_size", "nonlinearity") as LSTMOptions,
    );
    this.nonlinearity = nl;
  }

  /** `[output, h_n]` (a packed input gives a packed output). */
  override forward(
    input: PackedSequence,
    hx?: Tensor | null,
  ): [PackedSequence, Tensor];
  override forward(input: Tensor, hx?: Tensor | null): [Tensor, Tensor];
  override forward(
    input: Tensor | PackedSequence,
    hx: Tensor | null = null,
  ): [Tensor | PackedSequence, Tensor] {
    return this.run(input, hx) as [Tensor, Tensor];
  }
}

/** Long short-term memory (PyTorch's gate layout `i, f, g, o`). */
export class LSTM extends RNNBase {
  constructor(
    input_size: number,
    hidden_size: number,
    options: LSTMOptions = {},
  ) {
    const a = args("nn.LSTM", arguments);
    super(
      "LSTM",
      a.input_size,
      a.hidden_size,
      omit(a, "input_size", "hidden_size") as LSTMOptions,
    );
  }

  /**
   * `[output, [h_n, c_n]]`; `hx` is `[h_0, c_0]` or absent (zeros). A packed input gives a
   * packed output.
   */
  override forward(
    input: PackedSequence,
    hx?: readonly [Tensor, Tensor] | null,
  ): [PackedSequence, [Tensor, Tensor]];
  override forward(
    input: Tensor,
    hx?: readonly [Tensor, Tensor] | null,
  ): [Tensor, [Tensor, Tensor]];
  override forward(
    input: Tensor | PackedSequence,
    hx: readonly [Tensor, Tensor] | null = null,
  ): [Tensor | PackedSequence, [Tensor, Tensor]] {
    return this.run(input, hx) as [Tensor, [Tensor, Tensor]];
  }
}

/** Gated recurrent unit (PyTorch's gate layout `r, z, n`). */
export class GRU extends RNNBase {
  constructor(
    input_size: number,
    hidden_size: number,
    options: LSTMOptions = {},
  ) {
    const a = args("nn.GRU", arguments);
    super(
      "GRU",
      a.input_size,
      a.hidden_size,
      omit(a, "input_size", "hidden_size") as LSTMOptions,
    );
  }

  /** `[output, h_n]` (a packed input gives a packed output). */
  override forward(
    input: PackedSequence,
    hx?: Tensor | null,
  ): [PackedSequence, Tensor];
  override forward(input: Tensor, hx?: Tensor | null): [Tensor, Tensor];
  override forward(
    input: Tensor | PackedSequence,
    hx: Tensor | null = null,
  ): [Tensor | PackedSequence, Tensor] {
    return this.run(input, hx) as [Tensor, Tensor];
  }
}
