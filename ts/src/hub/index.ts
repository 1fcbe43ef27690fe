/**
 * `torch.hub`: state dicts from URLs, downloaded once into a persistent cache. The files are
 * safetensors (PyTorch's pickled checkpoints are not read here).
 *
 * - Node: files go to `<hub dir>/checkpoints/<file name>`; the hub dir is `$WEBTORCH_HOME/hub`,
 *   else `$XDG_CACHE_HOME/webtorch/hub`, else `~/.cache/webtorch/hub` ({@link set_dir} changes
 *   it). A download is written to `<dst>.partial` and renamed when complete
 *   (`node_download.ts`).
 * - Browsers: files go to the Cache API (the cache named `webtorch-hub`), keyed by the hub dir
 *   and file name; the bytes of an unfinished download are kept in IndexedDB
 *   (`browser_download.ts`).
 *
 * An interrupted download (a lost connection: a `TorchError` saying how many bytes arrived)
 * resumes on the next call with a `Range` request where the server allows it and still has the
 * same version of the file (`If-Range` with its ETag or Last-Modified date); otherwise it
 * restarts.
 *
 * With a hash prefix (`check_hash` takes it from the file name, `name-<sha256 prefix>.ext`, as
 * PyTorch does) the file's SHA-256 must start with it, else the download is deleted and a
 * `TorchError` raised. `progress` is `true` (a `torch.utils.progress` bar: on stderr in Node, to
 * `torch.utils.on_progress` listeners everywhere), `false`, or a function called with the bytes
 * received so far and the total when known.
 *
 * @module
 */

import type { Device } from "../dtype.js";
import { TorchError } from "../errors.js";
import { importOptional } from "../runtime.js";
import { args } from "../schema/index.js";
import { isNode } from "../serialization/node_files.js";
import { loadBytes, type TensorDict } from "../serialization/safetensors.js";
import { bytesBar } from "../utils/progress.js";
import { browserCache, cacheKey, downloadBrowser } from "./browser_download.js";
import { downloadNode, nodeFs, sizeOf } from "./node_download.js";

/** What `progress` may be: on/off, or a function of (bytes so far, total when known). */
export type Progress =
  boolean | ((loaded: number, total: number | undefined) => void);

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

/**
 * The check of a downloaded file against a SHA-256 prefix (PyTorch's `hash_prefix`), or `null`
 * when there is none. Node hashes with `node:crypto`, browsers with `crypto.subtle`.
 */
function hashCheck(
  hash_prefix: string | null,
): ((bytes: Uint8Array) => Promise<void>) | null {
  if (hash_prefix === null) return null;
  return async (bytes) => {
    let digest: string;
    if (isNode()) {
      const crypto = (await importOptional("node:crypto")) as NodeCrypto;
      digest = crypto.createHash("sha256").update(bytes).digest("hex");
    } else {
      if (globalThis.crypto?.subtle === undefined)
        throw new TorchError(
          "torch.hub: checking a hash needs crypto.subtle, which this page does not have (it needs a secure context)",
        );
      // The bytes of a browser download are a fresh array, never shared memory.
      const own = bytes as Uint8Array<ArrayBuffer>;
      digest = hex(await crypto.subtle.digest("SHA-256", own));
    }
    checkDigest(digest, hash_prefix);
  };
}

interface NodeCrypto {
  createHash(alg: string): {
    update(b: Uint8Array): { digest(enc: "hex"): string };
  };
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
  const check = hashCheck(a.hash_prefix);
  return isNode()
    ? downloadNode(a.url, a.dst, check, report)
    : downloadBrowser(a.url, a.dst, check, report).then(() => {});
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
  const check = hashCheck(hash_prefix);
  if (isNode()) {
    const fs = await nodeFs();
    if ((await sizeOf(fs, cached)) === null)
      await downloadNode(a.url, cached, check, report);
    return loadBytes(await fs.readFile(cached), { device });
  }
  const cache = await browserCache();
  const hit = await cache.match(cacheKey(cached));
  const bytes = hit
    ? new Uint8Array(await hit.arrayBuffer())
    : await downloadBrowser(a.url, cached, check, report);
  return loadBytes(bytes, { device });
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
