// Extending webtorch (docs/extending.md): op registries. A custom op — swish with a scalar beta,
// z * sigmoid(beta * z) — registered as user WGSL (webgpu) and JS (cpu) kernels with a backward
// written as a second kernel, trains a small MLP and gives PyTorch's per-step losses and final
// weights (fixture from tests/parity/extend_gen.py) on both devices. Bad WGSL is refused with the
// compiler's message; functions, methods and the queries are checked too.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/extend/swish_train.json", import.meta.url),
  ),
);
const gpu = torch.webgpu.is_available();
const devices = gpu ? ["webgpu", "cpu"] : ["cpu"];

const PARAMS = `struct Params { numel: u32, r0: u32, r1: u32, r2: u32, scalars: array<vec4<f32>, 2> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;`;

const SWISH = `${PARAMS}
@group(0) @binding(2) var<storage, read> z: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= params.numel) { return; }
  let beta = params.scalars[0].x;
  out[i] = z[i] / (1.0 + exp(-beta * z[i]));
}`;

const SWISH_GRAD = `${PARAMS}
@group(0) @binding(2) var<storage, read> z: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 64u;
  if (i >= params.numel) { return; }
  let beta = params.scalars[0].x;
  let s = 1.0 / (1.0 + exp(-beta * z[i]));
  out[i] = gy[i] * (s + beta * z[i] * s * (1.0 - s));
}`;

const sig = (v) => 1 / (1 + Math.exp(-v));

const swish = await torch.register_kernel({
  name: "swish_beta",
  inputs: 1,
  wgsl: gpu ? SWISH : undefined,
  workgroup_size: 64,
  cpu: ([z], out, { scalars: [beta] }) => {
    for (let i = 0; i < out.length; i++) out[i] = z[i] * sig(beta * z[i]);
  },
});
await torch.register_kernel({
  name: "swish_beta_grad",
  inputs: 2,
  wgsl: gpu ? SWISH_GRAD : undefined,
  workgroup_size: 64,
  shape: (shapes) => {
    if (shapes[0].join() !== shapes[1].join())
      throw new torch.ShapeError("swish_beta_grad: z and gy shapes differ");
    return shapes[0];
  },
  cpu: ([z, gy], out, { scalars: [beta] }) => {
    for (let i = 0; i < out.length; i++) {
      const s = sig(beta * z[i]);
      out[i] = gy[i] * (s + beta * z[i] * s * (1 - s));
    }
  },
});
torch.register_backward("swish_beta", (g, { inputs: [z], scalars: [beta] }) =>
  torch.ops.swish_beta_grad(z, g, beta),
);

for (const device of devices) {
  describe(`[${device}] a custom WGSL/JS op with a backward trains like PyTorch`, () => {
    test("forward and gradient of the op match PyTorch", async () => {
      const z = torch
        .tensor(FIX.op.z, { device, dtype: "float32" })
        .requires_grad_();
      const out = swish(z, FIX.beta);
      assert.equal(out.device, device);
      assert.equal(out.grad_fn?.name, "swish_betaBackward");
      assertClose(await out.toArray(), FIX.op.out, 1e-5, "out");
      out.backward(torch.arange(1, 8, { device }).float());
      assertClose(await z.grad.toArray(), FIX.op.grad, 1e-5, "grad");
    });

    test("an MLP with the op trains 8 SGD steps to PyTorch's losses and weights", async () => {
      const t = (v, shape) =>
        torch
          .tensor(v, { device, dtype: "float32" })
          .reshape(shape)
          .requires_grad_();
      const x = torch.tensor(FIX.x, { device }).reshape([16, 4]);
      const y = torch.tensor(FIX.y, { device }).reshape([16, 2]);
      const p = {
        w1: t(FIX.init.w1, [4, 8]),
        b1: t(FIX.init.b1, [8]),
        w2: t(FIX.init.w2, [8, 2]),
        b2: t(FIX.init.b2, [2]),
      };
      const opt = new torch.optim.SGD(Object.values(p), { lr: FIX.lr });
      const losses = [];
      for (let s = 0; s < FIX.steps; s++) {
        opt.zero_grad();
        const h = torch.ops.swish_beta(x.matmul(p.w1).add(p.b1), FIX.beta);
        const loss = h.matmul(p.w2).add(p.b2).sub(y).square().mean();
        loss.backward();
        opt.step();
        losses.push(await loss.item());
      }
      assertClose(losses, FIX.losses, 1e-4, "losses");
      for (const k of Object.keys(p))
        assertClose(await p[k].toArray(), FIX.final[k], 1e-4, k);
    });
  });
}

