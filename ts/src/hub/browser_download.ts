/**
 * Browser downloads of `torch.hub`: the finished file goes to the Cache API (the cache named
 * `webtorch-hub`); the bytes of an unfinished one go to IndexedDB (the database `webtorch-hub`)
 * as they arrive, so that a download cut off by a lost connection or a closed tab continues
 * after them on the next call, with a `Range` request, where the server allows it.
 *
 * IndexedDB rather than the Cache API for the partial bytes: a Cache API entry is written whole,
 * so keeping a growing prefix there would rewrite every byte at each step, while IndexedDB adds
 * one record per piece. The few IndexedDB calls are wrapped here in promises rather than through
 * a library, so the published package has no dependency for them.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { concat, readBody, request, type Report } from "./http.js";

/** The Cache API cache of finished files, and the IndexedDB database of partial ones. */
const STORE_NAME = "webtorch-hub";
/** Received bytes are written to IndexedDB in pieces of about this size. */
const PIECE_BYTES = 1 << 20;

/** The Cache API cache (secure contexts only: https or localhost). */
export function browserCache(): Promise<Cache> {
  if (typeof caches === "undefined")
    throw new TorchError(
      "torch.hub needs the Cache API, which this page does not have (it needs a secure context: https or localhost)",
    );
  return caches.open(STORE_NAME);
}

/** The Cache API request key of a cache path. */
export function cacheKey(path: string): string {
  return `https://webtorch-hub.invalid/${encodeURI(path)}`;
}

/** What is kept of an unfinished download of `url` into the cache path `key`. */
interface PartialMeta {
  key: string;
  url: string;
  validator: string | null;
  /** Bytes kept, in `pieces` records numbered 0… */
  bytes: number;
  pieces: number;
}

function promised<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** The partial-download database, or `null` where the page has no IndexedDB (no resuming). */
async function database(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === "undefined") return null;
  const open = indexedDB.open(STORE_NAME, 1);
  open.onupgradeneeded = () => {
    open.result.createObjectStore("meta", { keyPath: "key" });
    open.result.createObjectStore("pieces");
  };
  try {
    return await promised(open);
  } catch {
    return null;
  }
}

/** The kept pieces of `key`'s partial download, in order. */
async function readPieces(
  db: IDBDatabase,
  meta: PartialMeta,
): Promise<Uint8Array[]> {
  const tx = db.transaction("pieces", "readonly");
  const store = tx.objectStore("pieces");
  const out: Uint8Array[] = [];
  for (let i = 0; i < meta.pieces; i++) {
    const piece = await promised(store.get([meta.key, i]));
    if (!(piece instanceof Uint8Array))
      throw new Error(`piece ${i} of ${meta.key} is missing`);
    out.push(piece);
  }
  return out;
}

/** Drops what is kept of `key`'s partial download. */
async function forget(db: IDBDatabase, key: string): Promise<void> {
  const tx = db.transaction(["meta", "pieces"], "readwrite");
  tx.objectStore("meta").delete(key);
  tx.objectStore("pieces").delete(
    IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]),
  );
  await done(tx);
}

/** Adds one piece to `meta`'s partial download, updating its record in the same transaction. */
async function keep(
  db: IDBDatabase,
  meta: PartialMeta,
  piece: Uint8Array,
): Promise<void> {
  const tx = db.transaction(["meta", "pieces"], "readwrite");
  tx.objectStore("pieces").put(piece, [meta.key, meta.pieces]);
  const next = {
    ...meta,
    bytes: meta.bytes + piece.byteLength,
    pieces: meta.pieces + 1,
  };
  tx.objectStore("meta").put(next);
  await done(tx);
  meta.bytes = next.bytes;
  meta.pieces = next.pieces;
}

/**
 * Downloads `url` for the cache path `key`, resuming a partial download of the same URL kept in
 * IndexedDB; `check`, when given, verifies the whole file (the hash) before it is cached. Returns the bytes.
 */
export async function downloadBrowser(
  url: string,
  key: string,
  check: ((bytes: Uint8Array) => Promise<void>) | null,
  report: Report,
): Promise<Uint8Array> {
  const db = await database();
  try {
    let meta: PartialMeta | undefined =
      db === null
        ? undefined
        : await promised(
            db.transaction("meta", "readonly").objectStore("meta").get(key),
          );
    if (meta !== undefined && meta.url !== url) {
      await forget(db!, key);
      meta = undefined;
    }
    const answer = await request(
      url,
      meta?.bytes ?? 0,
      meta?.validator ?? null,
    );
    const kept: Uint8Array[] =
      answer.start > 0 ? await readPieces(db!, meta!) : [];
    if (db !== null && answer.start === 0) {
      if (meta !== undefined) await forget(db, key);
      meta = {
        key,
        url,
        validator: answer.validator,
        bytes: 0,
        pieces: 0,
      };
    }
    const fresh: Uint8Array[] = [];
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async (): Promise<void> => {
      if (db === null || pendingBytes === 0) return;
      const piece = concat(pending);
      pending = [];
      pendingBytes = 0;
      await keep(db, meta!, piece);
    };
    if (answer.complete) report(answer.start, answer.total);
    else
      try {
        await readBody(
          url,
          answer.res,
          answer.start,
          answer.total,
          async (c) => {
            fresh.push(c);
            pending.push(c);
            pendingBytes += c.byteLength;
            if (pendingBytes >= PIECE_BYTES) await flush();
          },
          report,
        );
      } finally {
        await flush();
      }
    const bytes = concat([...kept, ...fresh]);
    try {
      if (check !== null) await check(bytes);
    } finally {
      // A file that fails its check is not kept either: the next call downloads it anew.
      if (db !== null) await forget(db, key);
    }
    const cache = await browserCache();
    await cache.put(cacheKey(key), new Response(bytes));
    return bytes;
  } finally {
    db?.close();
  }
}
