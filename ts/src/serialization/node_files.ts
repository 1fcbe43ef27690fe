/**
 * Files in Node: which strings and URLs name local files, and opening, reading and writing them
 * with `fs/promises`, imported only when a file is used (so browser bundles never load a `node:`
 * module).
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { importOptional } from "../runtime.js";
import type { FileHandleLike } from "./byte_sources.js";

/** Whether this runs in Node (file paths are files there). */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } })
    .process;
  return typeof p?.versions?.node === "string";
}

/**
 * What a location given to `torch.load` / `torch.save` names: a local file (a path in Node, or
 * a `file:` URL) or a URL to fetch. In a page a string is a URL relative to the page; in Node it
 * is a file path unless it starts with a URL scheme and `//` (`file://`, `https://`).
 */
export function locate(
  where: string | URL,
): { file: string | URL } | { url: URL } {
  let url: URL | null = null;
  if (where instanceof URL) url = where;
  else if (!isNode()) {
    const location = (globalThis as { location?: { href: string } }).location;
    try {
      url = new URL(where, location?.href);
    } catch {
      throw new TorchError(
        `'${where}' is not a URL${location === undefined ? " (file paths need Node; here pass a full URL, bytes or a Blob)" : ""}`,
      );
    }
  } else if (/^[a-z][a-z0-9+.-]+:\/\//i.test(where)) url = new URL(where);
  if (url === null) return { file: where };
  if (url.protocol === "file:") {
    if (!isNode())
      throw new TorchError(
        `${url.href}: file: URLs are read only in Node (in a page, pass a File or Blob)`,
      );
    return { file: url };
  }
  return { url };
}

interface NodeFs {
  open(path: string | URL, flags: string): Promise<FileHandleLike>;
  writeFile(path: string | URL, data: Uint8Array): Promise<void>;
}

const fsp = () => importOptional("node:fs/promises") as Promise<NodeFs>;

/** Opens a file for reading with Node's `fs/promises`. */
export async function openFile(path: string | URL): Promise<FileHandleLike> {
  return (await fsp()).open(path, "r");
}

/** Writes `bytes` to a file with Node's `fs/promises` (replacing it). */
export async function writeFile(
  path: string | URL,
  bytes: Uint8Array,
): Promise<void> {
  return (await fsp()).writeFile(path, bytes);
}
