// A fresh app's first use of webtorch: import by package name, compute, show the result.
import * as torch from "webtorch";

const out = document.getElementById("out");
try {
  const x = torch.tensor(
    [
      [1, 2],
      [3, 4],
    ],
    { dtype: torch.float32 },
  );
  const y = x.matmul(x).relu().sum(); // [[7, 10], [15, 22]] → 54
  out.textContent = `device=${torch.get_default_device()} result=${await y.item()}`;
  out.dataset.done = "true";
} catch (e) {
  out.textContent = `error: ${e.name}: ${e.message}`;
  out.dataset.done = "error";
}
