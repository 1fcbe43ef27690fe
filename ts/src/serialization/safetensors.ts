/**
 * `torch.save` / `torch.load` in the safetensors format (what PyTorch's `safetensors.torch`
 * writes and Hugging Face ships models in).
 *
 * Why a hand-written parser: the format is an 8-byte little-endian header length, a JSON header
 * (`{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {…}}`) and the raw bytes;
 * the npm package named `safetensors` is a 0.0.1 placeholder, and the maintained JS readers pull
 * in Node's `fs`/`Buffer` or a framework. A hundred lines with strict checks serve both the browser
 * and Node.
 *
 * Reading: every source but in-memory bytes is read a chunk at a time in file order (the data
 * offsets tile the data section, so a stream can be consumed front to back); each tensor is made
 * with `RawTensor.for_write` and its bytes are converted into a reused word buffer and written
 * into its storage with `write_words`, never decoded into a per-element JS array.
 *
 * Dtypes: F32, I32, U8 and BOOL load as themselves; I64 loads as int64 (webtorch stores int64 as
 * checked 32-bit: values outside ±2³¹ are rejected); F16 and BF16 load as float16 / bfloat16
 * (held as float32 words, exactly); a dtype registered with `register_dtype` for a safetensors code
 * (`"I8"`, say) loads as a `QuantizedTensor` of that dtype; other safetensors dtypes are refused
 * with a clear error.
 *
 * @module
 */

import { RawTensor } from "../wasm/webtorch_core.js";
import { DTypeError, OutOfMemoryError, TorchError } from "../errors.js";
import { type DType, type Device, deviceCode, dtypeCode } from "../dtype.js";
import { core, get_default_device } from "../runtime.js";
import { Tensor, wrap } from "../tensor/tensor.js";
import { uncounted } from "../webgpu/pressure.js";
import {
  type FileHandleLike,
  type Reader,
  blobReader,
  fileReader,
  isNode,
  openFile,
  streamReader,
} from "./file_readers.js";

export type { FileHandleLike } from "./file_readers.js";
import {
  type DTypeConfig,
  QuantizedTensor,
  _dtype_for_file,
} from "../extend/custom_dtypes.js";
import { bytesBar } from "../utils/progress.js";

/** Tensors by name, as `state_dict()` returns and `load_state_dict()` takes. */
export type TensorDict = Record<string, Tensor>;

/**
 * What {@link load} reads a safetensors file from. Bytes and `ArrayBuffer`s are already in
 * memory; the others are read a chunk at a time, each tensor's bytes going to its device as they
 * arrive: a `Response`, a `ReadableStream` (a fetch body) or an async iterable of byte chunks
 * (a Node stream) in order; a `Blob`/`File` or a Node `FileHandle` by position; a URL (`file:`
 * URLs and, in Node, file paths are opened and read by position; other URLs are fetched).
 */
export type LoadSource =
  | Uint8Array
  | ArrayBuffer
  | Response
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Blob
  | FileHandleLike
  | URL
  | string;

/** Options of {@link load}. */
export interface LoadOptions {
  /** Called as bytes arrive (`total` is `undefined` when the source gives no length). */
  onProgress?: (loaded: number, total: number | undefined) => void;
  /**
   * `true`: a `torch.utils.progress` bar of the bytes read (stderr in Node, `on_progress`
   * listeners everywhere), named after the file or URL; a function: called as `onProgress` is.
   */
  progress?: boolean | ((loaded: number, total: number | undefined) => void);
  /** Device of the loaded tensors (the default device when absent). */
  device?: Device;
  /**
   * @internal Bytes per read and per conversion (default 4 MiB); tests make it small so that
   * a small file spans many chunks.
   */
  _chunkBytes?: number;
}

/** Options of {@link save}. */
export interface SaveOptions {
  /** String metadata stored in the header (`__metadata__`); `{format: "pt"}` by default. */
  metadata?: Record<string, string>;
}

/** The most header JSON we accept (safetensors' own limit is 100 MB). */
const MAX_HEADER = 100_000_000;
/** The most dims a tensor may have, and the largest size of one (the core's 32-bit sizes). */
const MAX_RANK = 64;
const MAX_DIM = 2 ** 31 - 1;
/** Bytes read and converted at a time: the host memory a load needs beyond the tensors. */
const CHUNK_BYTES = 4 * 2 ** 20;
/** Bytes of storage per element in the core, for every dtype (docs/dtypes.md). */
const WORD = 4;