describe("op registries", () => {
  test("register_function and register_method", async () => {
    const hardtanh2 = torch.register_function("hardtanh2", (x) =>
      x.clamp(-2, 2),
    );
    assert.equal(torch.ops.hardtanh2, hardtanh2);
    torch.register_method("twice", (self) => self.mul(2));
    const x = torch.tensor([-3, 1, 4]);
    assert.deepEqual(
      Array.from(await torch.ops.hardtanh2(x).toArray()),
      [-2, 1, 2],
    );
    assert.deepEqual(Array.from(await x.twice().toArray()), [-6, 2, 8]);
    assert.throws(
      () => torch.register_function("add", (a) => a),
      /op 'add' already exists/,
    );
    assert.throws(
      () => torch.register_method("sum", (a) => a),
      /Tensor.sum already exists/,
    );
    assert.ok(torch.list_functions().includes("hardtanh2"));
    assert.ok(torch.list_methods().includes("twice"));
  });

  test("a forward composition runs where there is no kernel, differentiably", async () => {
    torch.register_forward("softsign2", (x) => x.div(x.abs().add(1)));
    const x = torch
      .tensor([-1, 0, 3], { device: "cpu", dtype: "float32" })
      .requires_grad_();
    const y = torch.ops.softsign2(x);
    assert.deepEqual(Array.from(await y.toArray()), [-0.5, 0, 0.75]);
    y.sum().backward();
    // d/dx x / (1 + |x|) = 1 / (1 + |x|)²
    assertClose(await x.grad.toArray(), [0.25, 1, 1 / 16], 1e-6, "grad");
  });

  test("queries: list_ops, has_kernel, get_op_info, coverage_report", () => {
    const names = torch.list_ops();
    assert.ok(names.includes("swish_beta") && names.includes("exp"));
    assert.ok(torch.has_kernel("swish_beta", "cpu"));
    assert.equal(torch.has_kernel("swish_beta", "webgpu"), gpu);
    assert.equal(torch.has_kernel("softsign2"), false);
    assert.equal(torch.has_kernel("nope"), false);
    const info = torch.get_op_info("swish_beta");
    assert.equal(info.kind, "kernel");
    assert.equal(info.backward, true);
    assert.equal(info.inputs, 1);
    assert.equal(torch.get_op_info("exp").kind, "builtin");
    assert.throws(() => torch.get_op_info("nope"), torch.TorchError);
    const report = torch.coverage_report();
    assert.equal(report.total, names.length);
    assert.ok(report.by_device.cpu >= torch.list_kernels().length);
    assert.deepEqual(
      report.ops.find((o) => o.name === "swish_beta").devices,
      gpu ? ["cpu", "webgpu"] : ["cpu"],
    );
  });

  test("errors: missing kernels, wrong arguments", () => {
    const cpuOnly = torch.tensor([1, 2], { device: "cpu" });
    assert.throws(
      () => torch.ops.swish_beta(cpuOnly, cpuOnly),
      /takes 1 tensor inputs but 2/,
    );
    assert.throws(
      () => torch.ops.swish_beta(cpuOnly, "x"),
      /Tensors or numbers/,
    );
    if (gpu) {
      const a = torch.tensor([1, 2], { device: "webgpu" });
      assert.throws(
        () => torch.ops.swish_beta_grad(a, cpuOnly, 1),
        torch.DeviceError,
      );
    }
  });

  test(
    "bad WGSL is refused with the compiler's message",
    { skip: !gpu },
    async () => {
      await assert.rejects(
        torch.register_kernel({
          name: "broken",
          inputs: 1,
          wgsl: SWISH.replace("exp(-beta * z[i])", "exp(-beta * zz[i])"),
        }),
        (e) =>
          e instanceof torch.TorchError &&
          /WGSL kernel 'broken' failed to compile/.test(e.message) &&
          /zz/.test(e.message),
      );
      // Compiles, but binds an input that the op does not have.
      await assert.rejects(
        torch.register_kernel({ name: "misbound", inputs: 0, wgsl: SWISH }),
        (e) => e instanceof torch.TorchError && /misbound/.test(e.message),
      );
      assert.equal(torch.has_kernel("broken"), false);
    },
  );
});

