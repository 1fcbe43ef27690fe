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
 * Dtypes: F32, I32, U8 and BOOL load as themselves; I64 loads as int64 (webtorch stores int64 as
 * checked 32-bit: values outside ±2³¹ are rejected); F16 and BF16 load as float16 / bfloat16
 * (held as float32 words, exactly); a dtype registered with `register_dtype` for a safetensors code
 * (`"I8"`, say) loads as a `QuantizedTensor` of that dtype; other safetensors dtypes are refused
 * with a clear error.
 *
 * @module
 */

import { RawTensor } from "./wasm/webtorch_core.js";
import { DTypeError, TorchError } from "./errors.js";
import { type Device, deviceCode, dtypeCode } from "./dtype.js";
import { get_default_device } from "./runtime.js";
import { Tensor, wrap } from "./tensor.js";
import { QuantizedTensor, _dtype_for_file } from "./custom_dtypes.js";

/** Tensors by name, as `state_dict()` returns and `load_state_dict()` takes. */
export type TensorDict = Record<string, Tensor>;

/** Options of {@link load}. */
export interface LoadOptions {
  /** Called as bytes arrive (`total` is `undefined` when the server sends no length). */
  onProgress?: (loaded: number, total: number | undefined) => void;
  /** Device of the loaded tensors (the default device when absent). */
  device?: Device;
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

const ITEM_SIZE: Record<string, number> = {
  F32: 4,
  F16: 2,
  BF16: 2,
  I32: 4,
  I64: 8,
  U8: 1,
  BOOL: 1,
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
  begin: number;
  end: number;
}

/** Parses and validates the header; returns the entries and where the data starts. */
function parseHeader(bytes: Uint8Array): {
  entries: Entry[];
  dataStart: number;
} {
  if (!(bytes instanceof Uint8Array))
    throw new TorchError(
      `torch.load: expected the file's bytes as a Uint8Array, not ${bytes === null ? "null" : typeof bytes}`,
    );
  if (bytes.byteLength < 8)
    bad(`${bytes.byteLength} bytes is too short for the 8-byte header size`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER))
    bad(`header size ${n} exceeds the ${MAX_HEADER}-byte limit`);
  const size = Number(n);
  if (8 + size > bytes.byteLength)
    bad(
      `header size ${size} runs past the end of the ${bytes.byteLength}-byte file`,
    );
  let header: unknown;
  try {
    header = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(
        bytes.subarray(8, 8 + size),
      ),
    );
  } catch (err) {
    bad(`the header is not valid UTF-8 JSON (${(err as Error).message})`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header))
    bad("the header is not a JSON object");
  const dataStart = 8 + size;
  const dataLen = bytes.byteLength - dataStart;
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
    if (end > dataLen)
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
      begin,
      end,
    });
  }
  // The data must be covered exactly: no overlaps, no holes (the format's rule).
  const sorted = [...entries].sort(
    (a, b) => a.begin - b.begin || a.end - b.end,
  );
  let pos = 0;
  for (const e of sorted) {
    if (e.begin < pos)
      bad(
        `tensor "${e.name}" overlaps the previous tensor's bytes (offset ${e.begin} < ${pos})`,
      );
    if (e.begin > pos) bad(`the data has a hole at bytes [${pos}, ${e.begin})`);
    pos = e.end;
  }
  if (pos !== dataLen)
    bad(
      `${dataLen - pos} data bytes after the last tensor are not described by the header`,
    );
  return { entries, dataStart };
}

function f16ToF32(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Decodes one entry's bytes into a tensor on `device`. */
function toTensor(bytes: Uint8Array, e: Entry, device: number): Tensor {
  const raw = bytes.slice(e.begin, e.end); // a copy: aligned, and the file may be freed
  const shape = Int32Array.from(e.shape);
  const dv = new DataView(raw.buffer);
  const n = raw.byteLength / itemSize(e.dtype)!;
  const custom = ITEM_SIZE[e.dtype] === undefined && _dtype_for_file(e.dtype);
  if (custom) {
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++)
      values[i] = custom.decode(dv, i * custom.itemsize);
    return new QuantizedTensor(
      RawTensor.from_f64(values, shape, dtypeCode(custom.storage), device),
      custom.name,
    );
  }
  switch (e.dtype) {
    case "F32": {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = dv.getFloat32(4 * i, true);
      return wrap(RawTensor.from_f32(out, shape, device));
    }
    case "F16":
    case "BF16": {
      const out = new Float32Array(n);
      if (e.dtype === "F16")
        for (let i = 0; i < n; i++)
          out[i] = f16ToF32(dv.getUint16(2 * i, true));
      else {
        const w = new DataView(new ArrayBuffer(4));
        for (let i = 0; i < n; i++) {
          w.setUint32(0, dv.getUint16(2 * i, true) << 16, true);
          out[i] = w.getFloat32(0, true);
        }
      }
      const f32 = wrap(RawTensor.from_f32(out, shape, device));
      const half = f32.to(e.dtype === "F16" ? "float16" : "bfloat16");
      f32.dispose();
      return half;
    }
    case "I64": {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = dv.getBigInt64(8 * i, true);
        if (v > 2147483647n || v < -2147483648n)
          throw new DTypeError(
            `torch.load: int64 tensor "${e.name}" holds ${v}, outside webtorch's 32-bit int64 storage`,
          );
        out[i] = Number(v);
      }
      return wrap(RawTensor.from_f64(out, shape, dtypeCode("int64"), device));
    }
    default: {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++)
        out[i] = e.dtype === "I32" ? dv.getInt32(4 * i, true) : dv.getUint8(i);
      const dt =
        e.dtype === "I32" ? "int32" : e.dtype === "U8" ? "uint8" : "bool";
      if (dt === "bool" && out.some((v) => v > 1))
        bad(`bool tensor "${e.name}" holds a byte other than 0 or 1`);
      return wrap(RawTensor.from_f64(out, shape, dtypeCode(dt), device));
    }
  }
}