const ITEM_SIZE: Record<string, number> = {
  F32: 4,
  F16: 2,
  BF16: 2,
  I32: 4,
  I64: 8,
  U8: 1,
  BOOL: 1,
};
const CORE_DTYPE: Record<string, DType> = {
  F32: "float32",
  F16: "float16",
  BF16: "bfloat16",
  I32: "int32",
  I64: "int64",
  U8: "uint8",
  BOOL: "bool",
};
const OTHER_DTYPES = [
  "F64",
  "I8",
  "I16",
  "U16",
  "U32",
  "U64",
  "F8_E4M3",
  "F8_E5M2",
];

/** Bytes per element of a safetensors dtype code (registered custom dtypes included). */
function itemSize(code: string): number | undefined {
  return ITEM_SIZE[code] ?? _dtype_for_file(code)?.itemsize;
}

function bad(message: string): never {
  throw new TorchError(`invalid safetensors file: ${message}`);
}

interface Entry {
  name: string;
  dtype: string;
  shape: number[];
  numel: number;
  begin: number;
  end: number;
}

/**
 * Checks the 8-byte header size at the start of `prefix` (`fileSize`: the whole file's length
 * when known) and returns it.
 */
function headerSize(prefix: Uint8Array, fileSize: number | undefined): number {
  if (prefix.byteLength < 8)
    bad(`${prefix.byteLength} bytes is too short for the 8-byte header size`);
  const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER))
    bad(`header size ${n} exceeds the ${MAX_HEADER}-byte limit`);
  const size = Number(n);
  if (fileSize !== undefined && 8 + size > fileSize)
    bad(`header size ${size} runs past the end of the ${fileSize}-byte file`);
  return size;
}

/**
 * Parses and validates the header JSON. `dataLen` is the data section's length when known (a
 * stream's is not: then the offsets must still tile, and the data's length is where they end).
 * Returns the entries in header order and the data's length.
 */
function parseEntries(
  json: Uint8Array,
  dataLen: number | undefined,
): { entries: Entry[]; dataLen: number } {
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(json));
  } catch (err) {
    bad(`the header is not valid UTF-8 JSON (${(err as Error).message})`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header))
    bad("the header is not a JSON object");
  const entries: Entry[] = [];
  for (const [name, info] of Object.entries(
    header as Record<string, unknown>,
  )) {
    if (name === "__metadata__") {
      if (
        info === null ||
        typeof info !== "object" ||
        Array.isArray(info) ||
        Object.values(info).some((v) => typeof v !== "string")
      )
        bad("__metadata__ must map strings to strings");
      continue;
    }
    const e = info as {
      dtype?: unknown;
      shape?: unknown;
      data_offsets?: unknown;
    };
    if (e === null || typeof e !== "object")
      bad(`tensor "${name}": entry is not an object`);
    if (typeof e.dtype !== "string") bad(`tensor "${name}": missing dtype`);
    const item = itemSize(e.dtype);
    if (item === undefined) {
      if (OTHER_DTYPES.includes(e.dtype))
        throw new DTypeError(
          `torch.load: tensor "${name}" has dtype ${e.dtype}, which webtorch does not load (F32, F16, BF16, I32, I64, U8, BOOL)`,
        );
      bad(`tensor "${name}": unknown dtype "${e.dtype}"`);
    }
    if (
      !Array.isArray(e.shape) ||
      e.shape.some((d) => !Number.isSafeInteger(d) || d < 0)
    )
      bad(`tensor "${name}": shape must be a list of non-negative integers`);
    if (e.shape.length > MAX_RANK || e.shape.some((d) => d > MAX_DIM))
      bad(
        `tensor "${name}": shape has more than ${MAX_RANK} dims or a size above ${MAX_DIM}`,
      );
    const off = e.data_offsets;
    if (
      !Array.isArray(off) ||
      off.length !== 2 ||
      off.some((o) => !Number.isSafeInteger(o) || o < 0)
    )
      bad(`tensor "${name}": data_offsets must be two non-negative integers`);
    const [begin, end] = off as [number, number];
    if (begin > end)
      bad(`tensor "${name}": data_offsets [${begin}, ${end}] are reversed`);
    if (dataLen !== undefined && end > dataLen)
      bad(
        `tensor "${name}": data_offsets [${begin}, ${end}] run past the ${dataLen} data bytes`,
      );
    const numel = (e.shape as number[]).reduce((a, b) => a * b, 1);
    if (numel * item !== end - begin)
      bad(
        `tensor "${name}": shape [${(e.shape as number[]).join(", ")}] of ${e.dtype} needs ${numel * item} bytes but data_offsets span ${end - begin}`,
      );
    entries.push({
      name,
      dtype: e.dtype,
      shape: e.shape as number[],
      numel,
      begin,
      end,
    });
  }
  // The data must be covered exactly: no overlaps, no holes (the format's rule).
  let pos = 0;
  for (const e of inFileOrder(entries)) {
    if (e.begin < pos)
      bad(
        `tensor "${e.name}" overlaps the previous tensor's bytes (offset ${e.begin} < ${pos})`,
      );
    if (e.begin > pos) bad(`the data has a hole at bytes [${pos}, ${e.begin})`);
    pos = e.end;
  }
  if (dataLen !== undefined && pos !== dataLen)
    bad(
      `${dataLen - pos} data bytes after the last tensor are not described by the header`,
    );
  return { entries, dataLen: pos };
}

