// Files and bytes in Node: torch.load of paths (relative and absolute), `file:` URLs and http
// URLs (a local server); every in-memory byte input read at its own offset and length — pooled
// small `Buffer`s (views into a shared 8 KiB pool), typed-array views and DataViews with an
// offset into a larger buffer, ArrayBuffers, Blobs, Responses, streams of pooled chunks — and
// torch.save(state_dict, path) round trips. The file is PyTorch's (tests/parity/train_gen.py).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const dir = new URL("../parity/fixtures/train/", import.meta.url);
const EXPECTED = JSON.parse(readFileSync(new URL("dtypes.json", dir)));
const FILE = new URL("dtypes.safetensors", dir);
const BYTES = new Uint8Array(readFileSync(FILE)); // a copy at offset 0
const tmp = mkdtempSync(join(tmpdir(), "webtorch-files-"));
let server;
let base;

before(async () => {
  await torch.init({ device: "cpu" });
  server = createServer((req, res) => {
    if (req.url === "/dtypes.safetensors") {
      res.writeHead(200, { "content-length": BYTES.length });
      res.end(BYTES);
    } else {
      res.writeHead(404);
      res.end("not here");
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/`;
});
after(() => {
  server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The loaded state dict holds PyTorch's values. */
async function assertDtypes(sd, what) {
  assert.deepEqual(
    Object.keys(sd).sort(),
    Object.keys(EXPECTED).sort(),
    `${what}: names`,
  );
  for (const [name, e] of Object.entries(EXPECTED)) {
    const t = sd[name];
    assert.equal(t.dtype, e.dtype, `${what}: ${name} dtype`);
    assert.deepEqual([...t.shape], e.shape, `${what}: ${name} shape`);
    const v = Array.from(await t.toArray());
    if (e.dtype === "bool")
      assert.deepEqual(v, e.data.map(Number), `${what}: ${name}`);
    else assertClose(v, e.data, 1e-7, `${what}: ${name}`);
  }
}

/**
 * The file's bytes inside a larger buffer at byte `offset`, with bytes around them that are no
 * safetensors file (a reader starting at the buffer's start fails or reads wrong values).
 */
function embedded(offset) {
  const ab = new ArrayBuffer(offset + BYTES.length + 13);
  new Uint8Array(ab).fill(0xff);
  new Uint8Array(ab, offset, BYTES.length).set(BYTES);
  return ab;
}

test("file paths (relative and absolute) and file: URLs (string and URL)", async () => {
  const cwd = process.cwd();
  process.chdir(new URL(".", FILE).pathname);
  try {
    await assertDtypes(await torch.load("dtypes.safetensors"), "relative");
    await assertDtypes(await torch.load("./dtypes.safetensors"), "./relative");
  } finally {
    process.chdir(cwd);
  }
  await assertDtypes(await torch.load(FILE.pathname), "absolute path");
  await assertDtypes(await torch.load(FILE.href), "file: URL string");
  await assertDtypes(await torch.load(FILE), "URL object");
  await assert.rejects(torch.load(join(tmp, "missing.safetensors")), /ENOENT/);
});

test("http URLs are fetched (string and URL); an HTTP error is a TorchError", async () => {
  const url = `${base}dtypes.safetensors`;
  await assertDtypes(await torch.load(url), "http string");
  await assertDtypes(await torch.load(new URL(url)), "http URL");
  await assert.rejects(
    torch.load(`${base}nothing.safetensors`),
    (e) => e instanceof torch.TorchError && /HTTP 404/.test(e.message),
  );
});

test("pooled small Buffers are read at their own offset (bytes, Blob, Response, stream)", async () => {
  // Buffer.from copies a small input into the shared pool: after another small Buffer, the
  // copy starts inside the pool's ArrayBuffer, which holds other data before and after it.
  Buffer.from("taking the start of the pool");
  const pooled = Buffer.from(BYTES);
  assert.ok(
    pooled.byteOffset > 0 && pooled.buffer.byteLength > pooled.length,
    "the Buffer is a view into a larger pool",
  );
  await assertDtypes(await torch.load(pooled), "pooled Buffer");
  await assertDtypes(torch.loadBytes(pooled), "loadBytes(pooled Buffer)");
  await assertDtypes(await torch.load(new Blob([pooled])), "Blob");
  await assertDtypes(await torch.load(new Response(pooled)), "Response");
  // A Node stream of pooled chunks of 7 bytes, converted 5 bytes at a time.
  const chunks = [];
  for (let i = 0; i < BYTES.length; i += 7)
    chunks.push(Buffer.from(BYTES.subarray(i, i + 7)));
  assert.ok(chunks.every((c) => c.byteOffset > 0 || c === chunks[0]));
  await assertDtypes(
    await torch.load(Readable.from(chunks), { _chunkBytes: 5 }),
    "stream of pooled chunks",
  );
});

test("typed-array views, DataViews and ArrayBuffers are read at their own offset and length", async () => {
  for (const offset of [1, 3, 8]) {
    const ab = embedded(offset);
    const views = {
      Uint8Array: new Uint8Array(ab, offset, BYTES.length),
      Int8Array: new Int8Array(ab, offset, BYTES.length),
      Uint8ClampedArray: new Uint8ClampedArray(ab, offset, BYTES.length),
      DataView: new DataView(ab, offset, BYTES.length),
      "Buffer.from(ab, offset, length)": Buffer.from(ab, offset, BYTES.length),
    };
    if (offset % 4 === 0 && BYTES.length % 4 === 0)
      views.Float32Array = new Float32Array(ab, offset, BYTES.length / 4);
    for (const [kind, v] of Object.entries(views)) {
      await assertDtypes(await torch.load(v), `${kind} at offset ${offset}`);
      await assertDtypes(torch.loadBytes(v), `loadBytes(${kind}) at ${offset}`);
    }
  }
  await assertDtypes(await torch.load(BYTES.slice().buffer), "ArrayBuffer");
  await assert.rejects(
    torch.load({ not: "bytes" }),
    /torch\.load: expected bytes .* got Object/,
  );
});

test("torch.save(state_dict, path | file: URL) writes the file; load reads it back", async () => {
  const sd = torch.loadBytes(BYTES);
  const path = join(tmp, "saved.safetensors");
  assert.equal(await torch.save(sd, path), undefined);
  assert.deepEqual(new Uint8Array(readFileSync(path)), await torch.save(sd));
  await assertDtypes(await torch.load(path), "saved to a path");
  const url = pathToFileURL(join(tmp, "saved-url.safetensors"));
  await torch.save(sd, url, { metadata: { format: "pt", note: "x" } });
  await assertDtypes(await torch.load(url), "saved to a file: URL");
  await torch.save(sd, url.href);
  await assertDtypes(await torch.load(url.href), "saved to a file: URL string");
  await assert.rejects(
    torch.save(sd, `${base}upload.safetensors`),
    (e) => e instanceof torch.TorchError && /is not a file/.test(e.message),
  );
  assert.ok(!existsSync(join(tmp, "upload.safetensors")));
});
