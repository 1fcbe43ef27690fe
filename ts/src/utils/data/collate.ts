/**
 * `default_collate`: a list of samples into a batch, as PyTorch's: tensors are stacked along a
 * new first dimension, numbers become a tensor, typed arrays (and `ImageData`) become tensors and
 * are stacked, strings stay a list, and plain objects and arrays are collated field by field.
 *
 * Numbers follow `torch.tensor`'s inference: all integers → int64, booleans → bool, otherwise
 * float32 (PyTorch collates Python floats to float64, which webtorch does not have; and a
 * JavaScript `1.0` is an integer).
 *
 * @module
 */

import { TorchError } from "../../errors.js";
import type { Device } from "../../dtype.js";
import { stack } from "../../ops/indexing.js";
import { tensor, type TypedArrayData } from "../../ops/creation.js";
import { args } from "../../schema/index.js";
import type { Dims } from "../../shapes/core.js";
import { Tensor } from "../../tensor/tensor.js";

/** Sample data `default_collate` makes a tensor of: typed arrays and `ImageData`. */
type ArrayData =
  TypedArrayData | { data: Uint8ClampedArray; width: number; height: number };

/**
 * The batch {@link default_collate} makes of samples of type `S`: a tensor of each tensor (its
 * dtype kept), array or number field, a list of strings, and arrays, tuples and plain objects
 * field by field.
 */
export type Collated<S> =
  S extends Tensor<Dims, infer D>
    ? Tensor<number[], D>
    : S extends ArrayData
      ? Tensor
      : S extends boolean
        ? Tensor<number[], "bool">
        : S extends number | bigint
          ? Tensor
          : S extends string
            ? string[]
            : S extends readonly unknown[]
              ? { -readonly [K in keyof S]: Collated<S[K]> }
              : S extends Record<string, unknown>
                ? { [K in keyof S]: Collated<S[K]> }
                : unknown;

/** One sample of type `S` after {@link default_convert}: its arrays as tensors. */
export type Converted<S> = S extends Tensor
  ? S
  : S extends ArrayData
    ? Tensor
    : S extends readonly unknown[]
      ? { -readonly [K in keyof S]: Converted<S[K]> }
      : S extends Record<string, unknown>
        ? { [K in keyof S]: Converted<S[K]> }
        : S;

/** Whether `v` is a typed array (not a DataView). */
function isTypedArray(v: unknown): v is TypedArrayData {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

/** Whether `v` looks like an `ImageData` (RGBA bytes, `width`, `height`). */
function isImageData(
  v: unknown,
): v is { data: Uint8ClampedArray; width: number; height: number } {
  const o = v as { data?: unknown; width?: unknown; height?: unknown };
  return (
    v != null &&
    typeof v === "object" &&
    o.data instanceof Uint8ClampedArray &&
    typeof o.width === "number" &&
    typeof o.height === "number"
  );
}

/** Whether `v` is a plain object (a mapping). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object") return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A tensor of a sample's array data: a typed array as a 1-D tensor of its kind, an `ImageData` as
 * a `[height, width, 4]` uint8 tensor (what `torch.as_tensor` gives for a NumPy array).
 */
export function arrayToTensor(v: unknown, device?: Device): Tensor {
  if (isImageData(v))
    return tensor(
      new Uint8Array(v.data.buffer, v.data.byteOffset, v.data.length),
      {
        dtype: "uint8",
        device,
      },
    ).reshape(v.height, v.width, 4);
  return tensor(v as TypedArrayData, { device });
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (typeof v !== "object") return typeof v;
  return (v as object).constructor?.name ?? "object";
}

function collate(
  batch: readonly unknown[],
  device: Device | undefined,
): unknown {
  const elem = batch[0];
  if (elem instanceof Tensor) {
    const s = stack(batch as Tensor[], 0);
    return device === undefined || s.device === device
      ? s
      : (s as unknown as { to(d: Device): Tensor }).to(device);
  }
  if (isTypedArray(elem) || isImageData(elem))
    return stack(
      batch.map((b) => arrayToTensor(b, device)),
      0,
    );
  if (
    typeof elem === "number" ||
    typeof elem === "boolean" ||
    typeof elem === "bigint"
  )
    return tensor(batch as number[], { device });
  if (typeof elem === "string") return batch;
  if (isPlainObject(elem)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(elem))
      out[key] = collate(
        batch.map((d) => (d as Record<string, unknown>)[key]),
        device,
      );
    return out;
  }
  if (Array.isArray(elem)) {
    const n = elem.length;
    if (batch.some((b) => !Array.isArray(b) || b.length !== n))
      throw new TorchError(
        "each element in list of batch should be of equal size",
      );
    return elem.map((_, i) =>
      collate(
        batch.map((b) => (b as unknown[])[i]),
        device,
      ),
    );
  }
  throw new TorchError(
    `default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found ${typeName(elem)}`,
  );
}

/** Collates a list of samples into a batch (PyTorch's `default_collate`). */
export function default_collate<S>(batch: readonly S[]): Collated<S> {
  const a = args("utils.data.default_collate", arguments);
  const b = a.batch as unknown[];
  if (!Array.isArray(b) || b.length === 0)
    throw new TorchError("default_collate: batch must be a non-empty list");
  return collate(b, undefined) as Collated<S>;
}

/**
 * Converts one sample's tensors, numbers and arrays to tensors without batching them (PyTorch's
 * `default_convert`, what a DataLoader without batching applies).
 */
export function default_convert<S>(data: S): Converted<S> {
  const a = args("utils.data.default_convert", arguments);
  return convert(a.data, undefined) as Converted<S>;
}

/** {@link default_collate} with the batch made on `device` (the DataLoader's `device`). */
export function collateOn(
  batch: readonly unknown[],
  device: Device | undefined,
): unknown {
  return collate(batch, device);
}

/** {@link default_convert} with the sample moved to `device`. */
export function convert(data: unknown, device: Device | undefined): unknown {
  if (data instanceof Tensor)
    return device === undefined || data.device === device
      ? data
      : (data as unknown as { to(d: Device): Tensor }).to(device);
  if (isTypedArray(data) || isImageData(data))
    return arrayToTensor(data, device);
  if (isPlainObject(data)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) out[k] = convert(v, device);
    return out;
  }
  if (Array.isArray(data)) return data.map((v) => convert(v, device));
  return data;
}