/** The entries in the order of their bytes in the file (how a stream delivers them). */
function inFileOrder(entries: Entry[]): Entry[] {
  return [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
}

/**
 * On the CPU backend the tensors live in the core's heap: refuses, before any data is read, a
 * file whose tensors cannot all fit the CPU budget, naming the first tensor that does not.
 */
function checkCpuBudget(entries: Entry[], device: number): void {
  if (device !== deviceCode("cpu")) return;
  const budget = core.memory_budget(0);
  let total = 0;
  for (const e of inFileOrder(entries)) {
    const bytes = Math.max(e.numel, 1) * WORD;
    total += bytes;
    if (total > budget)
      throw new OutOfMemoryError(
        `torch.load: tensor "${e.name}" (${e.dtype} [${e.shape.join(", ")}]) needs ${bytes} bytes of CPU memory (${WORD} bytes per element), ${total} bytes with the tensors before it in the file: more than the CPU budget (${budget} bytes; torch.cpu.set_memory_budget changes it)`,
      );
  }
}

/** float32 bits of every float16 bit pattern (exact), made on first use. */
let halfTable: Uint32Array | null = null;

function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  let exp = (h >> 10) & 0x1f;
  let man = h & 0x3ff;
  if (exp === 0x1f)
    return (sign | (man ? 0x7fc00000 : 0x7f800000) | (man << 13)) >>> 0;
  if (exp === 0) {
    if (man === 0) return sign >>> 0;
    // Subnormal: normalize the mantissa.
    exp = 1;
    while (!(man & 0x400)) {
      man <<= 1;
      exp--;
    }
    man &= 0x3ff;
  }
  return (sign | ((exp + 112) << 23) | (man << 13)) >>> 0;
}

function halfBitsTable(): Uint32Array {
  if (halfTable === null) {
    halfTable = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfToFloatBits(h);
  }
  return halfTable;
}

/** float32 bits `x` rounded to float16 (to nearest even, overflow to inf), as float16 bits. */
function floatBitsToHalf(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  const exp = x & 0x7f800000;
  let man = x & 0x007fffff;
  if (exp === 0x7f800000)
    return sign | 0x7c00 | (man ? 0x200 : 0) | (man >>> 13);
  const halfExp = (exp >>> 23) - 127 + 15;
  if (halfExp >= 0x1f) return sign | 0x7c00;
  if (halfExp <= 0) {
    if (14 - halfExp > 24) return sign;
    man |= 0x00800000;
    let halfMan = man >>> (14 - halfExp);
    const round = 1 << (13 - halfExp);
    if (man & round && man & (3 * round - 1)) halfMan++;
    return sign | halfMan;
  }
  const bits = sign | (halfExp << 10) | (man >>> 13);
  return man & 0x1000 && man & (3 * 0x1000 - 1) ? bits + 1 : bits;
}

