/**
 * The error classes webtorch throws.
 *
 * The wasm core throws these too: at init the TS layer hands each constructor to the core with
 * `register_error_class`, so an error raised in Rust arrives in JS as, say, a real `ShapeError`
 * that `instanceof` recognises. Messages follow PyTorch's wording where PyTorch has one.
 *
 * @module
 */

/** The base class of every error webtorch throws on bad input (PyTorch's `RuntimeError`). */
export class TorchError extends Error {
  // NOTE: the name lives on the prototype, not in an instance field, so that it is already set
  // while `Error`'s constructor formats `stack` ("ShapeError: …"); spelled out so that
  // minifiers renaming classes cannot change it.
  static {
    this.prototype.name = "TorchError";
  }
}

/** Shapes that do not fit together: broadcasting, matmul, reshape, view, expand. */
export class ShapeError extends TorchError {
  static {
    this.prototype.name = "ShapeError";
  }
}

/** An operation that does not support a tensor's dtype, or dtypes that cannot be combined. */
export class DTypeError extends TorchError {
  static {
    this.prototype.name = "DTypeError";
  }
}

/**
 * A call's arguments that do not fit the function's signature (PyTorch's `TypeError`): a value of
 * the wrong type, an unknown or repeated keyword option, too many or too few arguments, a value
 * outside an option's allowed set. Raised by the schema parser before any work is done.
 */
export class ArgumentError extends TorchError {
  static {
    this.prototype.name = "ArgumentError";
  }
}

/** A dimension or index out of range (PyTorch's `IndexError`). */
export class IndexError extends TorchError {
  static {
    this.prototype.name = "IndexError";
  }
}

/** A device that is unavailable, lost, or mixed with another in one operation. */
export class DeviceError extends TorchError {
  static {
    this.prototype.name = "DeviceError";
  }
}

/** A buffer allocation the device refused. */
export class OutOfMemoryError extends TorchError {
  static {
    this.prototype.name = "OutOfMemoryError";
  }
}

/**
 * A value its dtype cannot hold here: an int64 result or cast outside ±2³¹ (webtorch stores
 * int64 as 32-bit integers, docs/dtypes.md), where PyTorch would hold it exactly.
 */
export class OverflowError extends TorchError {
  static {
    this.prototype.name = "OverflowError";
  }
}

/**
 * A failure inside the wasm core that is webtorch's bug, not the caller's (PyTorch's "INTERNAL
 * ASSERT FAILED"): a panic or a trap. The engine recovers from it — the borrows the failed call
 * held are released and the next call works — and the message names the core function.
 */
export class InternalError extends TorchError {
  static {
    this.prototype.name = "InternalError";
  }
}

/**
 * A bad einops pattern or a tensor that does not fit one (`einops.rearrange` & co.), with the
 * einops package's wording.
 */
export class EinopsError extends TorchError {
  static {
    this.prototype.name = "EinopsError";
  }
}

/** A tensor expression (`torch.$`) that does not parse, names an unknown value or function. */
export class ExpressionError extends TorchError {
  static {
    this.prototype.name = "ExpressionError";
  }
}

/** Every error class by the kind name the core uses in `register_error_class`. */
export const ERROR_CLASSES = {
  TorchError,
  ShapeError,
  DTypeError,
  IndexError,
  DeviceError,
  OutOfMemoryError,
  OverflowError,
  InternalError,
} as const;
