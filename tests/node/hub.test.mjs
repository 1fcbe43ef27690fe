// torch.hub against a local HTTP server serving a PyTorch-made safetensors file (fixtures from
// tests/parity/hub_gen.py): load_state_dict_from_url's values and dtypes on WebGPU and the CPU
// backend, the persistent cache (a second load makes no request), the hash check from the file
// name, progress reports, and download_url_to_file resuming an interrupted download with a Range
// request (and restarting when the server ignores Range or has changed the file: If-Range).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { PKG_ENTRY } from "./harness.mjs";
import { rangedFile } from "./hub_server.mjs";

const torch = await import(PKG_ENTRY.href);
await torch.init();
const FILE = readFileSync(
  new URL("../parity/fixtures/hub/tiny.safetensors", import.meta.url),
);
const WANT = JSON.parse(
  readFileSync(new URL("../parity/fixtures/hub/tiny.json", import.meta.url)),
);
const SHA = createHash("sha256").update(FILE).digest("hex");
const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

const { handle, seen, behave } = rangedFile(FILE);
const server = createServer(handle);
let base;
let dir;
before(async () => {
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
  dir = mkdtempSync(path.join(tmpdir(), "webtorch-hub-"));
  torch.hub.set_dir(dir);
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function checkState(state, device) {
  assert.deepEqual(Object.keys(state).sort(), Object.keys(WANT).sort());
  for (const [k, w] of Object.entries(WANT)) {
    const t = state[k];
    assert.equal(t.dtype, w.dtype, k);
    assert.equal(t.device, device, k);
    assert.deepEqual([...t.shape], w.shape, k);
    // Loading copies the stored bits: float32 values are exact.
    assert.deepEqual(await t.flatten().tolist(), w.values, k);
  }
}

describe("torch.hub", () => {
  test("get_dir / set_dir", () => {
    assert.equal(torch.hub.get_dir(), dir);
    assert.throws(() => torch.hub.set_dir(3), torch.TorchError);
  });

  for (const device of devices)
    test(`[${device}] load_state_dict_from_url: values, then the cache`, async () => {
      const name = `tiny-${device}.safetensors`;
      const reports = [];
      const state = await torch.hub.load_state_dict_from_url(
        `${base}/m/${name}`,
        {
          map_location: device,
          progress: (loaded, total) => reports.push([loaded, total]),
        },
      );
      await checkState(state, device);
      assert.ok(existsSync(path.join(dir, "checkpoints", name)));
      assert.deepEqual(reports.at(-1), [FILE.length, FILE.length]);
      for (let i = 1; i < reports.length; i++)
        assert.ok(reports[i][0] >= reports[i - 1][0]);
      const requests = seen.length;
      const again = await torch.hub.load_state_dict_from_url(
        `${base}/m/${name}`,
        {
          map_location: device,
          progress: false,
        },
      );
      assert.equal(seen.length, requests, "a cached file makes no request");
      await checkState(again, device);
    });

  test("check_hash: the file name's SHA-256 prefix", async () => {
    const good = `tiny-${SHA.slice(0, 10)}.safetensors`;
    const state = await torch.hub.load_state_dict_from_url(`${base}/${good}`, {
      check_hash: true,
      progress: false,
      map_location: "cpu",
    });
    await checkState(state, "cpu");
    const wrong = SHA[0] === "0" ? "1" : "0";
    const bad = `tiny-${wrong}${SHA.slice(1, 10)}.safetensors`;
    await assert.rejects(
      torch.hub.load_state_dict_from_url(`${base}/${bad}`, {
        check_hash: true,
        progress: false,
      }),
      (e) =>
        e instanceof torch.TorchError &&
        e.message ===
          `invalid hash value (expected "${wrong}${SHA.slice(1, 10)}", got "${SHA}")`,
    );
    assert.ok(!existsSync(path.join(dir, "checkpoints", bad)));
    assert.ok(!existsSync(path.join(dir, "checkpoints", `${bad}.partial`)));
  });

  test("download_url_to_file resumes an interrupted download with Range", async () => {
    const dst = path.join(dir, "dl", "resumed.safetensors");
    behave.cutAt = 5000;
    await assert.rejects(
      torch.hub.download_url_to_file(`${base}/resumed.safetensors`, dst, {
        progress: false,
      }),
      (e) =>
        e instanceof torch.TorchError &&
        /interrupted after \d+ of \d+ bytes/.test(e.message),
    );
    assert.ok(!existsSync(dst));
    const partial = readFileSync(`${dst}.partial`);
    assert.ok(partial.length > 0 && partial.length < FILE.length);
    const reports = [];
    await torch.hub.download_url_to_file(`${base}/resumed.safetensors`, dst, {
      hash_prefix: SHA.slice(0, 16),
      progress: (l, t) => reports.push([l, t]),
    });
    assert.equal(seen.at(-1).range, `bytes=${partial.length}-`);
    assert.deepEqual(reports[0], [partial.length, FILE.length]);
    assert.deepEqual(readFileSync(dst), FILE);
    assert.ok(!existsSync(`${dst}.partial`));
  });

  test("download_url_to_file restarts when the server ignores Range", async () => {
    const dst = path.join(dir, "dl", "restarted.safetensors");
    const url = `${base}/restarted.safetensors`;
    writeFileSync(`${dst}.partial`, FILE.subarray(0, 100));
    writeFileSync(
      `${dst}.partial.json`,
      JSON.stringify({ url, validator: null }),
    );
    behave.ignoreRange = true;
    try {
      await torch.hub.download_url_to_file(url, dst, { progress: false });
    } finally {
      behave.ignoreRange = false;
    }
    assert.equal(seen.at(-1).range, "bytes=100-");
    assert.deepEqual(readFileSync(dst), FILE);
    assert.ok(!existsSync(`${dst}.partial.json`));
  });

  test("a file changed on the server since the interruption restarts (If-Range)", async () => {
    const dst = path.join(dir, "dl", "changed.safetensors");
    const url = `${base}/changed.safetensors`;
    const old = Buffer.from(FILE);
    old[old.length - 1] ^= 0xff;
    behave.file = old;
    behave.etag = '"v1"';
    behave.cutAt = 3000;
    try {
      await assert.rejects(
        torch.hub.download_url_to_file(url, dst, { progress: false }),
        torch.TorchError,
      );
      behave.file = FILE;
      behave.etag = '"v2"';
      await torch.hub.download_url_to_file(url, dst, {
        hash_prefix: SHA.slice(0, 16),
        progress: false,
      });
      assert.equal(seen.at(-1).ifRange, '"v1"', "the resume names its version");
      assert.deepEqual(readFileSync(dst), FILE);
      // The same version resumes: cut v2 part-way, then continue with If-Range "v2".
      const dst2 = path.join(dir, "dl", "same.safetensors");
      behave.cutAt = 3000;
      await assert.rejects(
        torch.hub.download_url_to_file(`${base}/same.safetensors`, dst2, {
          progress: false,
        }),
        torch.TorchError,
      );
      const have = readFileSync(`${dst2}.partial`).length;
      await torch.hub.download_url_to_file(`${base}/same.safetensors`, dst2, {
        hash_prefix: SHA.slice(0, 16),
        progress: false,
      });
      assert.deepEqual(seen.at(-1), {
        url: "/same.safetensors",
        range: `bytes=${have}-`,
        ifRange: '"v2"',
      });
      assert.deepEqual(readFileSync(dst2), FILE);
    } finally {
      behave.file = FILE;
      behave.etag = null;
    }
  });

  test("errors: HTTP status, bad arguments", async () => {
    await assert.rejects(
      torch.hub.download_url_to_file(
        `${base}/missing.bin`,
        path.join(dir, "x"),
        {
          progress: false,
        },
      ),
      /HTTP Error 404/,
    );
    await assert.rejects(
      async () =>
        torch.hub.load_state_dict_from_url(`${base}/a.safetensors`, {
          map_locaton: "cpu",
        }),
      /unexpected keyword argument 'map_locaton'/,
    );
  });
});