/** float32 bits `x` rounded to bfloat16 (to nearest even; NaN kept), as float32 bits. */
function floatBitsToBf16(x: number): number {
  if ((x & 0x7fffffff) >>> 0 > 0x7f800000)
    return ((x | 0x00400000) & 0xffff0000) >>> 0;
  let hi = x >>> 16;
  if (x & 0x8000 && x & (3 * 0x8000 - 1)) hi++;
  return (hi << 16) >>> 0;
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
  }
}

/** The reused buffers of one load: converted words, and file bytes copied to an aligned place. */
interface Scratch {
  /** Elements converted per `write_words` call. */
  elements: number;
  words: Uint32Array;
  bytes: Uint8Array;
}

function makeScratch(chunkBytes: number, maxItem: number): Scratch {
  const elements = Math.max(
    1,
    Math.floor(chunkBytes / Math.max(maxItem, WORD)),
  );
  const bytes = new Uint8Array(elements * Math.max(maxItem, WORD));
  return { elements, words: new Uint32Array(elements), bytes };
}

/**
 * Fills one tensor from its file bytes, which arrive in order in pieces of any size: whole
 * elements are converted a chunk at a time into the reused word buffer and written into the
 * tensor's storage; a piece that ends inside an element leaves its bytes in `carry`.
 */
