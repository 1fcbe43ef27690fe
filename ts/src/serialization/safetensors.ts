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
 * offsets tile the data section, so a stream can be consumed front to back). The parts: the
 * format (format.ts), where bytes come from (byte_sources.ts: in-memory bytes at their own offset,
 * streams, Blobs, file handles), files in Node (node_files.ts), and the tensors filled from the
 * bytes (tensor_writer.ts).
 *
 * Dtypes: F32, I32, U8 and BOOL load as themselves; I64 loads as int64 (webtorch stores int64 as
 * checked 32-bit: values outside ±2³¹ are rejected); F16 and BF16 load as float16 / bfloat16
 * (held as float32 words, exactly); F64 loads as float64 (two words an element, exactly; the CPU
 * device only); a dtype registered with `register_dtype` for a safetensors code
 * (`"I8"`, say) loads as a `QuantizedTensor` of that dtype; other safetensors dtypes are refused
 * with a clear error.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { pyTypeName } from "../args.js";
import { args } from "../schema/index.js";
import { type Device, deviceCode } from "../dtype.js";
import { get_default_device } from "../runtime.js";
import { Tensor } from "../tensor/tensor.js";
import {
  type ByteInput,
  type FileHandleLike,
  type Reader,
  blobReader,
  bytesOf,
  fileReader,
  streamReader,
} from "./byte_sources.js";
import {
  SAVE_DTYPE,
  bad,
  floatBitsToHalf,
  headerSize,
  inFileOrder,
  parseEntries,
} from "./format.js";
import { locate, openFile, writeFile } from "./node_files.js";
import {
  Loaded,
  checkCpuBudget,
  chunkBytesOf,
  makeScratch,
  maxItemSize,
} from "./tensor_writer.js";

import { bytesBar } from "../utils/progress.js";

export type { ByteInput, FileHandleLike } from "./byte_sources.js";

/** Tensors by name, as `state_dict()` returns and `load_state_dict()` takes. */
export type TensorDict = Record<string, Tensor>;

/**
 * What {@link load} reads a safetensors file from. Bytes are already in memory: a `Uint8Array`
 * or Node `Buffer`, any other typed-array view or `DataView`, an `ArrayBuffer` (a view is read at
 * its own offset and length, never from the start of its `.buffer`); the others are read a chunk at a time, each tensor's bytes going to its device as they
 * arrive: a `Response`, a `ReadableStream` (a fetch body) or an async iterable of byte chunks
 * (a Node stream) in order; a `Blob`/`File` or a Node `FileHandle` by position; a URL (`file:`
 * URLs and, in Node, file paths are opened and read by position; other URLs are fetched).
 */
export type LoadSource =
  | ByteInput
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

/**
 * Parses safetensors `bytes` into tensors (synchronous; {@link load} also reads files, streams
 * and URLs). Each tensor's bytes are converted a chunk at a time straight into its storage.
 */
export function loadBytes(
  data: ByteInput,
  options?: { device?: Device; _chunkBytes?: number },
): TensorDict {
  const a = args("loadBytes", arguments);
  const o: { device?: Device; _chunkBytes?: number } = {};
  if (a.device !== null) o.device = a.device as Device;
  if (a._chunkBytes !== null) o._chunkBytes = a._chunkBytes;
  return bytesToTensors(data, o);
}

