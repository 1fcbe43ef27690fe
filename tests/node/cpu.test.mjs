// The public API in Node forced to the CPU backend with torch.init({ device: "cpu" }).
import test from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY, registerChecks } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);

test("[cpu] init({device: 'cpu'}) switches new tensors to the CPU backend, 'auto' switches back", async () => {
  const before = torch.get_default_device();
  const onBefore = torch.ones(2);
  assert.equal(await torch.init({ device: "cpu" }), "cpu");
  assert.equal(torch.get_default_device(), "cpu");
  assert.equal(torch.ones(2).device, "cpu");
  assert.equal(
    onBefore.device,
    before,
    "tensors made before keep their device",
  );
  assert.deepEqual(await onBefore.tolist(), [1, 1]);
  if (torch.webgpu.is_available()) {
    assert.equal(await torch.init(), "webgpu");
    assert.equal(torch.ones(2).device, "webgpu");
    assert.equal(await torch.init({ device: "cpu" }), "cpu");
  }
});

test("[cpu] init rejects an unknown device", async () => {
  await assert.rejects(() => torch.init({ device: "cuda" }), torch.DeviceError);
  assert.equal(
    torch.get_default_device(),
    "cpu",
    "still on the CPU after the failed init",
  );
});

registerChecks(torch, "cpu");
