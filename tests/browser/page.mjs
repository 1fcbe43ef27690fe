// The page side of the browser tests: imports webtorch like an app, and exposes the shared checks
// (tests/node/checks/), the parity runner (tests/parity/run.mjs) and the training parity run
// (train.mjs) for api.test.mjs to call.
import * as torch from "webtorch";
import { checks } from "/tests/node/checks/index.mjs";
import { loadFixtures, runParity, formatReport } from "/tests/parity/run.mjs";
import { trainParity } from "/tests/browser/train.mjs";

const byName = new Map(checks.map((c) => [c.name, c]));
const describe = (e) =>
  e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e);

window.webtorchTests = {
  names: checks.map((c) => c.name),
  async adapter() {
    const adapter = await navigator.gpu?.requestAdapter();
    return {
      hasNavigatorGpu: "gpu" in navigator,
      adapter: adapter
        ? {
            vendor: adapter.info.vendor,
            architecture: adapter.info.architecture,
          }
        : null,
      defaultDevice: torch.get_default_device(),
      isAvailable: torch.webgpu.is_available(),
      coreAdapter: torch._C.adapter_info(),
    };
  },
  async init(device) {
    return torch.init({ device });
  },
  async run(name, device) {
    try {
      await byName.get(name).run(torch, { device, where: "browser" });
      return { ok: true };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  },
  async train(device) {
    try {
      return { ok: true, runs: await trainParity(torch, device) };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  },
  /** torch.hub from the Cache API: a state dict loaded twice, and the requests it made. */
  async hub(url, device) {
    try {
      const fetched = () =>
        performance.getEntriesByType("resource").filter((e) => e.name === url)
          .length;
      await caches.delete("webtorch-hub");
      // The earlier tests' loads may have filled the resource-timing buffer (250 entries by
      // default), which would drop these requests' entries.
      performance.setResourceTimingBufferSize(10_000);
      performance.clearResourceTimings();
      const before = fetched();
      const reports = [];
      const load = () =>
        torch.hub.load_state_dict_from_url(url, {
          map_location: device,
          progress: (loaded, total) => reports.push([loaded, total]),
        });
      const read = async (sd) => {
        const out = {};
        for (const [k, t] of Object.entries(sd))
          out[k] = {
            dtype: t.dtype,
            device: t.device,
            shape: [...t.shape],
            values: await t.flatten().tolist(),
          };
        return out;
      };
      const first = await read(await load());
      const afterFirst = fetched();
      const second = await read(await load());
      return {
        ok: true,
        first,
        second,
        fetches: [afterFirst - before, fetched() - before],
        lastReport: reports.at(-1),
      };
    } catch (e) {
      return { ok: false, error: describe(e) };
    }
  },
  /**
   * torch.hub resuming in the browser: the first load is cut off by the server (a TorchError);
   * the bytes it got are in IndexedDB; the second load continues after them. Returns what the
   * page saw; the server side records the requests.
   */
  async hubResume(url) {
    await caches.delete("webtorch-hub");
    await new Promise((r) => {
      const del = indexedDB.deleteDatabase("webtorch-hub");
      del.onsuccess = del.onerror = del.onblocked = () => r();
    });
    let first;
    try {
      await torch.hub.load_state_dict_from_url(url, { progress: false });
      first = "loaded";
    } catch (e) {
      first = { torchError: e instanceof torch.TorchError, message: e.message };
    }
    const reports = [];
    try {
      const sd = await torch.hub.load_state_dict_from_url(url, {
        check_hash: true,
        map_location: "cpu",
        progress: (loaded, total) => reports.push([loaded, total]),
      });
      const values = {};
      for (const [k, t] of Object.entries(sd))
        values[k] = await t.flatten().tolist();
      return { ok: true, first, firstReport: reports[0], values };
    } catch (e) {
      return { ok: false, first, error: describe(e) };
    }
  },
  async parity(device) {
    const cases = await loadFixtures(
      new URL("/tests/parity/fixtures/", location.href),
    );
    const r = await runParity(torch, cases, { device });
    return {
      count: cases.length,
      passed: r.passed,
      failed: r.failed,
      failures: r.results
        .filter((x) => !x.ok)
        .map((x) => `${x.name}: ${x.detail}`),
      report: formatReport({ [device]: r }),
    };
  },
};
document.getElementById("status").textContent =
  `webtorch ready on ${torch.get_default_device()}`;
window.webtorchReady = true;
