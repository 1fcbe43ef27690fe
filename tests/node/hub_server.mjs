// The HTTP side of the torch.hub tests (Node's tests/node/hub.test.mjs and the browser's
// tests/browser/api.test.mjs): a request handler serving one file's bytes under any path ending
// in `.safetensors`, with `Range`/`If-Range` as a server that allows resuming answers them, and
// switches a test turns: cut the next body after some bytes, ignore Range, change the ETag.

/**
 * A handler `(req, res)` for `file` (a Buffer); `seen` records each request's url, Range and
 * If-Range, and `behave` is what the test changes: `cutAt` (cut the next body after that many
 * bytes, then reset), `ignoreRange` (answer every request whole), `etag` (the file version's ETag,
 * or null to send none), `file` (the bytes now served).
 */
export function rangedFile(file) {
  const seen = [];
  const behave = { cutAt: null, ignoreRange: false, etag: null, file };
  const handle = (req, res) => {
    seen.push({
      url: req.url,
      range: req.headers.range ?? null,
      ifRange: req.headers["if-range"] ?? null,
    });
    if (!req.url.split("?")[0].endsWith(".safetensors")) {
      res.writeHead(404).end();
      return;
    }
    const bytes = behave.file;
    const tag = behave.etag === null ? {} : { ETag: behave.etag };
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const ifRange = req.headers["if-range"];
    // RFC 9110: a Range whose If-Range names another version is answered whole.
    const ranged =
      m && !behave.ignoreRange && (!ifRange || ifRange === behave.etag);
    let start = 0;
    if (ranged) {
      start = Number(m[1]);
      if (start >= bytes.length) {
        res
          .writeHead(416, {
            "Content-Range": `bytes */${bytes.length}`,
            ...tag,
          })
          .end();
        return;
      }
      res.writeHead(206, {
        "Content-Length": bytes.length - start,
        "Content-Range": `bytes ${start}-${bytes.length - 1}/${bytes.length}`,
        "Cache-Control": "no-store",
        ...tag,
      });
    } else {
      res.writeHead(200, {
        "Content-Length": bytes.length,
        "Cache-Control": "no-store",
        ...tag,
      });
    }
    if (behave.cutAt !== null) {
      const cut = behave.cutAt;
      behave.cutAt = null;
      res.write(bytes.subarray(start, start + cut), () =>
        setTimeout(() => res.destroy(), 20),
      );
      return;
    }
    res.end(bytes.subarray(start));
  };
  return { handle, seen, behave };
}
