// The playground: imports webtorch (which picks WebGPU or falls back to the CPU on import), runs
// the example in the text box, and prints the results PyTorch-style.
import * as torch from "webtorch";
import { formatTensor } from "./format.js";

const EXAMPLE = `// A tiny layer: matmul + relu + sum, on the default device.
const x = torch.tensor([[1, 2], [3, 4]], { dtype: torch.float32 });
const w = torch.tensor([[0.5, -1], [1, 0.25]]);
const y = x.matmul(w).relu();
print("y = relu(x @ w) =", y);
print("y.sum() =", y.sum());

torch.manual_seed(0);
const a = torch.randn(512, 512);
print("randn(512, 512).square().mean() ≈ 1:", await a.square().mean().item());
`;

const $ = (id) => document.getElementById(id);
const code = $("code");
const output = $("output");
const run = $("run");

const device = torch.get_default_device();
const info = torch._C.adapter_info();
$("device").textContent =
  device === "webgpu"
    ? `Running on webgpu (${info?.name || [info?.vendor, info?.architecture].filter(Boolean).join(" ") || "adapter"}).`
    : "No WebGPU adapter: fell back to the cpu backend.";
$("device").className = device;
code.value = EXAMPLE;

async function runCode() {
  run.disabled = true;
  output.className = "";
  const lines = [];
  const print = async (...parts) => {
    const shown = await Promise.all(
      parts.map((p) =>
        p instanceof torch.Tensor ? formatTensor(p) : String(p),
      ),
    );
    lines.push(shown.join(" "));
    output.textContent = lines.join("\n");
  };
  const t0 = performance.now();
  try {
    const AsyncFunction = (async () => {}).constructor;
    // `print` calls run in order (each awaits its tensor reads) even when the code does not await them.
    let queue = Promise.resolve();
    const enqueue = (...p) => (queue = queue.then(() => print(...p)));
    await new AsyncFunction("torch", "print", code.value)(torch, enqueue);
    await queue;
    await torch.webgpu.sync_device();
    $("timing").textContent =
      `${(performance.now() - t0).toFixed(1)} ms on ${device}`;
    output.dataset.done = "true";
  } catch (e) {
    output.className = "error";
    output.textContent = [...lines, `${e.name}: ${e.message}`].join("\n");
    output.dataset.done = "error";
  } finally {
    run.disabled = false;
  }
}

run.addEventListener("click", runCode);
code.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) runCode();
});
run.disabled = false;
runCode();
