// Profile a training step: torch.profiler's op table and a Chrome trace (Perfetto) to download
import * as torch from "webtorch";
const { nn } = torch;

torch.manual_seed(0);
const model = new nn.Sequential(
  new nn.Linear(256, 512),
  new nn.GELU(),
  new nn.Linear(512, 10),
);
const x = torch.randn(128, 256);
const y = torch.randint(0, 10, [128]);

const prof = await torch.profiler.profile(async () => {
  await torch.profiler.record_function("forward", () => {
    const loss = nn.functional.cross_entropy(model.call(x) as torch.Tensor, y);
    return torch.profiler.record_function("backward", () => loss.backward());
  });
  await torch.webgpu.sync_device();
});
print(prof.key_averages().table({ sort_by: "cpu_time_total", row_limit: 8 }));

// The same events as a Chrome trace: open it in ui.perfetto.dev or chrome://tracing.
const trace = prof.export_chrome_trace();
const events = JSON.parse(trace).traceEvents as { name: string }[];
print(`trace: ${events.length} events, ${trace.length} bytes of JSON`);
print(
  "ranges:",
  events
    .filter((e) => e.name === "forward" || e.name === "backward")
    .map((e) => e.name),
);
print(
  `download: ${URL.createObjectURL(new Blob([trace], { type: "application/json" }))}`,
);
