// Reading a model folder's small files by URL: fetch() for http(s) (the browser, a server), the
// file system for file: URLs in Node (Node's fetch does not read files). The weights go through
// torch.load, which does the same and reports progress.

/** The parsed JSON at `url` (a URL or string). */
export async function readJson(url) {
  const u = new URL(url, globalThis.location?.href);
  if (u.protocol === "file:") {
    const fs = await import(/* @vite-ignore */ "node:fs/promises");
    return JSON.parse(await fs.readFile(u, "utf8"));
  }
  const res = await fetch(u);
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${u}`);
  return res.json();
}
