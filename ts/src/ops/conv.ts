/**
 * The convolution family: `conv1d`/`conv2d`/`conv3d`, `conv_transpose1d`/`2d`/`3d`,
 * `batch_norm` and `F.pad` (pooling: nn/functional/pooling.ts). Each is one core call
 * (`src/api/tensor/conv.rs`): the core checks the arguments with PyTorch's messages, computes
 * (2-D convolutions on WebGPU as an implicit GEMM or depthwise kernels; otherwise im2col + the
 * tiled matmul) and records the gradient.
 *
 * @module
 */

import { args } from "../schema/index.js";
import { ShapeError, TorchError } from "../errors.js";
import { checkInts } from "../args.js";
import { Tensor, checkTensor, wrap } from "../tensor/tensor.js";
import type {
  CheckShape,
  ConvShape,
  Dims,
  Multiply,
  ShapeOf,
} from "../shapes.js";

/**
 * `F.conv1d`/`F.conv2d`'s output shape from the input's and the weight's (`[Out, C/groups,
 * ...kernel]`): the input's channels must be `C/groups · groups` (docs/types.md).
 */
export type FConvShape<
  S extends Dims,
  W extends Dims,
  k extends number,
  St,
  P,
  Dl,
  G extends number,
  Fn extends string,
> = W extends readonly [
  infer O extends number,
  infer Cg extends number,
  ...infer Ks extends number[],
]
  ? ConvShape<S, k, Multiply<Cg, G>, O, Ks, St, P, Dl, Fn>
  : ConvShape<S, k, number, number, number, St, P, Dl, Fn>;

/** A pooling function's stride: the kernel size when `null`/absent. */
export type StrideOr<St, K> = [St] extends [null | undefined] ? K : St;

/** An int or one int per spatial dim (`stride=2`, `stride=[2, 1]`). */
export type IntOrTuple = number | readonly number[];

/** An int or a list of ints as ints, each checked with PyTorch's message (`fn`'s argument `arg`). */
export function ints(fn: string, arg: string, v: IntOrTuple): Int32Array {
  return Int32Array.from(
    checkInts(
      fn,
      arg,
      Array.isArray(v) || ArrayBuffer.isView(v)
        ? Array.from(v as ArrayLike<number>)
        : [v],
    ),
  );
}

function conv(
  fn: string,
  input: Tensor,
  weight: Tensor,
  bias: Tensor | null | undefined,
  stride: IntOrTuple,
  padding: IntOrTuple | "same" | "valid",
  dilation: IntOrTuple,
  groups: number,
): Tensor {
  const x = checkTensor(fn, "input", input);
  const w = checkTensor(fn, "weight", weight);
  const b = bias ? checkTensor(fn, "bias", bias) : x;
  let mode = 0;
  let pad: Int32Array = new Int32Array([0]);
  if (padding === "same") mode = 1;
  else if (padding === "valid") mode = 2;
  else if (typeof padding === "string")
    throw new TorchError(`Invalid padding string: '${String(padding)}'`);
  else pad = ints(fn, "padding", padding);
  return wrap(
    x._raw.conv(
      w._raw,
      b._raw,
      !!bias,
      ints(fn, "stride", stride),
      pad,
      mode,
      ints(fn, "dilation", dilation),
      checkInts(fn, "groups", [groups])[0]!,
    ),
  );
}

/**
 * 2-D convolution (cross-correlation, as PyTorch) of `input` `(N, C, H, W)` or `(C, H, W)` with
 * `weight` `(O, C/groups, kH, kW)`; `padding` may be `"same"` (stride 1) or `"valid"`.
 */
export function conv2d<
  S extends Dims,
  W extends Dims,
  const St extends IntOrTuple = 1,
  const P extends IntOrTuple | "same" | "valid" = 0,
  const Dl extends IntOrTuple = 1,
  G extends number = 1,
