/**
 * Tensors filled from safetensors bytes as they arrive: each tensor is made with
 * `RawTensor.for_write` and its bytes are converted into a reused word buffer and written into
 * its storage with `write_words`, never decoded into a per-element JS array.
 *
 * @module
 */

import { RawTensor } from "../wasm/webtorch_core.js";
import { DTypeError, OutOfMemoryError, TorchError } from "../errors.js";
import { type DType, deviceCode, dtypeCode } from "../dtype.js";
import { core } from "../runtime.js";
import { type Tensor, wrap } from "../tensor/tensor.js";
import { uncounted } from "../webgpu/pressure.js";
import {
  type DTypeConfig,
  QuantizedTensor,
  _dtype_for_file,
} from "../extend/custom_dtypes.js";
import {
  CORE_DTYPE,
  type Entry,
  ITEM_SIZE,
  WORD,
  wordsPer,
  bad,
  floatBitsToBf16,
  floatBitsToHalf,
  halfBitsTable,
  inFileOrder,
  itemSize,
} from "./format.js";

/** Bytes read and converted at a time: the host memory a load needs beyond the tensors. */
const CHUNK_BYTES = 4 * 2 ** 20;

/**
 * On the CPU backend the tensors live in the core's heap: refuses, before any data is read, a
 * file whose tensors cannot all fit the CPU budget, naming the first tensor that does not.
 */
export function checkCpuBudget(entries: Entry[], device: number): void {
  if (device !== deviceCode("cpu")) return;
  const budget = core.memory_budget(0);
  let total = 0;
  for (const e of inFileOrder(entries)) {
    const item = WORD * wordsPer(e.dtype);
    const bytes = Math.max(e.numel, 1) * item;
    total += bytes;
    if (total > budget)
      throw new OutOfMemoryError(
        `torch.load: tensor "${e.name}" (${e.dtype} [${e.shape.join(", ")}]) needs ${bytes} bytes of CPU memory (${item} bytes per element), ${total} bytes with the tensors before it in the file: more than the CPU budget (${budget} bytes; torch.cpu.set_memory_budget changes it)`,
      );
  }
}

/**
 * A custom dtype's decoded value as a storage word of `storage`: what the core's `to_word` does
 * to a JS number (integer dtypes refuse values they cannot hold).
 */
function customWordEncoder(storage: DType): (v: number) => number {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const int = (name: string) => (v: number) => {
    if (Number.isNaN(v) || v < -(2 ** 31) || v > 2 ** 31 - 1)
      throw new TorchError(
        `value cannot be converted to type ${name} without overflow`,
      );
    return Math.trunc(v) >>> 0;
  };
  switch (storage) {
    case "float32":
      return (v) => ((f[0] = v), u[0]!);
    case "float16":
      return (v) => ((f[0] = v), halfBitsTable()[floatBitsToHalf(u[0]!)]!);
    case "bfloat16":
      return (v) => ((f[0] = v), floatBitsToBf16(u[0]!));
    case "int32":
      return int("int32_t");
    case "int64":
      return int("int64_t (webtorch stores int64 as 32-bit)");
    case "uint8":
      return (v) => {
        if (Number.isNaN(v) || v < -(2 ** 63) || v > 2 ** 63)
          throw new TorchError(
            "value cannot be converted to type uint8_t without overflow",
          );
        return v >= 2 ** 63 ? 255 : Math.trunc(v) & 255;
      };
    case "bool":
      return (v) => (v !== 0 ? 1 : 0);
    case "float64":
      // One word per value: a custom dtype's storage is a one-word dtype.
      throw new DTypeError("a custom dtype cannot be stored as float64");
  }
}

/** The reused buffers of one load: converted words, and file bytes copied to an aligned place. */
export interface Scratch {
  /** Elements converted per `write_words` call. */
  elements: number;
  words: Uint32Array;
  bytes: Uint8Array;
}

export function makeScratch(chunkBytes: number, maxItem: number): Scratch {
  const elements = Math.max(
    1,
    Math.floor(chunkBytes / Math.max(maxItem, WORD)),
  );
  const bytes = new Uint8Array(elements * Math.max(maxItem, WORD));
  // Two words an element where an 8-byte file dtype may be float64.
  const words = new Uint32Array(elements * (maxItem > WORD ? 2 : 1));
  return { elements, words, bytes };
}

/**
 * Fills one tensor from its file bytes, which arrive in order in pieces of any size: whole
 * elements are converted a chunk at a time into the reused word buffer and written into the
 * tensor's storage; a piece that ends inside an element leaves its bytes in `carry`.
 */
export class TensorWriter {
  readonly raw: RawTensor;
  private readonly item: number;
  private readonly carry: Uint8Array;
  private carried = 0;
  private written = 0;
  private readonly convert: (src: Uint8Array, n: number) => void;
  private readonly custom: DTypeConfig | undefined;

  constructor(
    readonly entry: Entry,
    device: number,
    private readonly scratch: Scratch,
  ) {
    this.item = itemSize(entry.dtype)!;
    this.carry = new Uint8Array(this.item);
    this.custom =
      ITEM_SIZE[entry.dtype] === undefined
        ? _dtype_for_file(entry.dtype)
        : undefined;
    const dtype = this.custom?.storage ?? CORE_DTYPE[entry.dtype]!;
    try {
      this.raw = RawTensor.for_write(
        Int32Array.from(entry.shape),
        dtypeCode(dtype),
        device,
      );
    } catch (err) {
      if (!(err instanceof OutOfMemoryError)) throw err;
      throw new OutOfMemoryError(
        `torch.load: tensor "${entry.name}" (${entry.dtype} [${entry.shape.join(", ")}], ${Math.max(entry.numel, 1) * WORD * wordsPer(entry.dtype)} bytes of storage) does not fit: ${err.message}`,
        { cause: err },
      );
    }
    this.convert = this.converter(dtype);
  }

