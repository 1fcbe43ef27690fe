// Autograd: gradients by backward(), checked against the formula
import * as torch from "webtorch";

const x = torch.tensor([0.5, 1, 2]).requires_grad_();
const y = x.pow(3).sum(); // y = Σ x³
y.backward();
print("x =", x);
print("dy/dx =", x.grad, "(3x² = [0.75, 3, 12])");

// A small regression fitted by gradient descent on w and b.
torch.manual_seed(0);
const X = torch.randn(64, 1);
const Y = X.mul(3).add(0.5);
const w = torch.zeros(1, 1).requires_grad_();
const b = torch.zeros(1).requires_grad_();
const steps = QUICK ? 30 : 100;
for (let step = 0; step < steps; step++) {
  const loss = torch.nn.functional.mse_loss(X.matmul(w).add(b), Y);
  loss.backward();
  torch.no_grad(() => {
    w.sub_(w.grad!.mul(0.1));
    b.sub_(b.grad!.mul(0.1));
  });
  w.grad = null;
  b.grad = null;
  if (step % 5 === 0)
    plot.line("mse loss", { loss: Number(await loss.item()) }, step);
}
print(
  "w ≈ 3:",
  Number(await w.item()).toFixed(3),
  " b ≈ 0.5:",
  Number(await b.item()).toFixed(3),
);
