/**
 * `torch.nn.utils.rnn`: variable-length batches for the recurrent layers. A `PackedSequence`
 * holds the time steps of a batch of sequences sorted by decreasing length, step after step
 * (`data`), with how many sequences are still running at each step (`batch_sizes`); the layers
 * step through it without computing on padding. Everything is made of differentiable core ops
 * (narrow, cat, index_select), so gradients flow back to the padded input as in PyTorch.
 *
 * Lengths are host values here, as in PyTorch (a list, or a CPU tensor).
 *
 * @module
 */

import { core } from "../runtime.js";
import { TorchError } from "../errors.js";
import { Tensor } from "../tensor/tensor.js";
import { full, tensor } from "../ops/creation.js";
import { cat, stack } from "../ops/indexing.js";

/** Lengths as PyTorch takes them: a list of numbers or a 1-D CPU integer tensor. */
export type Lengths = readonly number[] | Tensor;

function lengthList(lengths: Lengths): number[] {
  if (!(lengths instanceof Tensor)) return [...lengths];
  if (lengths.ndim !== 1 || lengths.device !== "cpu")
    throw new TorchError(
      `'lengths' argument should be a 1D CPU int64 tensor, but got ${lengths.ndim}D ${lengths.device} ${lengths.dtype} tensor`,
    );
  return Array.from(core.read_cpu(lengths._raw) as ArrayLike<number>, Number);
}

const longs = (v: readonly number[], device: Tensor["device"] = "cpu") =>
  tensor([...v], { dtype: "int64", device });

/**
 * A batch of variable-length sequences, packed (PyTorch's `PackedSequence`): `data` is
 * `(sum of lengths, *)`, `batch_sizes` a CPU int64 tensor; `sorted_indices` maps the packed order
 * to the original batch, `unsorted_indices` back (both null when the input was already sorted).
 */
export class PackedSequence {
  /** `batch_sizes` as numbers (the layers read them on the host). */
  readonly sizes: readonly number[];
  /** `unsorted_indices` as numbers, when known on the host. */
  _unsorted: readonly number[] | null = null;

  constructor(
    readonly data: Tensor,
    readonly batch_sizes: Tensor,
    readonly sorted_indices: Tensor | null = null,
    readonly unsorted_indices: Tensor | null = null,
  ) {
    this.sizes = lengthList(batch_sizes);
  }

  /** The same batch with other `data` (a layer's output). */
  _with(data: Tensor): PackedSequence {
    const p = new PackedSequence(
      data,
      this.batch_sizes,
      this.sorted_indices,
      this.unsorted_indices,
    );
    p._unsorted = this._unsorted;
    return p;
  }
}

/**
 * Packs a padded batch (`(T, B, *)`, or `(B, T, *)` with `batch_first`) of sequences with
 * `lengths`. With `enforce_sorted` (the default) the lengths must decrease; otherwise the batch
 * is sorted first and the permutation kept.
 */
export function pack_padded_sequence(
  input: Tensor,
  lengths: Lengths,
  batch_first = false,
  enforce_sorted = true,
): PackedSequence {
  let lens = lengthList(lengths);
  let x = input;
  let sorted: Tensor | null = null;
  let unsorted: Tensor | null = null;
  let inverse: number[] | null = null;
  if (enforce_sorted) {
    for (let i = 1; i < lens.length; i++)
      if (lens[i]! > lens[i - 1]!)
        throw new TorchError(
          "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do not need ONNX exportability.",
        );
  } else {
    // A stable sort by decreasing length (PyTorch's order for ties).
    const order = lens.map((_, i) => i).sort((a, b) => lens[b]! - lens[a]!);
    const inv = new Array<number>(order.length);
    order.forEach((o, i) => (inv[o] = i));
    inverse = inv;
    sorted = longs(order, input.device);
    unsorted = longs(inv, input.device);
    lens = order.map((i) => lens[i]!);
    x = x.index_select(batch_first ? 0 : 1, sorted);
  }
  if (batch_first) x = x.transpose(0, 1);
  const batch = x.shape[1]!;
  if (lens.length !== batch)
    throw new TorchError(
      `Expected \`len(lengths)\` to be equal to batch_size, but got ${lens.length} (batch_size=${batch})`,
    );
  if (lens.some((l) => l <= 0))
    throw new TorchError(
      "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0",
    );
  const steps = lens[0]!;
  if (steps > x.shape[0]!)
    throw new TorchError(
      `Expected sequence length to be larger than or equal to ${steps}, but got ${x.shape[0]}`,
    );
  const sizes: number[] = [];
  const parts: Tensor[] = [];
  for (let t = 0; t < steps; t++) {
    const bs = lens.filter((l) => l > t).length;
    sizes.push(bs);
    parts.push(x.select(0, t).narrow(0, 0, bs));
  }
  const packed = new PackedSequence(
    cat(parts, 0),
    longs(sizes),
    sorted,
    unsorted,
  );
  packed._unsorted = inverse;
  return packed;
}