describe("custom dtypes", () => {
  const Q = JSON.parse(
    readFileSync(
      new URL("../parity/fixtures/extend/qlinear.json", import.meta.url),
    ),
  );
  const bytes = new Uint8Array(
    readFileSync(
      new URL("../parity/fixtures/extend/qlinear.safetensors", import.meta.url),
    ),
  );

  test("int8 weights with a per-row scale load and dequantize to PyTorch's values", async () => {
    // Without the dtype, I8 is refused.
    assert.throws(
      () => torch.loadBytes(bytes),
      /dtype I8, which webtorch does not load/,
    );
    torch.register_dtype({
      name: "qint8",
      itemsize: 1,
      storage: "int32",
      safetensors: "I8",
      decode: (view, at) => view.getInt8(at),
    });
    for (const device of devices) {
      const sd = torch.loadBytes(bytes, { device });
      const w = sd.weight;
      assert.ok(w instanceof torch.QuantizedTensor);
      assert.equal(w.custom_dtype, "qint8");
      assert.equal(w.dtype, "int32");
      assert.deepEqual(w.shape, [6, 5]);
      assert.deepEqual(Array.from(await w.int_repr().toArray()), Q.q);
      const deq = w.dequantize(sd["weight.scale"]);
      assert.equal(deq.dtype, "float32");
      assertClose(
        await deq.toArray(),
        Q.dequantized,
        1e-6,
        `${device} dequantized`,
      );
      const x = torch.tensor(Q.x, { device, dtype: "float32" }).reshape([3, 5]);
      const y = torch.nn.functional.linear(x, deq, sd.bias);
      assertClose(await y.toArray(), Q.y, 1e-5, `${device} linear`);
    }
  });

  test("registry queries and errors", () => {
    assert.ok(torch.list_dtypes().includes("float32"));
    assert.ok(torch.list_dtypes().includes("qint8"));
    assert.ok(torch.has_dtype("qint8") && !torch.has_dtype("qint4"));
    assert.deepEqual(torch.get_dtype_info("qint8"), {
      name: "qint8",
      itemsize: 1,
      is_floating_point: false,
      is_custom: true,
      storage: "int32",
      safetensors: "I8",
      description: "custom dtype stored as int32",
    });
    assert.equal(torch.get_dtype_info("int64").itemsize, 8);
    assert.throws(() => torch.get_dtype_info("qint4"), torch.DTypeError);
    const cfg = { name: "q2", itemsize: 1, storage: "int32", decode: () => 0 };
    assert.throws(
      () => torch.register_dtype({ ...cfg, name: "qint8" }),
      /already registered/,
    );
    assert.throws(
      () => torch.register_dtype({ ...cfg, name: "float32" }),
      /already registered/,
    );
    assert.throws(
      () => torch.register_dtype({ ...cfg, safetensors: "I8" }),
      /I8 already loads as qint8/,
    );
    assert.throws(
      () => torch.register_dtype({ ...cfg, storage: "int4" }),
      torch.DTypeError,
    );
  });
});
