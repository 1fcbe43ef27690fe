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

/** A device computing in Float32Arrays in JS: elementwise ops with broadcasting and matmul. */
function jsDevice(name, log) {
  const f32 = (buf) => new Float32Array(buf.data.buffer, 0, buf.size / 4);
  const unary = { relu: (a) => Math.max(a, 0), exp: Math.exp, neg: (a) => -a };
  const binary = {
    add: (a, b) => a + b,
    sub: (a, b) => a - b,
    mul: (a, b) => a * b,
  };
  /** Row-major index into `shape` of the broadcast output coordinate `coord`. */
  const at = (shape, out, i) => {
    let idx = 0;
    let stride = 1;
    for (let d = out.length - 1, s = shape.length - 1; s >= 0; d--, s--) {
      const c =
        Math.floor(i / out.slice(d + 1).reduce((x, y) => x * y, 1)) % out[d];
      idx += (shape[s] === 1 ? 0 : c) * stride;
      stride *= shape[s];
    }
    return idx;
  };
  return {
    name,
    ops: ["add", "sub", "mul", "relu", "exp", "neg", "matmul"],
    capabilities: {
      compute: true,
      storage: true,
      maxBufferSize: 1 << 28,
      maxWorkgroupSize: [1, 1, 1],
      maxWorkgroupsPerDimension: 1,
      supportedDTypes: ["float32"],
    },
    initialize: async () => ({ name, ready: true, destroy: () => {} }),
    createBuffer: (size) => ({ size, data: new Uint8Array(size) }),
    writeBuffer: (buf, data, offset = 0) =>
      buf.data.set(
        new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        offset,
      ),
    readBufferSync: (buf, size, offset = 0) =>
      buf.data.slice(offset, offset + size).buffer,
    readBuffer: async (buf, size, offset = 0) =>
      buf.data.slice(offset, offset + size).buffer,
    dispatch({ op, inputs, output, shapes, outShape }) {
      log.push(op);
      const out = f32(output);
      const [a, b] = inputs.map(f32);
      if (op === "matmul") {
        const [m, k] = shapes[0];
        const n = shapes[1][1];
        for (let i = 0; i < m; i++)
          for (let j = 0; j < n; j++) {
            let s = 0;
            for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
            out[i * n + j] = s;
          }
      } else if (op in unary)
        for (let i = 0; i < out.length; i++) out[i] = unary[op](a[i]);
      else
        for (let i = 0; i < out.length; i++)
          out[i] = binary[op](
            a[at(shapes[0], outShape, i)],
            b[at(shapes[1], outShape, i)],
          );
    },
    sync: async () => {},
  };
}