/** {@link loadBytes} after its arguments are parsed (and for {@link load}'s byte sources). */
function bytesToTensors(
  data: ByteInput,
  options: { device?: Device; _chunkBytes?: number },
): TensorDict {
  const bytes = bytesOf(data);
  if (bytes === null)
    throw new TorchError(
      `torch.load: expected the file's bytes (a Uint8Array, Buffer, typed array, DataView or ArrayBuffer), not ${describe(data)}`,
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
    return await loadSource(source, {
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
export function load(
  source: LoadSource,
  options?: LoadOptions,
): Promise<TensorDict> {
  // Parsed before the Promise: a wrong argument throws at the call.
  const a = args("load", arguments);
  const o: LoadOptions = {};
  if (a.onProgress !== null) o.onProgress = a.onProgress;
  if (a.progress !== null) o.progress = a.progress;
  if (a.device !== null) o.device = a.device as Device;
  if (a._chunkBytes !== null) o._chunkBytes = a._chunkBytes;
  return loadSource(a.source as LoadSource, o);
}

async function loadSource(
  source: LoadSource,
  options: LoadOptions,
): Promise<TensorDict> {
  if (options.progress) return loadWithProgress(source, options);
  const bytes = bytesOf(source);
  if (bytes !== null) return bytesToTensors(bytes, options);
  const o = source as unknown as Record<string | symbol, unknown> | null;
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
    return bytesToTensors(bytes, options);
  }
  if (typeof Blob !== "undefined" && source instanceof Blob)
    return withReader(blobReader(source), options, source.size);
  if (o !== null && typeof o === "object" && !(source instanceof URL)) {
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
    const where = locate(source);
    if ("url" in where) {
      const response = await fetch(where.url);
      if (!response.ok)
        throw new TorchError(
          `torch.load: HTTP ${response.status} ${response.statusText} for ${where.url.href}`,
        );
      return loadSource(response, options);
    }
    const chunkBytes = chunkBytesOf(options);
    const handle = await openFile(where.file);
    let r: Reader;
    try {
      r = await fileReader(handle, chunkBytes, true);
    } catch (err) {
      await (handle as { close?(): Promise<void> }).close?.();
      throw err;
    }
    return withReader(r, options, r.size);
  }
  throw new TorchError(
    `torch.load: expected bytes (a Uint8Array, Buffer, typed array, DataView or ArrayBuffer), a Response, a ReadableStream, a Blob, a FileHandle, a path or a URL, got ${describe(source)}`,
  );
}

/** What a wrong argument is, for an error message. */
function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x !== "object") return typeof x;
  return (
    (x as { constructor?: { name?: string } }).constructor?.name ?? "object"
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

/**
 * `torch.save(state_dict)`: safetensors bytes (readable by `safetensors.torch.load_file`), with
 * the names, dtypes and shapes of the tensors. Async: the values are read from the device.
 * `torch.save(state_dict, f)` writes them to file `f` instead (a path or `file:` URL; Node only)
 * and resolves when it is written, as PyTorch's `torch.save(obj, f)` does.
 */
export async function save(
  tensors: TensorDict | Map<string, Tensor>,
  options?: SaveOptions,
): Promise<Uint8Array>;
export async function save(
  tensors: TensorDict | Map<string, Tensor>,
  f: string | URL,
  options?: SaveOptions,
): Promise<void>;
export function save(): Promise<Uint8Array | void> {
  // Parsed before the Promise: a wrong argument throws at the call.
  const a = args("save", arguments);
  const tensors = a.tensors as TensorDict | Map<string, Tensor>;
  const entries =
    tensors instanceof Map
      ? [...tensors]
      : tensors !== null && typeof tensors === "object"
        ? Object.entries(tensors)
        : null;
  if (entries === null)
    throw new TorchError(
      `save(): expected a dict of tensors (a state_dict or a Map), not ${pyTypeName(tensors)}`,
    );
  for (const [name, t] of entries)
    if (!(t instanceof Tensor))
      throw new TorchError(
        `save(): '${name}' is ${pyTypeName(t)}, not a Tensor (safetensors stores tensors only)`,
      );
  const options: SaveOptions =
    a.metadata === null
      ? {}
      : { metadata: a.metadata as Record<string, string> };
  if (!("f" in a)) return encode(tensors, options);
  if (typeof a.f !== "string" && !(a.f instanceof URL))
    throw new TorchError(
      `save(): argument 'f' must be str or URL, not ${pyTypeName(a.f)}`,
    );
  return saveTo(tensors, a.f, options);
}

async function saveTo(
  tensors: TensorDict | Map<string, Tensor>,
  f: string | URL,
  options: SaveOptions,
): Promise<void> {
  {
    const where = locate(f);
    if (!("file" in where))
      throw new TorchError(
        `torch.save: ${where.url.href} is not a file: save() writes paths and file: URLs in Node; elsewhere it returns the bytes (torch.save(state_dict))`,
      );
    const bytes = await encode(tensors, options);
    return writeFile(where.file, bytes);
  }
}

/** The safetensors bytes of `tensors`. */
async function encode(
  tensors: TensorDict | Map<string, Tensor>,
  options: SaveOptions,
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
