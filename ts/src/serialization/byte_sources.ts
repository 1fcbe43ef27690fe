/**
 * Where a file's bytes come from: bytes already in memory (any typed-array view or `DataView`,
 * a Node `Buffer`, an `ArrayBuffer`), read at the view's own offset and length — a small Node
 * `Buffer` is a view into a shared 8 KiB pool, so its `.buffer` holds other data around it — and
 * readers that give a file's bytes in order, a chunk at a time: a `ReadableStream` or async
 * iterable (a fetch body, a Node stream), a `Blob`/`File`, a Node `FileHandle`. `torch.load`
 * (safetensors.ts) parses what they give.
 *
 * @module
 */

import { TorchError } from "../errors.js";

/** Bytes in memory, as `torch.load` takes them (a view is read at its own offset and length). */
export type ByteInput = ArrayBufferView | ArrayBuffer | SharedArrayBuffer;

/**
 * The bytes of `x` as a `Uint8Array` over the same memory (no copy), at the view's own offset
 * and length; `null` when `x` is not bytes in memory. Works across realms (no `instanceof`).
 */
export function bytesOf(x: unknown): Uint8Array | null {
  if (ArrayBuffer.isView(x))
    return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  const tag = Object.prototype.toString.call(x);
  if (tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]")
    return new Uint8Array(x as ArrayBuffer);
  return null;
}

/**
 * A file opened for reading with Node's `fs/promises` (`await fs.open(path)`): what
 * `torch.load` needs of it. The caller keeps it open and closes it.
 */
export interface FileHandleLike {
  /** The file descriptor (tells a handle from other objects with a `read` method). */
  readonly fd: number;
  /** Reads up to `length` bytes at file position `position` into `buffer` at `offset`. */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  /** The file's size. */
  stat(): Promise<{ size: number | bigint }>;
}

/** A file read in order: every source is read this way, tensor by tensor in file order. */
export interface Reader {
  /** The file's length, when the source knows it (then it is checked as `loadBytes` does). */
  readonly size: number | undefined;
  /** Up to `max` of the next bytes (valid until the next call); empty at the end. */
  next(max: number): Promise<Uint8Array>;
  /** Lets go of the source (cancels a stream that was not read to its end). */
  close(): Promise<void>;
}

export function streamReader(
  source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
): Reader {
  let pull: () => Promise<IteratorResult<Uint8Array>>;
  let stop: () => Promise<void>;
  if ("getReader" in source && typeof source.getReader === "function") {
    const r = source.getReader();
    pull = () => r.read() as Promise<IteratorResult<Uint8Array>>;
    stop = async () => {
      await r.cancel().catch(() => {});
      r.releaseLock();
    };
  } else {
    const it = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    pull = () => it.next();
    stop = async () => {
      await it.return?.();
    };
  }
  let chunk: Uint8Array = new Uint8Array(0);
  let at = 0;
  return {
    size: undefined,
    async next(max) {
      while (at >= chunk.byteLength) {
        const { done, value } = await pull();
        if (done) return new Uint8Array(0);
        if (!(value instanceof Uint8Array))
          throw new TorchError(
            `torch.load: the stream gave a ${value === null ? "null" : typeof value} chunk, not a Uint8Array`,
          );
        chunk = value;
        at = 0;
      }
      const out = chunk.subarray(at, at + max);
      at += out.byteLength;
      return out;
    },
    close: stop,
  };
}

export function blobReader(blob: Blob): Reader {
  let pos = 0;
  return {
    size: blob.size,
    async next(max) {
      const end = Math.min(blob.size, pos + max);
      const out = new Uint8Array(await blob.slice(pos, end).arrayBuffer());
      pos += out.byteLength;
      return out;
    },
    async close() {},
  };
}

export async function fileReader(
  handle: FileHandleLike,
  chunkBytes: number,
  close: boolean,
): Promise<Reader> {
  const size = Number((await handle.stat()).size);
  const buf = new Uint8Array(Math.max(1, Math.min(chunkBytes, size)));
  let pos = 0;
  return {
    size,
    async next(max) {
      const len = Math.min(max, buf.byteLength, size - pos);
      if (len <= 0) return new Uint8Array(0);
      const { bytesRead } = await handle.read(buf, 0, len, pos);
      pos += bytesRead;
      return buf.subarray(0, bytesRead);
    },
    async close() {
      if (close) await (handle as { close?(): Promise<void> }).close?.();
    },
  };
}