/**
 * Pads a packed batch back to `(T, B, *)` (`(B, T, *)` with `batch_first`), `T` the longest
 * length or `total_length`; returns `[padded, lengths]` (lengths a CPU int64 tensor), in the
 * original batch order.
 */
export function pad_packed_sequence(
  sequence: PackedSequence,
  batch_first = false,
  padding_value = 0,
  total_length: number | null = null,
): [Tensor, Tensor] {
  const sizes = sequence.sizes;
  const steps = sizes.length;
  if (total_length !== null && total_length < steps)
    throw new TorchError(
      `Expected total_length to be at least the length of the longest sequence in input, but got total_length=${total_length} and max sequence length being ${steps}`,
    );
  const data = sequence.data;
  const batch = sizes[0]!;
  const rest = data.shape.slice(1);
  const pad = (n: number) =>
    full([n, ...rest], padding_value, {
      dtype: data.dtype,
      device: data.device,
    });
  const rows: Tensor[] = [];
  let offset = 0;
  for (const bs of sizes) {
    const part = data.narrow(0, offset, bs);
    rows.push(bs < batch ? cat([part, pad(batch - bs)], 0) : part);
    offset += bs;
  }
  for (let t = steps; t < (total_length ?? steps); t++) rows.push(pad(batch));
  let out = stack(rows, 0);
  const lens = Array.from({ length: batch }, (_, b) =>
    sizes.reduce((n, bs) => n + (bs > b ? 1 : 0), 0),
  );
  let lengths = lens;
  if (sequence.unsorted_indices !== null) {
    out = out.index_select(1, sequence.unsorted_indices);
    const inv = sequence._unsorted ?? lengthList(sequence.unsorted_indices);
    lengths = inv.map((i) => lens[i]!);
  }
  if (batch_first) out = out.transpose(0, 1);
  return [out, longs(lengths)];
}

/**
 * Stacks sequences of shape `(L_i, *)` into `(max L, B, *)` (`(B, max L, *)` with
 * `batch_first`), padding with `padding_value` on the `padding_side`.
 */
export function pad_sequence(
  sequences: readonly Tensor[],
  batch_first = false,
  padding_value = 0,
  padding_side: "right" | "left" = "right",
): Tensor {
  if (padding_side !== "right" && padding_side !== "left")
    throw new TorchError(
      `Expected padding_side to be one of left or right, but got ${String(padding_side)}.`,
    );
  if (sequences.length === 0)
    throw new TorchError("received an empty list of sequences");
  const longest = Math.max(...sequences.map((s) => s.shape[0] ?? 1));
  const padded = sequences.map((s) => {
    const n = longest - s.shape[0]!;
    if (n === 0) return s;
    const fill = full([n, ...s.shape.slice(1)], padding_value, {
      dtype: s.dtype,
      device: s.device,
    });
    return cat(padding_side === "right" ? [s, fill] : [fill, s], 0);
  });
  return stack(padded, batch_first ? 0 : 1);
}

/** The sequences of a padded batch, each cut to its length. */
export function unpad_sequence(
  padded_sequences: Tensor,
  lengths: Lengths,
  batch_first = false,
): Tensor[] {
  const x = batch_first ? padded_sequences : padded_sequences.transpose(0, 1);
  return lengthList(lengths).map((l, i) => x.select(0, i).narrow(0, 0, l));
}

/** Packs a list of sequences `(L_i, *)` (`pad_sequence`, then `pack_padded_sequence`). */
export function pack_sequence(
  sequences: readonly Tensor[],
  enforce_sorted = true,
): PackedSequence {
  const lengths = sequences.map((s) => s.shape[0]!);
  return pack_padded_sequence(
    pad_sequence(sequences),
    lengths,
    false,
    enforce_sorted,
  );
}

/** The sequences of a packed batch, in the original order. */
export function unpack_sequence(packed: PackedSequence): Tensor[] {
  const [padded, lengths] = pad_packed_sequence(packed, true);
  return unpad_sequence(padded, lengths, true);
}