>(
  input: Tensor<S> & CheckShape<FConvShape<S, W, 2, St, P, Dl, G, "conv2d">>,
  weight: Tensor<W>,
  bias?: Tensor | null,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  groups?: G,
): Tensor<ShapeOf<FConvShape<S, W, 2, St, P, Dl, G, "conv2d">>>;
export function conv2d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv2d",
    arguments,
  ));
  return conv("conv2d", input, weight, bias, stride, padding, dilation, groups);
}

/** 1-D convolution of `(N, C, L)` or `(C, L)` with `weight` `(O, C/groups, k)`. */
export function conv1d<
  S extends Dims,
  W extends Dims,
  const St extends IntOrTuple = 1,
  const P extends IntOrTuple | "same" | "valid" = 0,
  const Dl extends IntOrTuple = 1,
  G extends number = 1,
>(
  input: Tensor<S> & CheckShape<FConvShape<S, W, 1, St, P, Dl, G, "conv1d">>,
  weight: Tensor<W>,
  bias?: Tensor | null,
  stride?: St,
  padding?: P,
  dilation?: Dl,
  groups?: G,
): Tensor<ShapeOf<FConvShape<S, W, 1, St, P, Dl, G, "conv1d">>>;
export function conv1d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv1d",
    arguments,
  ));
  return conv("conv1d", input, weight, bias, stride, padding, dilation, groups);
}

/** 3-D convolution of `(N, C, D, H, W)` or `(C, D, H, W)` with `weight` `(O, C/groups, kD, kH, kW)`. */
export function conv3d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple | "same" | "valid",
  dilation?: IntOrTuple,
  groups?: number,
): Tensor {
  ({ input, weight, bias, stride, padding, dilation, groups } = args(
    "nn.functional.conv3d",
    arguments,
  ));
  return conv("conv3d", input, weight, bias, stride, padding, dilation, groups);
}

function convTranspose(
  fn: string,
  input: Tensor,
  weight: Tensor,
  bias: Tensor | null | undefined,
  stride: IntOrTuple,
  padding: IntOrTuple,
  output_padding: IntOrTuple,
  groups: number,
  dilation: IntOrTuple,
): Tensor {
  const x = checkTensor(fn, "input", input);
  const w = checkTensor(fn, "weight", weight);
  const b = bias ? checkTensor(fn, "bias", bias) : x;
  return wrap(
    x._raw.conv_transpose(
      w._raw,
      b._raw,
      !!bias,
      ints(fn, "stride", stride),
      ints(fn, "padding", padding),
      ints(fn, "output_padding", output_padding),
      checkInts(fn, "groups", [groups])[0]!,
      ints(fn, "dilation", dilation),
    ),
  );
}

/**
 * Transposed 2-D convolution (the gradient of `conv2d` w.r.t. its input) with `weight`
 * `(C_in, C_out/groups, kH, kW)`; PyTorch's argument order (groups before dilation).
 */
