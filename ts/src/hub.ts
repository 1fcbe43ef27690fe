/**
 * `torch.hub`: state dicts from URLs, downloaded once into a persistent cache. The files are
 * safetensors (PyTorch's pickled checkpoints are not read here).
 *
 * - Node: files go to `<hub dir>/checkpoints/<file name>`; the hub dir is `$WEBTORCH_HOME/hub`,
 *   else `$XDG_CACHE_HOME/webtorch/hub`, else `~/.cache/webtorch/hub` ({@link set_dir} changes
 *   it). A download is written to `<dst>.partial` and renamed when complete; an interrupted one is
 *   resumed with a `Range` request where the server allows it (a 206 answer), else restarted.
 * - Browsers: files go to the Cache API (the cache named `webtorch-hub`), keyed by the hub dir
 *   and file name.
 *
 * With a hash prefix (`check_hash` takes it from the file name, `name-<sha256 prefix>.ext`, as
 * PyTorch does) the file's SHA-256 must start with it, else the download is deleted and a
 * `TorchError` raised. `progress` is `true` (a `torch.utils.progress` bar: on stderr in Node, to
 * `torch.utils.on_progress` listeners everywhere), `false`, or a function called with the bytes
 * received so far and the total when known.
 *
 * @module
 */

import type { Device } from "./dtype.js";
import { TorchError } from "./errors.js";
import { importOptional } from "./runtime.js";
import { args } from "./schema/index.js";
import { isNode } from "./serialization/node_files.js";
import { loadBytes, type TensorDict } from "./serialization/safetensors.js";
import { bytesBar } from "./utils/progress.js";

/** What `progress` may be: on/off, or a function of (bytes so far, total when known). */
export type Progress =
  boolean | ((loaded: number, total: number | undefined) => void);

/** The Cache API cache the browser downloads go to. */
const BROWSER_CACHE = "webtorch-hub";
/** PyTorch's `HASH_REGEX`: the hash prefix in a file name `name-<hex>.ext`. */
const HASH_REGEX = /-([a-f0-9]*)\./;

let hubDir: string | null = null;

interface NodeEnv {
  env: Record<string, string | undefined>;
}
const nodeProcess = (): NodeEnv =>
  (globalThis as unknown as { process: NodeEnv }).process;

/** The hub's cache dir (PyTorch's `torch.hub.get_dir`). */
export function get_dir(): string {
  args("hub.get_dir", arguments);
  if (hubDir !== null) return hubDir;
  if (!isNode()) return "webtorch-hub";
  const env = nodeProcess().env;
  if (env.WEBTORCH_HOME) return `${env.WEBTORCH_HOME}/hub`;
  const cache =
    env.XDG_CACHE_HOME ?? `${env.HOME ?? env.USERPROFILE ?? "."}/.cache`;
  return `${cache}/webtorch/hub`;
}

/** Sets the hub's cache dir (PyTorch's `torch.hub.set_dir`). */
export function set_dir(d: string): void {
  const a = args("hub.set_dir", arguments);
  hubDir = a.d;
}

/**
 * The progress callback of a download: `progress` itself when a function, else (when `true`) a
 * `torch.utils.ProgressBar` in bytes named `name` (stderr in Node; the listeners of `on_progress`
 * everywhere), closed when the download completes.
 */
function reporter(
  progress: Progress,
  name: string,
): (loaded: number, total: number | undefined) => void {
  if (typeof progress === "function") return progress;
  if (!progress) return () => {};
  return bytesBar(name);
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) =>
    b.toString(16).padStart(2, "0"),
  ).join("");
}

function checkDigest(digest: string, hash_prefix: string): void {
  if (!digest.startsWith(hash_prefix))
    throw new TorchError(
      `invalid hash value (expected "${hash_prefix}", got "${digest}")`,
    );
}

/** Reads a response body, reporting progress from `start` bytes on; returns its chunks. */
async function readBody(
  res: Response,
  start: number,
  total: number | undefined,
  onChunk: (chunk: Uint8Array) => Promise<void> | void,
  report: (loaded: number, total: number | undefined) => void,
): Promise<void> {
  let loaded = start;
  report(loaded, total);
  if (!res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    await onChunk(bytes);
    report(loaded + bytes.byteLength, total);
    return;
  }
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    await onChunk(value);
    loaded += value.byteLength;
    report(loaded, total);
  }
}

