#!/usr/bin/env node
// A tiny static file server for the playground and the browser tests: localhost only, no network,
// right MIME types (application/wasm lets the browser compile the core while it downloads).
//
//   node scripts/serve.mjs [--port 8080]      the playground: www/ at /, pkg/ at /pkg/, … (make playground)
//   import { serve } from "./serve.mjs"        serve({ mounts: { "/": dir, … }, port: 0 }) in tests
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".map": "application/json; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Starts a server; resolves to { url, port, close() }.
 * @param {{ mounts: Record<string, string>, routes?: Record<string, Function>, port?: number, host?: string, quiet?: boolean }} options
 *   mounts: URL prefix ("/", "/pkg/") → directory; the longest matching prefix wins.
 *   routes: URL prefix → a `(req, res)` handler, tried before the mounts (tests' own answers).
 */
export function serve({
  mounts,
  routes = {},
  port = 0,
  host = "127.0.0.1",
  quiet = true,
}) {
  const table = Object.entries(mounts)
    .map(([prefix, dir]) => [
      prefix.endsWith("/") ? prefix : prefix + "/",
      path.resolve(dir),
    ])
    .sort((a, b) => b[0].length - a[0].length);
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(
      new URL(req.url ?? "/", "http://x").pathname,
    );
    const route = Object.keys(routes).find((p) => urlPath.startsWith(p));
    if (route !== undefined) return routes[route](req, res);
    const mount = table.find(
      ([prefix]) => urlPath.startsWith(prefix) || urlPath + "/" === prefix,
    );
    let file = mount && path.join(mount[1], urlPath.slice(mount[0].length));
    if (file && !file.startsWith(mount[1])) file = undefined; // no escaping the mount
    if (file && fs.existsSync(file) && fs.statSync(file).isDirectory())
      file = path.join(file, "index.html");
    if (!file || !fs.existsSync(file)) {
      if (!quiet) console.log(`404 ${req.method} ${req.url}`);
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end(`not found: ${urlPath}\n`);
      return;
    }
    res.writeHead(200, {
      "content-type": MIME[path.extname(file)] ?? "application/octet-stream",
      // The length lets a loader report progress as a fraction (torch.load's onProgress).
      "content-length": fs.statSync(file).size,
      "cache-control": "no-store",
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = server.address().port;
      resolve({
        port: actual,
        url: `http://${host}:${actual}/`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * What the playground serves: www/ at /, the package at /pkg/, the digits data at /data/, the
 * parity fixtures and runner at /parity/ (the tests page), and models/ at /models/ when present.
 */
export function playgroundMounts(root) {
  const mounts = {
    "/": path.join(root, "www"),
    "/pkg/": path.join(root, "pkg"),
    "/data/": path.join(root, "data"),
    "/parity/": path.join(root, "tests/parity"),
  };
  if (fs.existsSync(path.join(root, "models")))
    mounts["/models/"] = path.join(root, "models");
  // The pretrained-model example programs (examples/models/; their models are under /models/).
  mounts["/examples/"] = path.join(root, "examples");
  return mounts;
}

// CLI: the playground.
if (
  process.argv[1] &&
  fileURLToPath(import.meta.url) === path.resolve(process.argv[1])
) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const i = process.argv.indexOf("--port");
  const port =
    i > 0 ? Number(process.argv[i + 1]) : Number(process.env.PORT ?? 8080);
  if (!fs.existsSync(path.join(root, "pkg/dist/index.js"))) {
    console.error("pkg/ is not built: run `make pkg` (or `make playground`)");
    process.exit(1);
  }
  if (!fs.existsSync(path.join(root, "www/dist/main.js"))) {
    console.error(
      "www/dist/ is not built: run `make www-dist` (or `make playground`)",
    );
    process.exit(1);
  }
  const { url } = await serve({
    mounts: playgroundMounts(root),
    port,
    quiet: false,
  }).catch((err) => {
    console.error(
      err.code === "EADDRINUSE"
        ? `port ${port} is in use: PORT=<other> make playground`
        : err,
    );
    process.exit(1);
  });
  console.log(
    `webtorch playground: ${url.replace("127.0.0.1", "localhost")}  (Ctrl-C stops it)`,
  );
}