export function conv_transpose2d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose2d", arguments));
  return convTranspose(
    "conv_transpose2d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

/** Transposed 1-D convolution with `weight` `(C_in, C_out/groups, k)`. */
export function conv_transpose1d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose1d", arguments));
  return convTranspose(
    "conv_transpose1d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

/** Transposed 3-D convolution with `weight` `(C_in, C_out/groups, kD, kH, kW)`. */
export function conv_transpose3d(
  input: Tensor,
  weight: Tensor,
  bias?: Tensor | null,
  stride?: IntOrTuple,
  padding?: IntOrTuple,
  output_padding?: IntOrTuple,
  groups?: number,
  dilation?: IntOrTuple,
): Tensor {
  ({ input, weight, bias, stride, padding, output_padding, groups, dilation } =
    args("nn.functional.conv_transpose3d", arguments));
  return convTranspose(
    "conv_transpose3d",
    input,
    weight,
    bias,
    stride,
    padding,
    output_padding,
    groups,
    dilation,
  );
}

/**
 * Batch normalization over dim 1 of `(N, C, *)`. In training, the batch statistics (biased
 * variance) normalize, and `running_mean`/`running_var` (when given) are updated in place:
 * `r = (1 - momentum)·r + momentum·stat`, with the unbiased variance. In eval, the running
 * statistics normalize.
 */
export function batch_norm(
  input: Tensor,
  running_mean: Tensor | null,
  running_var: Tensor | null,
  weight?: Tensor | null,
  bias?: Tensor | null,
  training?: boolean,
  momentum?: number,
  eps?: number,
): Tensor {
  ({ input, running_mean, running_var, weight, bias, training, momentum, eps } =
    args("nn.functional.batch_norm", arguments));
  const x = checkTensor("batch_norm", "input", input);
  const h = (t: Tensor | null | undefined, arg: string) =>
    (t ? checkTensor("batch_norm", arg, t) : x)._raw;
  return wrap(
    x._raw.batch_norm(
      h(running_mean, "running_mean"),
      !!running_mean,
      h(running_var, "running_var"),
      !!running_var,
      h(weight, "weight"),
      !!weight,
      h(bias, "bias"),
      !!bias,
      training,
      momentum,
      eps,
    ),
  );
}

/**
 * `F.pad(input, pad, mode, value)`: `pad` lists `(left, right)` pairs from the last dim
 * backwards; negative sizes crop. `mode`: `"constant"` (with `value`), `"reflect"`,
 * `"replicate"` or `"circular"`.
 */
export function pad(
  input: Tensor,
  pad: readonly number[],
  mode?: "constant" | "reflect" | "replicate" | "circular",
  value?: number | null,
): Tensor {
  // `mode` is checked below, with PyTorch's message for a mode it does not know.
  let m: string;
  ({ input, pad, mode: m, value } = args("nn.functional.pad", arguments));
  mode = m as typeof mode & string;
  const x = checkTensor("pad", "input", input);
  const p = Int32Array.from(checkInts("pad", "pad", Array.from(pad)));
  if (p.length % 2 !== 0)
    throw new TorchError("Padding length must be divisible by 2");
  if (p.length / 2 > x.dim())
    throw new TorchError(
      "Padding length should be less than or equal to two times the input dimension but got padding length " +
        `${p.length} and input of dimension ${x.dim()}`,
    );
  if (mode === "constant") return wrap(x._raw.pad_constant(p, value ?? 0));
  const modes = { reflect: 1, replicate: 2, circular: 3 } as const;
  if (!(mode in modes))
    throw new TorchError(`Unrecognised padding mode ${String(mode)}`);
  if (value !== null && value !== 0)
    throw new TorchError(
      `Padding mode "${mode}" doesn't take in value argument.`,
    );
  if (mode === "reflect")
    // PyTorch's reflection_pad{1,2,3}d check, the last dim's pair first.
    for (let i = 0; i < p.length / 2; i++) {
      const d = x.ndim - 1 - i;
      const [l, r] = [p[2 * i]!, p[2 * i + 1]!];
      if (l >= x.shape[d]! || r >= x.shape[d]!)
        throw new ShapeError(
          `Argument #${4 + 2 * i}: Padding size should be less than the corresponding input dimension, but got: padding (${l}, ${r}) at dimension ${d} of input [${x.shape.join(", ")}]`,
        );
    }
  return wrap(x._raw.pad_mode(p, modes[mode]));
}

/** `torch.constant_pad_nd(input, pad, value)`. */
export function constant_pad_nd(
  input: Tensor,
  pad: readonly number[],
  value?: number,
): Tensor {
  ({ input, pad, value } = args("constant_pad_nd", arguments));
  const x = checkTensor("constant_pad_nd", "input", input);
  const p = Int32Array.from(
    checkInts("constant_pad_nd", "pad", Array.from(pad)),
  );
  // PyTorch's checks of the list (F.pad words them differently, above).
  if (p.length % 2 !== 0)
    throw new TorchError(
      `Length of pad must be even but instead it equals ${p.length}`,
    );
  if (p.length / 2 > x.ndim)
    throw new TorchError(
      `Length of pad should be no more than twice the number of dimensions of the input. Pad length is ${p.length}while the input has ${x.ndim}dimensions.`,
    );
  return wrap(x._raw.pad_constant(p, value));
}