/** `fetch`, with a failure to connect or a malformed URL as a TorchError. */
async function get(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    throw new TorchError(
      `<urlopen error ${(e as Error)?.message ?? String(e)}> (${url})`,
    );
  }
}

function httpError(res: Response, url: string): TorchError {
  return new TorchError(`HTTP Error ${res.status}: ${res.statusText} (${url})`);
}

interface NodeFsP {
  stat(p: string): Promise<{ size: number | bigint }>;
  mkdir(p: string, o: { recursive: boolean }): Promise<unknown>;
  open(
    p: string,
    flags: string,
  ): Promise<{
    write(b: Uint8Array): Promise<unknown>;
    close(): Promise<void>;
  }>;
  readFile(p: string): Promise<Uint8Array>;
  rename(a: string, b: string): Promise<void>;
  rm(p: string, o: { force: boolean }): Promise<void>;
}
interface NodeCrypto {
  createHash(alg: string): {
    update(b: Uint8Array): unknown;
    digest(enc: "hex"): string;
  };
}

async function sizeOf(fs: NodeFsP, p: string): Promise<number> {
  try {
    return Number((await fs.stat(p)).size);
  } catch {
    return 0;
  }
}

/** Node: downloads into `dst` through `dst.partial`, resuming it where the server allows. */
async function downloadNode(
  url: string,
  dst: string,
  hash_prefix: string | null,
  report: (loaded: number, total: number | undefined) => void,
): Promise<void> {
  const fs = (await importOptional("node:fs/promises")) as NodeFsP;
  const crypto = (await importOptional("node:crypto")) as NodeCrypto;
  const slash = dst.lastIndexOf("/");
  if (slash > 0) await fs.mkdir(dst.slice(0, slash), { recursive: true });
  const partial = `${dst}.partial`;
  const have = await sizeOf(fs, partial);
  const res = await fetch(
    url,
    have > 0 ? { headers: { Range: `bytes=${have}-` } } : {},
  );
  let start = 0;
  let total: number | undefined;
  const length = res.headers.get("content-length");
  if (res.status === 206) {
    start = have;
    const range = /\/(\d+)$/.exec(res.headers.get("content-range") ?? "");
    total = range
      ? Number(range[1])
      : length === null
        ? undefined
        : have + Number(length);
  } else if (res.status === 416 && have > 0) {
    // The partial file already holds every byte.
    start = have;
    total = have;
  } else if (!res.ok) {
    throw httpError(res, url);
  } else {
    total = length === null ? undefined : Number(length);
  }
  const file = await fs.open(partial, start > 0 ? "a" : "w");
  try {
    if (res.status === 416) report(have, have);
    else
      await readBody(
        res,
        start,
        total,
        (c) => file.write(c).then(() => {}),
        report,
      );
  } finally {
    await file.close();
  }
  if (hash_prefix !== null) {
    const h = crypto.createHash("sha256");
    h.update(await fs.readFile(partial));
    const digest = h.digest("hex");
    try {
      checkDigest(digest, hash_prefix);
    } catch (e) {
      await fs.rm(partial, { force: true });
      throw e;
    }
  }
  await fs.rename(partial, dst);
}