describe("custom devices", () => {
  const D = JSON.parse(
    readFileSync(
      new URL("../parity/fixtures/extend/device_ops.json", import.meta.url),
    ),
  );

  test("register, initialize, query", async () => {
    const log = [];
    torch.register_device(jsDevice("jsdev", log));
    assert.ok(torch.has_device("jsdev"));
    assert.deepEqual(torch.list_devices(), [
      ...devices.slice().reverse(),
      "jsdev",
    ]);
    assert.equal(torch.get_device_config("jsdev").name, "jsdev");
    assert.equal(torch.is_webgpu_available(), gpu);
    assert.equal(torch.is_cpu_only_mode(), !gpu);
    const x = torch.tensor([1, 2], { device: "cpu", dtype: "float32" });
    assert.throws(
      () => x.to("jsdev"),
      /not initialized: await torch.initialize_device\('jsdev'\)/,
    );
    assert.equal(torch.get_device_context("jsdev"), null);
    assert.equal(await torch.initialize_device("jsdev"), "jsdev");
    assert.equal(torch.get_device_context("jsdev").ready, true);
    assert.throws(
      () => torch.register_device(jsDevice("jsdev", log)),
      /already registered/,
    );
    assert.throws(
      () => torch.register_device({ ...jsDevice("bad", log), ops: ["sort"] }),
      torch.DeviceError,
    );
    assert.throws(() => torch.get_device_config("nope"), torch.DeviceError);
  });

  test("ops run on the device (or through the CPU) and match PyTorch; tensors move both ways", async () => {
    const log = [];
    torch.register_device(jsDevice("jsdev2", log));
    await torch.initialize_device("jsdev2");
    const cpu = (v, shape) =>
      torch.tensor(v, { device: "cpu", dtype: "float32" }).reshape(shape);
    const x = cpu(D.x, [3, 4]).to("jsdev2");
    assert.ok(x instanceof torch.DeviceTensor);
    assert.equal(x.device, "jsdev2");
    const w = cpu(D.w, [4, 2]).to("jsdev2");
    const b = cpu(D.b, [2]).to("jsdev2");
    const h = x.matmul(w).add(b).relu();
    assert.deepEqual(log, ["matmul", "add", "relu"]);
    assert.deepEqual(h.shape, [3, 2]);
    assertClose(await h.toArray(), D.h, 1e-5, "h on the device");
    // tanh and a scalar multiply are not device ops: computed through the CPU backend.
    const y = h.tanh().mul(2);
    assert.deepEqual(log, ["matmul", "add", "relu"]);
    assert.equal(y.device, "jsdev2");
    assertClose(await y.toArray(), D.y, 1e-5, "y through the CPU");
    // Back to the core devices.
    const yc = y.to("cpu");
    assert.equal(yc.device, "cpu");
    assertClose(await yc.toArray(), D.y, 1e-5, "y on cpu");
    if (gpu) {
      const yg = y.to("webgpu");
      assert.equal(yg.device, "webgpu");
      assertClose(
        await yg.add(1).toArray(),
        D.y.map((v) => v + 1),
        1e-5,
        "y on webgpu",
      );
      assert.throws(() => yg.to("jsdev2"), /to_async/);
      const back = await yg.to_async("jsdev2");
      assert.equal(back.device, "jsdev2");
      assertClose(await back.toArray(), D.y, 1e-5, "webgpu to device");
      const c2g = yc.to("webgpu");
      assert.equal(c2g.device, "webgpu");
      assertClose(await c2g.toArray(), D.y, 1e-5, "cpu to webgpu");
    }
    // Autograd: the forward runs on the device, backward through the CPU backend; the leaves'
    // gradients land on the device and match PyTorch's.
    const wl = cpu(D.w, [4, 2]).to("jsdev2").requires_grad_();
    const bl = cpu(D.b, [2]).to("jsdev2").requires_grad_();
    log.length = 0;
    const loss = x.matmul(wl).add(bl).relu().tanh().mul(2).sum();
    assert.deepEqual(log, ["matmul", "add", "relu"], "forward on the device");
    assert.ok(loss.requires_grad && !x.requires_grad);
    loss.backward();
    assert.equal(wl.grad.device, "jsdev2");
    assertClose(await wl.grad.toArray(), D.dw, 1e-5, "dw");
    assertClose(await bl.grad.toArray(), D.db, 1e-5, "db");
    assert.equal(x.grad, null);
    // A second backward accumulates, as PyTorch's does.
    x.matmul(wl).add(bl).relu().tanh().mul(2).sum().backward();
    assertClose(
      await bl.grad.toArray(),
      D.db.map((v) => 2 * v),
      1e-5,
      "db accumulated",
    );
    assert.throws(() => x.sum().backward(), /does not require grad/);
    torch.no_grad(() => assert.equal(x.matmul(wl).requires_grad, false));
    // torch.get_device_module, as PyTorch's.
    assert.equal(torch.get_device_module("jsdev2").name, "jsdev2");
    assert.equal(torch.get_device_module("jsdev2").device_count(), 1);
    await torch.get_device_module("jsdev2").synchronize();
    assert.equal(torch.get_device_module("cpu").is_available(), true);
    if (gpu) assert.equal(torch.get_device_module("webgpu"), torch.webgpu);
    assert.throws(() => torch.get_device_module("nope"), torch.DeviceError);
    assert.throws(() => x.add(cpu(D.b, [2]).to("jsdev")), /same device/);
    assert.throws(() => x.matmul(x), /cannot be multiplied \(3x4 and 3x4\)/);
    assert.ok(torch.unregister_device("jsdev2"));
    assert.ok(!torch.has_device("jsdev2"));
  });
});
