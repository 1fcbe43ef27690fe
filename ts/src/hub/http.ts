/**
 * The HTTP side of hub downloads, shared by Node and browsers: requests whose failures are
 * `TorchError`s, resuming with `Range`/`If-Range`, and reading a body chunk by chunk with progress.
 *
 * @module
 */

import { TorchError } from "../errors.js";

/** A progress callback: bytes so far, and the total when known. */
export type Report = (loaded: number, total: number | undefined) => void;

/**
 * What identifies one version of a file on the server: its ETag, else its Last-Modified date
 * (the validators `If-Range` accepts), or `null` when the server sends neither.
 */
export function validatorOf(res: Response): string | null {
  return res.headers.get("etag") ?? res.headers.get("last-modified");
}

/** `fetch`, with a failure to connect or a malformed URL as a TorchError. */
export async function get(
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    throw new TorchError(
      `<urlopen error ${(e as Error)?.message ?? String(e)}> (${url})`,
    );
  }
}

export function httpError(res: Response, url: string): TorchError {
  return new TorchError(`HTTP Error ${res.status}: ${res.statusText} (${url})`);
}

/** Where a (possibly resumed) answer starts, and the file's total size when known. */
export interface Answer {
  res: Response;
  /** The byte of the file the body starts at: the bytes kept so far, or 0 when restarted. */
  start: number;
  total: number | undefined;
  /** Every byte is already kept (the server answered 416 to a resume from the end). */
  complete: boolean;
  validator: string | null;
}

/**
 * Requests `url`, continuing after the `have` bytes kept from an earlier attempt when there are
 * any. The `Range` request carries `If-Range` with the kept bytes' validator, so a file changed
 * on the server comes back whole (200) and the download restarts; a server without ranges
 * answers 200 as well. A kept copy without a validator is resumed only when the answer has none
 * either.
 */
export async function request(
  url: string,
  have: number,
  keptValidator: string | null,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (have > 0) {
    headers.Range = `bytes=${have}-`;
    if (keptValidator !== null) headers["If-Range"] = keptValidator;
  }
  const res = await get(url, { headers });
  const validator = validatorOf(res);
  const length = res.headers.get("content-length");
  if (res.status === 206 && validator === keptValidator) {
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(
      res.headers.get("content-range") ?? "",
    );
    if (range && Number(range[1]) === have) {
      const total =
        range[2] !== "*"
          ? Number(range[2])
          : length === null
            ? undefined
            : have + Number(length);
      return { res, start: have, total, complete: false, validator };
    }
  }
  if (res.status === 416 && have > 0 && keptValidator === validator)
    return { res, start: have, total: have, complete: true, validator };
  if (res.status === 206 || res.status === 416) {
    // A range of another version, or one not starting where asked: fetch the whole file.
    await res.body?.cancel();
    return request(url, 0, null);
  }
  if (!res.ok) throw httpError(res, url);
  const total = length === null ? undefined : Number(length);
  return { res, start: 0, total, complete: false, validator };
}

/**
 * Reads a response body, passing each chunk to `onChunk` and reporting progress from `start`
 * bytes on. A connection lost mid-body is a TorchError saying how much arrived (the bytes
 * `onChunk` took are kept by the caller, and the next call resumes after them).
 */
export async function readBody(
  url: string,
  res: Response,
  start: number,
  total: number | undefined,
  onChunk: (chunk: Uint8Array) => Promise<void> | void,
  report: Report,
): Promise<void> {
  let loaded = start;
  report(loaded, total);
  const fail = (e: unknown): TorchError =>
    new TorchError(
      `download of ${url} interrupted after ${loaded}${total === undefined ? "" : ` of ${total}`} bytes ` +
        `(${(e as Error)?.message ?? String(e)}); the bytes received are kept, and the next call resumes after them where the server allows`,
    );
  if (!res.body) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw fail(e);
    }
    await onChunk(bytes);
    report(loaded + bytes.byteLength, total);
    return;
  }
  const reader = res.body.getReader();
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch (e) {
      throw fail(e);
    }
    if (step.done) break;
    await onChunk(step.value);
    loaded += step.value.byteLength;
    report(loaded, total);
  }
  if (total !== undefined && loaded < total)
    throw fail(new Error("the connection closed early"));
}

/** The bytes of `chunks` in one array. */
export function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((s, c) => s + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