/** Browser: downloads `url` into the Cache API under `key`; returns the bytes. */
async function downloadBrowser(
  url: string,
  key: string,
  hash_prefix: string | null,
  report: (loaded: number, total: number | undefined) => void,
): Promise<Uint8Array> {
  const res = await get(url);
  if (!res.ok) throw httpError(res, url);
  const length = res.headers.get("content-length");
  const total = length === null ? undefined : Number(length);
  const chunks: Uint8Array[] = [];
  await readBody(res, 0, total, (c) => void chunks.push(c), report);
  const bytes = new Uint8Array(chunks.reduce((s, c) => s + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  if (hash_prefix !== null) {
    if (globalThis.crypto?.subtle === undefined)
      throw new TorchError(
        "torch.hub: checking a hash needs crypto.subtle, which this page does not have (it needs a secure context)",
      );
    checkDigest(hex(await crypto.subtle.digest("SHA-256", bytes)), hash_prefix);
  }
  const cache = await browserCache();
  await cache.put(cacheKey(key), new Response(bytes));
  return bytes;
}

/** The Cache API cache (secure contexts only: https or localhost). */
function browserCache(): Promise<Cache> {
  if (typeof caches === "undefined")
    throw new TorchError(
      "torch.hub needs the Cache API, which this page does not have (it needs a secure context: https or localhost)",
    );
  return caches.open(BROWSER_CACHE);
}

/** The Cache API request key of a cache path. */
function cacheKey(path: string): string {
  return `https://webtorch-hub.invalid/${encodeURI(path)}`;
}

/**
 * Downloads `url` to `dst` (a file path in Node, a Cache API entry in browsers), checking the
 * SHA-256 prefix when `hash_prefix` is given (PyTorch's `torch.hub.download_url_to_file`).
 */
export function download_url_to_file(
  url: string,
  dst: string,
  options: { hash_prefix?: string | null; progress?: Progress } = {},
): Promise<void> {
  // Parsed before the promise: bad arguments throw at the call.
  const a = args("hub.download_url_to_file", arguments);
  void options;
  const report = reporter(a.progress as Progress, a.dst);
  return isNode()
    ? downloadNode(a.url, a.dst, a.hash_prefix, report)
    : downloadBrowser(a.url, a.dst, a.hash_prefix, report).then(() => {});
}

/** Options of {@link load_state_dict_from_url}. */
export interface LoadFromUrlOptions {
  /** The cache dir (`<get_dir()>/checkpoints` by default). */
  model_dir?: string | null;
  /** The device of the loaded tensors (the default device by default). */
  map_location?: Device | null;
  /** Progress reporting (see the module's description). */
  progress?: Progress;
  /** Checks the file's SHA-256 against the prefix in its file name (`name-<hex>.ext`). */
  check_hash?: boolean;
  /** The cached file's name (the URL's last path segment by default). */
  file_name?: string | null;
  /** Accepted for PyTorch compatibility: safetensors files hold only tensors. */
  weights_only?: boolean;
}

/**
 * The state dict in the safetensors file at `url`, downloaded once into the hub's cache
 * (PyTorch's `torch.hub.load_state_dict_from_url`).
 */
export function load_state_dict_from_url(
  url: string,
  options: LoadFromUrlOptions = {},
): Promise<TensorDict> {
  // Parsed before the promise: bad arguments throw at the call.
  const a = args("hub.load_state_dict_from_url", arguments);
  void options;
  return loadFromUrl(a);
}

async function loadFromUrl(
  a: ReturnType<typeof args<"hub.load_state_dict_from_url">>,
): Promise<TensorDict> {
  const dir = a.model_dir ?? `${get_dir()}/checkpoints`;
  const filename = a.file_name ?? urlFileName(a.url);
  if (filename === "")
    throw new TorchError(
      `load_state_dict_from_url: no file name in ${a.url}; pass file_name`,
    );
  const cached = `${dir}/${filename}`;
  let hash_prefix: string | null = null;
  if (a.check_hash) {
    const m = HASH_REGEX.exec(filename);
    hash_prefix = m ? m[1]! : null;
  }
  const device = (a.map_location as Device | null) ?? undefined;
  const report = reporter(a.progress as Progress, filename);
  if (isNode()) {
    const fs = (await importOptional("node:fs/promises")) as NodeFsP;
    if ((await sizeOf(fs, cached)) === 0 && !(await exists(fs, cached)))
      await downloadNode(a.url, cached, hash_prefix, report);
    return loadBytes(await fs.readFile(cached), { device });
  }
  const cache = await browserCache();
  const hit = await cache.match(cacheKey(cached));
  const bytes = hit
    ? new Uint8Array(await hit.arrayBuffer())
    : await downloadBrowser(a.url, cached, hash_prefix, report);
  return loadBytes(bytes, { device });
}

async function exists(fs: NodeFsP, p: string): Promise<boolean> {
  try {
    await fs.stat(p);
    return true;
  } catch {
    return false;
  }
}

/** The last path segment of `url` (PyTorch: `os.path.basename(urlparse(url).path)`). */
function urlFileName(url: string): string {
  try {
    const page = (globalThis as { location?: { href: string } }).location;
    return new URL(url, page?.href).pathname.split("/").pop()!;
  } catch {
    throw new TorchError(`unknown url type: '${url}'`);
  }
}
