// Peak host memory of torch.load on big safetensors files, per dtype, size and device.
//
//   node scripts/safetensors-memory.mjs [--sizes 64,256,1024] [--dtypes F32,F16,BF16,I32,I64,U8,BOOL]
//        [--devices cpu,webgpu] [--tensor-mib 64] [--source path|stream|blob] [--out FILE.json]
//
// For each case a file of that many MiB is written sparsely under the temp directory (zeros:
// valid for every dtype), made of tensors of at most --tensor-mib MiB of file bytes each, and
// loaded by a fresh `node --expose-gc` child process, which reports:
//   rss0     RSS after init, before the load (MiB)
//   peak     the process's peak RSS (process.resourceUsage().maxRSS) after the load (MiB)
//   ext      the highest `external` memory (ArrayBuffers and the wasm heap) sampled every 5 ms
//   tensors  the loaded tensors' storage: 4 bytes per element on the CPU backend (in the wasm
//            heap, so in RSS); on WebGPU the device's active bytes (on a software adapter such as
//            SwiftShader that device memory is in this process too)
//   over     peak − rss0 − tensors: what the load needed beyond the tensors themselves
// The file is deleted after each case. Cases that cannot fit (CPU tensors above the CPU budget,
// a tensor above the adapter's binding limit) are reported with the error the load threw.
import { spawnSync } from "node:child_process";
import { closeSync, openSync, rmSync, writeSync, ftruncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeFileSync } from "node:fs";

const ITEM = { F32: 4, F16: 2, BF16: 2, I32: 4, I64: 8, U8: 1, BOOL: 1 };
const MiB = 2 ** 20;

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? dflt : process.argv[i + 1];
}

/** Writes a sparse safetensors file of `mib` MiB of `dtype` data; returns its path. */
function makeFile(dtype, mib, tensorMib) {
  const item = ITEM[dtype];
  const header = { __metadata__: { format: "pt" } };
  let at = 0;
  for (let i = 0; at < mib * MiB; i++) {
    const bytes = Math.min(tensorMib, mib - at / MiB) * MiB;
    header[`t${i}`] = {
      dtype,
      shape: [bytes / item],
      data_offsets: [at, at + bytes],
    };
    at += bytes;
  }
  let json = Buffer.from(JSON.stringify(header));
  json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
  const path = join(tmpdir(), `webtorch-st-mem-${dtype}-${mib}.safetensors`);
  const fd = openSync(path, "w");
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(json.length));
  writeSync(fd, prefix, 0, 8, 0);
  writeSync(fd, json, 0, json.length, 8);
  ftruncateSync(fd, 8 + json.length + at);
  closeSync(fd);
  return path;
}

async function child() {
  const [path, device, source] = process.argv.slice(3);
  const torch = await import(
    new URL("../pkg/dist/index.js", import.meta.url).href
  );
  await torch.init({ device });
  torch.ones(1).dispose();
  globalThis.gc?.();
  const rss0 = process.memoryUsage().rss;
  let ext = process.memoryUsage().external;
  const sample = setInterval(() => {
    ext = Math.max(ext, process.memoryUsage().external);
  }, 5);
  const t0 = performance.now();
  let sd;
  let error = null;
  try {
    if (source === "stream") {
      const { createReadStream } = await import("node:fs");
      sd = await torch.load(createReadStream(path, { highWaterMark: MiB }), {
        device,
      });
    } else if (source === "blob") {
      const { openAsBlob } = await import("node:fs");
      sd = await torch.load(await openAsBlob(path), { device });
    } else sd = await torch.load(path, { device });
    if (device === "webgpu") await torch.webgpu.sync_device();
  } catch (e) {
    error = `${e.name}: ${e.message}`;
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sample);
  ext = Math.max(ext, process.memoryUsage().external);
  let tensors = 0;
  if (sd)
    for (const t of Object.values(sd)) tensors += 4 * Math.max(t.numel(), 1);
  if (device === "webgpu" && sd)
    tensors = torch.webgpu.memory_stats().active_bytes;
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({ rss0, peak, ext, tensors, seconds, error }) + "\n",
  );
  process.exit(0);
}

async function main() {
  const sizes = arg("sizes", "64,256,1024").split(",").map(Number);
  const dtypes = arg("dtypes", Object.keys(ITEM).join(",")).split(",");
  const devices = arg("devices", "cpu,webgpu").split(",");
  const tensorMib = Number(arg("tensor-mib", "64"));
  const source = arg("source", "path");
  const out = arg("out", null);
  const rows = [];
  const mb = (b) => (b / MiB).toFixed(0);
  console.log(
    `| device | dtype | file MiB | tensors MiB | RSS before | peak RSS | peak external | over (peak − before − tensors) | s | result |`,
  );
  console.log(
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |`,
  );
  for (const device of devices)
    for (const mib of sizes)
      for (const dtype of dtypes) {
        const path = makeFile(dtype, mib, tensorMib);
        const r = spawnSync(
          process.execPath,
          [
            "--expose-gc",
            fileURLToPath(import.meta.url),
            "--child",
            path,
            device,
            source,
          ],
          { encoding: "utf8", maxBuffer: 16 * MiB },
        );
        rmSync(path, { force: true });
        const line = r.stdout.trim().split("\n").at(-1) ?? "";
        let m;
        try {
          m = JSON.parse(line);
        } catch {
          m = { error: `child failed (${r.status}): ${r.stderr.slice(-500)}` };
        }
        const row = { device, dtype, mib, tensorMib, source, ...m };
        rows.push(row);
        console.log(
          `| ${device} | ${dtype} | ${mib} | ${m.error ? "–" : mb(m.tensors)} | ${m.rss0 ? mb(m.rss0) : "–"} | ${m.peak ? mb(m.peak) : "–"} | ${m.ext ? mb(m.ext) : "–"} | ${m.error ? "–" : mb(m.peak - m.rss0 - m.tensors)} | ${m.seconds?.toFixed(1) ?? "–"} | ${m.error ? m.error.slice(0, 160) : "ok"} |`,
        );
        if (out) writeFileSync(out, JSON.stringify(rows, null, 1) + "\n");
      }
}

if (process.argv[2] === "--child") await child();
else if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
