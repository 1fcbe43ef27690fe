/**
 * The safetensors format itself: an 8-byte little-endian header length, a JSON header
 * (`{name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {…}}`) and the raw bytes.
 * Parsing and strict validation of the header, the dtype codes, and the float16 / bfloat16 bit
 * conversions both directions use.
 *
 * @module
 */

import { DTypeError, TorchError } from "../errors.js";
import type { DType } from "../dtype.js";
import { _dtype_for_file } from "../extend/custom_dtypes.js";

/** The most header JSON we accept (safetensors' own limit is 100 MB). */
const MAX_HEADER = 100_000_000;
/** The most dims a tensor may have, and the largest size of one (the core's 32-bit sizes). */
const MAX_RANK = 64;
const MAX_DIM = 2 ** 31 - 1;
/** Bytes of one storage word in the core: one an element, two for float64 (docs/dtypes.md). */
export const WORD = 4;
/** Storage words per element of a file dtype in the core. */
export function wordsPer(code: string): number {
  return code === "F64" ? 2 : 1;
}

export const ITEM_SIZE: Record<string, number> = {
  F32: 4,
  F64: 8,
  F16: 2,
  BF16: 2,
  I32: 4,
  I64: 8,
  U8: 1,
  BOOL: 1,
};
export const CORE_DTYPE: Record<string, DType> = {
  F32: "float32",
  F64: "float64",
  F16: "float16",
  BF16: "bfloat16",
  I32: "int32",
  I64: "int64",
  U8: "uint8",
  BOOL: "bool",
};
const OTHER_DTYPES = ["I8", "I16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2"];

/** Bytes per element of a safetensors dtype code (registered custom dtypes included). */
export function itemSize(code: string): number | undefined {
  return ITEM_SIZE[code] ?? _dtype_for_file(code)?.itemsize;
}

export function bad(message: string): never {
  throw new TorchError(`invalid safetensors file: ${message}`);
}

export interface Entry {
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
export function headerSize(
  prefix: Uint8Array,
  fileSize: number | undefined,
): number {
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
export function parseEntries(
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
          `torch.load: tensor "${name}" has dtype ${e.dtype}, which webtorch does not load (F32, F64, F16, BF16, I32, I64, U8, BOOL)`,
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
export function inFileOrder(entries: Entry[]): Entry[] {
  return [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
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

export function halfBitsTable(): Uint32Array {
  if (halfTable === null) {
    halfTable = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfToFloatBits(h);
  }
  return halfTable;
}

/** float32 bits `x` rounded to float16 (to nearest even, overflow to inf), as float16 bits. */
export function floatBitsToHalf(x: number): number {
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
export function floatBitsToBf16(x: number): number {
  if ((x & 0x7fffffff) >>> 0 > 0x7f800000)
    return ((x | 0x00400000) & 0xffff0000) >>> 0;
  let hi = x >>> 16;
  if (x & 0x8000 && x & (3 * 0x8000 - 1)) hi++;
  return (hi << 16) >>> 0;
}

/** The safetensors dtype code `torch.save` writes for each dtype. */
export const SAVE_DTYPE: Record<string, string> = {
  float32: "F32",
  int32: "I32",
  int64: "I64",
  uint8: "U8",
  bool: "BOOL",
  float64: "F64",
  float16: "F16",
  bfloat16: "BF16",
};
