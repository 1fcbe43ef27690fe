/**
 * The recurrent layers over a `PackedSequence` (rnn_utils.ts): each layer and direction projects
 * the packed steps with one matmul, then steps through time on the sequences still running —
 * the first `batch_sizes[t]` rows, since packing sorts by decreasing length — so no work is
 * spent on padding, and each sequence's final hidden state is the one of its own last step (the
 * reverse direction starts each sequence at its last step). As PyTorch, an initial state is
 * permuted into the packed order and the final states back into the batch's order.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import type { Tensor } from "../tensor/tensor.js";
import { zeros } from "../ops/creation.js";
import { cat, stack } from "../ops/indexing.js";
import { scope } from "../lifetime.js";
import * as F from "./functional/index.js";
import type { CellWeights, Mode } from "./rnn_cells.js";
import { PackedSequence } from "./rnn_utils.js";

/** What the packed runner needs of a layer (`RNNBase`). */
export interface RecurrentSpec {
  mode: Mode;
  input_size: number;
  hidden_size: number;
  /** The output size of one direction (`proj_size` or `hidden_size`). */
  real: number;
  num_layers: number;
  bidirectional: boolean;
  dropout: number;
  training: boolean;
  param(name: string): Tensor | null;
  /** Throws PyTorch's error when `h` is not of shape `want`. */
  checkHidden(h: Tensor, want: number[], what: string): void;
  step(
    gi: Tensor,
    h: Tensor,
    c: Tensor | null,
    w: CellWeights,
  ): [Tensor, Tensor | null];
}

/** One direction of one layer over the packed steps: `[outputs (packed), h_n, c_n]`. */
function direction(
  m: RecurrentSpec,
  gi: Tensor,
  sizes: readonly number[],
  h0: Tensor,
  c0: Tensor | null,
  w: CellWeights,
  reverse: boolean,
): [Tensor, Tensor, Tensor | null] {
  const steps = sizes.length;
  const offsets: number[] = [];
  sizes.reduce((o, bs) => (offsets.push(o), o + bs), 0);
  const ys = new Array<Tensor>(steps);
  if (!reverse) {
    let h = h0;
    let c = c0;
    // Sequences that end leave their final state behind (last rows first).
    const hEnds: Tensor[] = [];
    const cEnds: Tensor[] = [];
    for (let t = 0; t < steps; t++) {
      const bs = sizes[t]!;
      const running = h.shape[0]!;
      if (running > bs) {
        hEnds.push(h.narrow(0, bs, running - bs));
        h = h.narrow(0, 0, bs);
        if (c) {
          cEnds.push(c.narrow(0, bs, running - bs));
          c = c.narrow(0, 0, bs);
        }
      }
      [h, c] = m.step(gi.narrow(0, offsets[t]!, bs), h, c, w);
      ys[t] = h;
    }
    hEnds.push(h);
    if (c) cEnds.push(c);
    const hN = cat(hEnds.reverse(), 0);
    return [cat(ys, 0), hN, c ? cat(cEnds.reverse(), 0) : null];
  }
  // Backwards: a sequence joins (from the initial state) at its last step.
  let h = h0.narrow(0, 0, sizes[steps - 1]!);
  let c = c0 ? c0.narrow(0, 0, sizes[steps - 1]!) : null;
  for (let t = steps - 1; t >= 0; t--) {
    const bs = sizes[t]!;
    const running = h.shape[0]!;
    if (running < bs) {
      h = cat([h, h0.narrow(0, running, bs - running)], 0);
      if (c) c = cat([c, c0!.narrow(0, running, bs - running)], 0);
    }
    [h, c] = m.step(gi.narrow(0, offsets[t]!, bs), h, c, w);
    ys[t] = h;
  }
  return [cat(ys, 0), h, c];
}

/**
 * Runs `m` over `input`; `hx` as `RNNBase.run` takes it (in the batch's order). Returns
 * `[output, h_n]` (LSTM: `[output, [h_n, c_n]]`), `output` packed like `input`.
 */
export function runPacked(
  m: RecurrentSpec,
  input: PackedSequence,
  h0: Tensor | null,
  c0: Tensor | null,
): [PackedSequence, Tensor | [Tensor, Tensor]] {
  const data = input.data;
  if (data.ndim !== 2)
    throw new TorchError(
      `packed input must have 2 dimensions, got ${data.ndim}`,
    );
  if (data.shape[1] !== m.input_size)
    throw new TorchError(
      `input.size(-1) must be equal to input_size. Expected ${m.input_size}, got ${data.shape[1]}`,
    );
  const lstm = m.mode === "LSTM";
  const sizes = input.sizes;
  const batch = sizes[0]!;
  const dirs = m.bidirectional ? 2 : 1;
  const hShape = [m.num_layers * dirs, batch, m.real];
  const cShape = [m.num_layers * dirs, batch, m.hidden_size];
  for (const h of [h0, c0])
    if (h && h.ndim !== 3)
      throw new TorchError(
        `For batched 3-D input, hx should also be 3-D but got ${h.ndim}-D tensor`,
      );
  if (h0) m.checkHidden(h0, hShape, "hidden");
  if (c0) m.checkHidden(c0, cShape, "cell");
  const [out, hOut, cOut] = scope(() => {
    const device = data.device;
    const sorted = input.sorted_indices;
    const permute = (t: Tensor) => (sorted ? t.index_select(1, sorted) : t);
    const hInit = h0 ? permute(h0) : zeros(hShape, { device });
    const cInit = lstm ? (c0 ? permute(c0) : zeros(cShape, { device })) : null;
    const hN: Tensor[] = [];
    const cN: Tensor[] = [];
    let layerIn = data;
    for (let layer = 0; layer < m.num_layers; layer++) {
      const outs: Tensor[] = [];
      for (let d = 0; d < dirs; d++) {
        const sfx = `_l${layer}${d === 1 ? "_reverse" : ""}`;
        const k = layer * dirs + d;
        const gi = F.linear(
          layerIn,
          m.param(`weight_ih${sfx}`)!,
          m.param(`bias_ih${sfx}`),
        );
        const w: CellWeights = {
          w_hh: m.param(`weight_hh${sfx}`)!,
          b_hh: m.param(`bias_hh${sfx}`),
          w_hr: m.param(`weight_hr${sfx}`),
        };
        const [ys, h, c] = direction(
          m,
          gi,
          sizes,
          hInit.select(0, k),
          cInit ? cInit.select(0, k) : null,
          w,
          d === 1,
        );
        outs.push(ys);
        hN.push(h);
        if (c) cN.push(c);
      }
      layerIn = dirs === 1 ? outs[0]! : cat(outs, 1);
      if (m.dropout > 0 && layer < m.num_layers - 1)
        layerIn = F.dropout(layerIn, m.dropout, m.training);
    }
    const unsorted = input.unsorted_indices;
    const back = (t: Tensor) => (unsorted ? t.index_select(1, unsorted) : t);
    return [layerIn, back(stack(hN, 0)), lstm ? back(stack(cN, 0)) : null];
  });
  return [input._with(out), lstm ? [hOut, cOut!] : hOut];
}
