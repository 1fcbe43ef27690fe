// The public API in Node on WebGPU: Dawn from the `webgpu` npm package (the Makefile sets
// VK_ICD_FILENAMES so that Dawn finds SwiftShader here). The default device must be "webgpu".
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY, registerChecks } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);

test("[webgpu] import picks WebGPU: a real adapter through the webgpu package", async () => {
  assert.equal(
    torch.get_default_device(),
    "webgpu",
    "default device (is VK_ICD_FILENAMES set?)",
  );
  assert.equal(torch.webgpu.is_available(), true);
  const adapter = await globalThis.navigator.gpu.requestAdapter();
  assert.ok(adapter, "navigator.gpu.requestAdapter() gives an adapter");
  const info = torch._C.adapter_info();
  assert.equal(typeof info, "object");
  assert.ok(info.features.length >= 0 && typeof info.limits === "object");
});

registerChecks(torch, "webgpu");