/** Parses safetensors `bytes` into tensors (synchronous; {@link load} also fetches). */
export function loadBytes(
  bytes: Uint8Array,
  options: { device?: Device } = {},
): TensorDict {
  const { entries, dataStart } = parseHeader(bytes);
  const data = bytes.subarray(dataStart);
  const device = deviceCode(options.device ?? get_default_device());
  const out: TensorDict = {};
  try {
    // defineProperty: a tensor named "__proto__" is a key like any other, not a prototype.
    for (const e of entries)
      Object.defineProperty(out, e.name, {
        value: toTensor(data, e, device),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  } catch (err) {
    for (const t of Object.values(out)) t.dispose();
    throw err;
  }
  return out;
}

async function readResponse(
  res: Response,
  onProgress?: LoadOptions["onProgress"],
): Promise<Uint8Array> {
  if (!res.ok)
    throw new TorchError(
      `torch.load: HTTP ${res.status} ${res.statusText} for ${res.url}`,
    );
  const length = res.headers.get("content-length");
  const total = length === null ? undefined : Number(length);
  if (!res.body) {
    const b = new Uint8Array(await res.arrayBuffer());
    onProgress?.(b.byteLength, total);
    return b;
  }
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress?.(loaded, total);
  }
  const out = new Uint8Array(loaded);
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.byteLength;
  }
  return out;
}

/**
 * `torch.load(source)`: the tensors of a safetensors file, from bytes, an `ArrayBuffer`, a fetch
 * `Response`, or a URL (fetched; `file:` URLs are read from disk in Node). The header is checked
 * strictly (sizes, offsets inside the file, no overlaps or holes, known dtypes); a malformed file
 * throws a `TorchError` saying what is wrong.
 */
export async function load(
  source: Uint8Array | ArrayBuffer | Response | URL | string,
  options: LoadOptions = {},
): Promise<TensorDict> {
  let bytes: Uint8Array;
  if (source instanceof Uint8Array) bytes = source;
  else if (source instanceof ArrayBuffer) bytes = new Uint8Array(source);
  else if (typeof Response !== "undefined" && source instanceof Response)
    bytes = await readResponse(source, options.onProgress);
  else if (source instanceof URL || typeof source === "string") {
    const url =
      source instanceof URL
        ? source
        : new URL(
            source,
            (globalThis as { location?: { href: string } }).location?.href,
          );
    if (url.protocol === "file:") {
      const fs = (await import(
        /* @vite-ignore */ /* webpackIgnore: true */ "node:fs/promises" as string
      )) as {
        readFile(p: URL): Promise<Uint8Array>;
      };
      bytes = new Uint8Array(await fs.readFile(url));
      options.onProgress?.(bytes.byteLength, bytes.byteLength);
    } else bytes = await readResponse(await fetch(url), options.onProgress);
  } else
    throw new TorchError(
      `torch.load: expected bytes, an ArrayBuffer, a Response or a URL, got ${typeof source}`,
    );
  return loadBytes(bytes, options);
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

/** The IEEE half bits of `x`, a value already rounded to float16 (exact; ±inf, NaN kept). */
function f32ToF16Bits(x: number): number {
  const w = new DataView(new ArrayBuffer(4));
  w.setFloat32(0, x, true);
  const b = w.getUint32(0, true);
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half: the value is a multiple of 2^-24.
    return sign | Math.round(Math.abs(x) * 2 ** 24);
  }
  return sign | (e << 10) | (mant >>> 13);
}

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
      const h = new Uint16Array(v.length);
      const w = new DataView(new ArrayBuffer(4));
      for (let j = 0; j < v.length; j++) {
        if (dtype === "F16") h[j] = f32ToF16Bits(v[j]!);
        else {
          w.setFloat32(0, v[j]!, true);
          h[j] = w.getUint32(0, true) >>> 16;
        }
      }
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