  /** How `n` whole elements of file bytes `src` become storage words in `scratch.words`. */
  private converter(dtype: DType): (src: Uint8Array, n: number) => void {
    const { words, bytes } = this.scratch;
    const { name } = this.entry;
    // Typed arrays use the platform's byte order, little-endian wherever wasm runs (as the
    // file's): a byte copy into the word buffer is the values themselves.
    const wordBytes = new Uint8Array(words.buffer);
    const u16 = new Uint16Array(bytes.buffer);
    const i32 = new Int32Array(bytes.buffer);
    const custom = this.custom;
    if (custom) {
      const view = new DataView(bytes.buffer);
      const encode = customWordEncoder(dtype);
      const item = this.item;
      return (src, n) => {
        bytes.set(src);
        for (let i = 0; i < n; i++)
          words[i] = encode(custom.decode(view, i * item));
      };
    }
    switch (this.entry.dtype) {
      case "F32":
      case "I32":
      case "F64": // two words an element, low first: the file's little-endian bytes as they are
        return (src) => wordBytes.set(src);
      case "F16": {
        const table = halfBitsTable();
        return (src, n) => {
          bytes.set(src);
          for (let i = 0; i < n; i++) words[i] = table[u16[i]!]!;
        };
      }
      case "BF16":
        return (src, n) => {
          bytes.set(src);
          for (let i = 0; i < n; i++) words[i] = u16[i]! << 16;
        };
      case "I64":
        return (src, n) => {
          bytes.set(src);
          for (let i = 0; i < n; i++) {
            const lo = i32[2 * i]!;
            const hi = i32[2 * i + 1]!;
            if (hi !== lo >> 31)
              throw new DTypeError(
                `torch.load: int64 tensor "${name}" holds ${(BigInt(hi) << 32n) | BigInt(lo >>> 0)}, outside webtorch's 32-bit int64 storage`,
              );
            words[i] = lo;
          }
        };
      case "BOOL":
        return (src, n) => {
          for (let i = 0; i < n; i++)
            if (src[i]! > 1)
              bad(`bool tensor "${name}" holds a byte other than 0 or 1`);
          words.set(src);
        };
      default: // U8: the typed-array copy widens each byte to a word
        return (src) => words.set(src);
    }
  }

  /** Writes `n` whole elements of `src` at the next element of the tensor. */
  private flush(src: Uint8Array, n: number): void {
    this.convert(src, n);
    const w = wordsPer(this.entry.dtype);
    this.raw.write_words(this.written, this.scratch.words.subarray(0, n * w));
    this.written += n;
  }

  /** Takes the tensor's next file bytes (any amount, up to the tensor's end). */
  push(src: Uint8Array): void {
    const item = this.item;
    let at = 0;
    if (this.carried > 0) {
      at = Math.min(item - this.carried, src.byteLength);
      this.carry.set(src.subarray(0, at), this.carried);
      this.carried += at;
      if (this.carried < item) return;
      this.flush(this.carry, 1);
      this.carried = 0;
    }
    while (src.byteLength - at >= item) {
      const n = Math.min(
        this.scratch.elements,
        Math.floor((src.byteLength - at) / item),
      );
      this.flush(src.subarray(at, at + n * item), n);
      at += n * item;
    }
    this.carry.set(src.subarray(at));
    this.carried = src.byteLength - at;
  }

  /** The tensor, once every element is written. */
  done(): Tensor {
    if (this.written !== this.entry.numel)
      throw new TorchError(
        `torch.load: tensor "${this.entry.name}" got ${this.written} of ${this.entry.numel} elements`,
      );
    // A file's tensors are meant to stay: the memory-pressure warning does not count them.
    const raw = this.raw;
    return uncounted(() =>
      this.custom ? new QuantizedTensor(raw, this.custom.name) : wrap(raw),
    );
  }
}

/** The tensors loaded so far; `fail` frees them all, the one being filled included. */
export class Loaded {
  private readonly tensors = new Map<string, Tensor>();
  private current: TensorWriter | null = null;

  constructor(
    private readonly device: number,
    private readonly scratch: Scratch,
  ) {}

  begin(e: Entry): TensorWriter {
    this.current = new TensorWriter(e, this.device, this.scratch);
    return this.current;
  }

  end(): void {
    const w = this.current!;
    this.tensors.set(w.entry.name, w.done());
    this.current = null;
  }

  /** The tensors by name, in header order. */
  dict(entries: Entry[]): Record<string, Tensor> {
    const out: Record<string, Tensor> = {};
    // defineProperty: a tensor named "__proto__" is a key like any other, not a prototype.
    for (const e of entries)
      Object.defineProperty(out, e.name, {
        value: this.tensors.get(e.name),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }

  fail(): void {
    this.current?.raw.free();
    this.current = null;
    for (const t of this.tensors.values()) t.dispose();
    this.tensors.clear();
  }
}

export function chunkBytesOf(options: { _chunkBytes?: number }): number {
  const c = options._chunkBytes ?? CHUNK_BYTES;
  if (!Number.isSafeInteger(c) || c < 1)
    throw new TorchError(`torch.load: _chunkBytes must be a positive integer`);
  return c;
}

export function maxItemSize(entries: Entry[]): number {
  return entries.reduce((m, e) => Math.max(m, itemSize(e.dtype)!), 1);
}
