// Port from PyTorch CUDA: code written for "cuda" runs on WebGPU as it is
import * as torch from "webtorch";
const { nn, optim } = torch;
const F = nn.functional;

// The PyTorch original:
//
//   device = "cuda" if torch.cuda.is_available() else "cpu"
//   class Net(nn.Module):
//       def __init__(self):
//           super().__init__()
//           self.fc1, self.fc2 = nn.Linear(2, 32), nn.Linear(32, 1)
//       def forward(self, x):
//           return self.fc2(self.fc1(x).tanh())
//   model = Net().to(device)
//   x = torch.rand(512, 2) * 2 - 1
//   y = (x[:, 0] * x[:, 1] > 0).float().unsqueeze(1)     # same sign: 1, else 0
//   x, y = x.cuda(), y.to("cuda")
//   for step in range(...): loss = F.binary_cross_entropy_with_logits(model(x), y); ...
//
// In webtorch "cuda" names the WebGPU device: the first use says so once (a console warning,
// shown in the output below), and tensors moved there report device "webgpu".
const device = torch.cuda.is_available() ? "cuda" : "cpu";
print(`device = ${JSON.stringify(device)}: ${torch.cuda.device_count()} GPU`);

torch.manual_seed(0);
class Net extends nn.Module {
  fc1 = new nn.Linear(2, 32);
  fc2 = new nn.Linear(32, 1);
  forward(x: torch.Tensor): torch.Tensor {
    return this.fc2.call(this.fc1.call(x).tanh());
  }
}
const model = new Net().to(device);
const x0 = torch.rand(512, 2).mul(2).sub(1);
const y0 = x0.select(1, 0).mul(x0.select(1, 1)).gt(0).float().unsqueeze(1);
const x = device === "cuda" ? x0.cuda() : x0;
const y = y0.to(device);
print(
  `x.is_cuda: ${x.is_cuda}, x.device: ${x.device}; the model's weights on ${model.parameters()[0].device}`,
);

const opt = new optim.Adam(model.parameters(), { lr: 0.05 });
const steps = QUICK ? 10 : 200;
for (let step = 1; step <= steps; step++) {
  const loss = torch.scope(() => {
    opt.zero_grad();
    const l = F.binary_cross_entropy_with_logits(model.call(x), y);
    l.backward();
    return l.detach();
  });
  opt.step();
  if (step % 10 === 0 || step === 1) {
    plot.line("loss", { loss: Number(await loss.item()) }, step);
    progress("training", step, steps);
  }
  loss.dispose();
}
await torch.cuda.synchronize();

// Back to the CPU, as PyTorch code reads results: `.cpu()`.
const hits = torch.no_grad(() =>
  model.call(x).gt(0).float().eq(y).float().mean().cpu(),
);
print(
  `accuracy after ${steps} steps: ${(Number(await hits.item()) * 100).toFixed(1)} % (on ${hits.device})`,
);
