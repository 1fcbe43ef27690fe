// The tests page: replays the PyTorch parity fixtures (tests/parity/fixtures, served at /parity/)
// with the parity runner (tests/parity/run.mjs) on the built package, in the visitor's browser,
// and shows every case next to what PyTorch computed. `window.parity` reports to the tests.
const $ = (id) => document.getElementById(id);
const PKG = "/pkg/dist/index.js";
const RUNNER = "/parity/run.mjs";

const torch = await import(/* webpackIgnore: true */ PKG);
const { loadFixtures, runParity } = await import(
  /* webpackIgnore: true */ RUNNER
);
const params = new URLSearchParams(location.search);
const gpu = torch.get_default_device() === "webgpu";
$("device").textContent = gpu ? "webgpu" : "cpu backend";
$("device").className = `badge ${gpu ? "webgpu" : "cpu"}`;
if (!gpu) {
  $("banner").hidden = false;
  $("banner").textContent =
    "No WebGPU adapter here: the fixtures run on webtorch's CPU backend only.";
  $("device-select").value = "cpu";
  $("device-select").options[0].disabled = true;
}
if (params.get("device")) $("device-select").value = params.get("device");
if (params.get("filter")) $("filter").value = params.get("filter");

const cases = await loadFixtures(new URL("/parity/fixtures/", location.href));
const byName = new Map(cases.map((c) => [c.name, c]));
$("summary").textContent = `${cases.length} cases loaded.`;

/** What PyTorch gave: the output's shape, dtype and first values, or the error it raised. */
function expected(c) {
  if (c.error) return `raises ${c.error.class ?? c.error.type}`;
  const show = (out) => {
    if (out === null || typeof out !== "object") return JSON.stringify(out);
    if (Array.isArray(out)) return out.map(show).join("; ");
    if (!Array.isArray(out.shape)) return JSON.stringify(out).slice(0, 60);
    const data = out.data ?? [];
    const head = data
      .slice(0, 4)
      .map((v) => (typeof v === "number" ? +v.toPrecision(5) : v));
    return `[${out.shape.join(", ")}] ${out.dtype} ${JSON.stringify(head).slice(1, -1)}${data.length > 4 ? ", …" : ""}`;
  };
  return c.out === undefined ? "" : show(c.out);
}

const row = (cells, cls) => {
  const tr = document.createElement("tr");
  if (cls) tr.className = cls;
  for (const v of cells) {
    const td = document.createElement("td");
    td.textContent = v;
    tr.append(td);
  }
  return tr;
};

async function run() {
  $("run").disabled = true;
  const device = $("device-select").value;
  const filter = $("filter").value ? new RegExp($("filter").value) : undefined;
  const casesBody = $("cases").tBodies[0];
  const opsBody = $("ops").tBodies[0];
  casesBody.replaceChildren();
  opsBody.replaceChildren();
  window.parity = { done: false };
  const ops = new Map();
  const t0 = performance.now();
  let n = 0;
  const total = filter
    ? cases.filter((c) => filter.test(c.name)).length
    : cases.length;
  const r = await runParity(torch, cases, {
    device,
    filter,
    onResult(res) {
      n++;
      const c = byName.get(res.name);
      casesBody.append(
        row(
          [
            res.name,
            res.dtype,
            expected(c),
            res.ok ? "✓ matches" : `✗ ${res.detail}`,
            res.grad ?? "",
          ],
          res.ok ? "ok" : "fail",
        ),
      );
      const o = ops.get(res.op) ?? { cases: 0, failed: 0 };
      o.cases++;
      if (!res.ok) o.failed++;
      ops.set(res.op, o);
      if (n % 25 === 0)
        $("summary").textContent = `running on ${device}: ${n}/${total}…`;
    },
  });
  for (const [op, o] of [...ops].sort(
    (a, b) => b[1].failed - a[1].failed || a[0].localeCompare(b[0]),
  ))
    opsBody.append(
      row(
        [op, o.cases, o.cases - o.failed, o.failed],
        o.failed ? "fail" : "ok",
      ),
    );
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  $("summary").textContent =
    `${r.passed} of ${r.results.length} cases match PyTorch on ${device} (${ops.size} ops, ` +
    `${r.grads.checked} gradient checks) in ${secs} s` +
    (r.failed ? `; ${r.failed} differ (listed in red)` : ".");
  window.parity = {
    done: true,
    device,
    count: r.results.length,
    passed: r.passed,
    failed: r.failed,
    ops: ops.size,
    grads: r.grads.checked,
  };
  $("run").disabled = false;
}

$("run").addEventListener("click", run);
$("run").disabled = false;
if (!params.has("norun")) run();