class TensorWriter {
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
        `torch.load: tensor "${entry.name}" (${entry.dtype} [${entry.shape.join(", ")}], ${Math.max(entry.numel, 1) * WORD} bytes of storage) does not fit: ${err.message}`,
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
    this.raw.write_words(this.written, this.scratch.words.subarray(0, n));
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
class Loaded {
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
  dict(entries: Entry[]): TensorDict {
    const out: TensorDict = {};
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

function chunkBytesOf(options: { _chunkBytes?: number }): number {
  const c = options._chunkBytes ?? CHUNK_BYTES;
  if (!Number.isSafeInteger(c) || c < 1)
    throw new TorchError(`torch.load: _chunkBytes must be a positive integer`);
  return c;
}

function maxItemSize(entries: Entry[]): number {
  return entries.reduce((m, e) => Math.max(m, itemSize(e.dtype)!), 1);
}

/**
 * Parses safetensors `bytes` into tensors (synchronous; {@link load} also reads files, streams
 * and URLs). Each tensor's bytes are converted a chunk at a time straight into its storage.
 */
export function loadBytes(
  bytes: Uint8Array,
  options: { device?: Device; _chunkBytes?: number } = {},
): TensorDict {
  if (!(bytes instanceof Uint8Array))
    throw new TorchError(
      `torch.load: expected the file's bytes as a Uint8Array, not ${bytes === null ? "null" : typeof bytes}`,
    );
  const size = headerSize(bytes, bytes.byteLength);
  const dataStart = 8 + size;
  const { entries } = parseEntries(
    bytes.subarray(8, dataStart),
    bytes.byteLength - dataStart,
  );
  const device = deviceCode(options.device ?? get_default_device());
  checkCpuBudget(entries, device);
  const loaded = new Loaded(
    device,
    makeScratch(chunkBytesOf(options), maxItemSize(entries)),
  );
  try {
    for (const e of inFileOrder(entries)) {
      loaded
        .begin(e)
        .push(bytes.subarray(dataStart + e.begin, dataStart + e.end));
      loaded.end();
    }
    return loaded.dict(entries);
  } catch (err) {
    loaded.fail();
    throw err;
  }
}

/** Exactly `n` next bytes (`what` names them in the error when the file ends first). */
async function readExact(
  reader: Reader,
  n: number,
  done: number,
  what: string,
): Promise<Uint8Array> {
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const b = await reader.next(n - got);
    if (b.byteLength === 0) {
      if (done + got < 8)
        bad(`${done + got} bytes is too short for the 8-byte header size`);
      bad(`the file ends after ${done + got} bytes, inside ${what}`);
    }
    out.set(b, got);
    got += b.byteLength;
  }
  return out;
}

/** Loads from a reader: the header, then each tensor's bytes in file order, a chunk at a time. */
async function loadFrom(
  reader: Reader,
  options: LoadOptions,
  total: number | undefined,
): Promise<TensorDict> {
  const chunkBytes = chunkBytesOf(options);
  let read = 0;
  const progress = (n: number) => {
    read += n;
    options.onProgress?.(read, total);
  };
  const prefix = await readExact(reader, 8, 0, "the header size");
  progress(8);
  const size = headerSize(prefix, reader.size);
  const json = await readExact(reader, size, 8, `the ${size}-byte header`);
  progress(size);
  const dataStart = 8 + size;
  const { entries, dataLen } = parseEntries(
    json,
    reader.size === undefined ? undefined : reader.size - dataStart,
  );
  const device = deviceCode(options.device ?? get_default_device());
  checkCpuBudget(entries, device);
  const loaded = new Loaded(
    device,
    makeScratch(chunkBytes, maxItemSize(entries)),
  );
  try {
    let pos = 0;
    for (const e of inFileOrder(entries)) {
      const w = loaded.begin(e);
      while (pos < e.end) {
        const b = await reader.next(Math.min(chunkBytes, e.end - pos));
        if (b.byteLength === 0)
          bad(
            `the file ends after ${dataStart + pos} bytes, inside tensor "${e.name}" (data bytes [${e.begin}, ${e.end}))`,
          );
        w.push(b);
        pos += b.byteLength;
        progress(b.byteLength);
      }
      loaded.end();
    }
    if ((await reader.next(1)).byteLength !== 0)
      bad(
        `the stream goes on after byte ${dataStart + dataLen}: data bytes after the last tensor are not described by the header`,
      );
    return loaded.dict(entries);
  } catch (err) {
    loaded.fail();
    throw err;
  }
}

/** {@link load} with `progress`: its reports go to `onProgress` and to the bar or function. */
async function loadWithProgress(
  source: LoadSource,
  options: LoadOptions,
): Promise<TensorDict> {
  const { progress, onProgress } = options;
  const name =
    typeof source === "string" || source instanceof URL
      ? String(source).split(/[/\\]/).pop() || "load"
      : "load";
  const bar = typeof progress === "function" ? null : bytesBar(name);
  const report = typeof progress === "function" ? progress : bar!;
  try {
    return await load(source, {
      ...options,
      progress: false,
      onProgress: (loaded, total) => {
        onProgress?.(loaded, total);
        report(loaded, total);
      },
    });
  } finally {
    bar?.close();
  }
}

/**
 * `torch.load(source)`: the tensors of a safetensors file (see {@link LoadSource}: bytes, a fetch
 * `Response`, a `ReadableStream`, a `Blob`/`File`, a Node `FileHandle` or file path, a URL).
 * Streams, Blobs, files and URLs are read a chunk at a time, tensor by tensor in file order: each
 * tensor's bytes are converted and written into its storage as they arrive, so the host holds one
 * chunk (4 MiB) beyond the tensors themselves (CPU tensors live in host memory; WebGPU tensors go
 * to the device). The header is checked strictly (sizes, offsets inside the file, no overlaps or
 * holes, known dtypes) before any tensor is made; a malformed or truncated file throws a
 * `TorchError` saying what is wrong, a file whose tensors do not fit the device an
 * `OutOfMemoryError` naming the tensor, and a failed load frees the tensors it had made.
 */
export async function load(
  source: LoadSource,
  options: LoadOptions = {},
): Promise<TensorDict> {
  if (options.progress) return loadWithProgress(source, options);
  const o = source as unknown as Record<string | symbol, unknown> | null;
  if (source instanceof Uint8Array) return loadBytes(source, options);
  if (source instanceof ArrayBuffer)
    return loadBytes(new Uint8Array(source), options);
  if (typeof Response !== "undefined" && source instanceof Response) {
    if (!source.ok)
      throw new TorchError(
        `torch.load: HTTP ${source.status} ${source.statusText} for ${source.url}`,
      );
    const length = source.headers.get("content-length");
    const total = length === null ? undefined : Number(length);
    if (source.body)
      return withReader(streamReader(source.body), options, total);
    const bytes = new Uint8Array(await source.arrayBuffer());
    options.onProgress?.(bytes.byteLength, total);
    return loadBytes(bytes, options);
  }
  if (typeof Blob !== "undefined" && source instanceof Blob)
    return withReader(blobReader(source), options, source.size);
  if (o !== null && typeof o === "object") {
    if (typeof o.getReader === "function" || Symbol.asyncIterator in o)
      return withReader(
        streamReader(source as ReadableStream<Uint8Array>),
        options,
        undefined,
      );
    if (typeof o.read === "function" && typeof o.stat === "function") {
      const r = await fileReader(
        source as FileHandleLike,
        chunkBytesOf(options),
        false,
      );
      return withReader(r, options, r.size);
    }
  }
  if (source instanceof URL || typeof source === "string") {
    const location = (globalThis as { location?: { href: string } }).location;
    let url: URL | null = null;
    if (source instanceof URL) url = source;
    else if (location !== undefined) url = new URL(source, location.href);
    // In Node a string is a file path unless it is a URL with a scheme (file:, http:, …).
    else if (!isNode() || /^[a-z][a-z0-9+.-]+:\/\//i.test(source))
      url = new URL(source);
    if (url === null || url.protocol === "file:") {
      const chunkBytes = chunkBytesOf(options);
      const handle = await openFile(url ?? (source as string));
      let r: Reader;
      try {
        r = await fileReader(handle, chunkBytes, true);
      } catch (err) {
        await (handle as { close?(): Promise<void> }).close?.();
        throw err;
      }
      return withReader(r, options, r.size);
    }
    return load(await fetch(url), options);
  }
  throw new TorchError(
    `torch.load: expected bytes, an ArrayBuffer, a Response, a ReadableStream, a Blob, a FileHandle, a path or a URL, got ${source === null ? "null" : typeof source}`,
  );
}

async function withReader(
  reader: Reader,
  options: LoadOptions,
  total: number | undefined,
): Promise<TensorDict> {
  try {
    return await loadFrom(reader, options, total);
  } finally {
    await reader.close();
  }
}

const SAVE_DTYPE: Record<string, string> = {
  float32: "F32",
  int32: "I32",
  int64: "I64",
  uint8: "U8",
  bool: "BOOL",
  float16: "F16",
  bfloat16: "BF16",
};

/**
 * `torch.save(state_dict)`: safetensors bytes (readable by `safetensors.torch.load_file`), with
 * the names, dtypes and shapes of the tensors. Async: the values are read from the device.
 */
export async function save(
  tensors: TensorDict | Map<string, Tensor>,
  options: SaveOptions = {},
): Promise<Uint8Array> {
  const list = tensors instanceof Map ? [...tensors] : Object.entries(tensors);
  const values = await Promise.all(list.map(([, t]) => t.toArray()));
  const header: Record<string, unknown> = {
    __metadata__: options.metadata ?? { format: "pt" },
  };
  let offset = 0;
  const parts: Uint8Array[] = [];
  list.forEach(([name, t], i) => {
    if (!(t instanceof Tensor))
      throw new TorchError(`torch.save: "${name}" is not a Tensor`);
    const dtype = SAVE_DTYPE[t.dtype]!;
    const v = values[i]!;
    let bytes: Uint8Array;
    if (dtype === "F16" || dtype === "BF16") {
      // The values are already rounded to the dtype: its bits are exact.
      const u = new Uint32Array(v.buffer, v.byteOffset, v.length);
      const h = new Uint16Array(v.length);
      for (let j = 0; j < v.length; j++)
        h[j] = dtype === "F16" ? floatBitsToHalf(u[j]!) : u[j]! >>> 16;
      bytes = new Uint8Array(h.buffer);
    } else if (dtype === "I64") {
      const b = new BigInt64Array(v.length);
      for (let j = 0; j < v.length; j++) b[j] = BigInt(v[j]!);
      bytes = new Uint8Array(b.buffer);
    } else bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    header[name] = {
      dtype,
      shape: [...t.shape],
      data_offsets: [offset, offset + bytes.byteLength],
    };
    offset += bytes.byteLength;
    parts.push(bytes);
  });
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.byteLength / 8) * 8; // aligned data, padded with spaces as safetensors does
  if (padded !== json.byteLength) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const out = new Uint8Array(8 + json.byteLength + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.byteLength), true);
  out.set(json, 8);
  let pos = 8 + json.byteLength;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.byteLength;
  }
  return out;
}
