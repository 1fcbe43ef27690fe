// Devices and dtypes as PyTorch code moves between them (docs/migration.md): "cuda" as the WebGPU
// device (said once), Tensor.to / cpu() / cuda() / half() / bfloat16(), float64 refused,
// torch.set_default_device / set_default_dtype in the factories, Module.to in place with an
// optimizer made before, and the CPU copy of a GPU tensor returned without an await. Values from
// PyTorch: tests/parity/devices_gen.py.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

// The notice that "cuda" is WebGPU is counted from the first import on.
const warnings = [];
const warn = console.warn;
console.warn = (...a) => {
  if (String(a[0]).includes('"cuda"')) warnings.push(a.join(" "));
  else warn(...a);
};
const torch = await import(PKG_ENTRY.href);
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/devices/casts.json", import.meta.url),
  ),
);
const gpu = torch.webgpu.is_available();
const devices = gpu ? ["webgpu", "cpu"] : ["cpu"];
const num = (v) => (v === "inf" ? Infinity : v === "-inf" ? -Infinity : v);
const nums = (a) => a.map(num);

/** Exact float32 equality (the fixture's 9 digits name one float32), -0 and 0 apart. */
function assertSame(actual, expected, what) {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < expected.length; i++)
    assert.ok(
      Object.is(actual[i], Math.fround(expected[i])),
      `${what}[${i}]: ${actual[i]} !== ${expected[i]}`,
    );
}

describe('"cuda" names the WebGPU device', () => {
  test("the first use says so, once", { skip: !gpu }, async () => {
    assert.equal(warnings.length, 0);
    assert.equal(torch.cuda.is_available(), true);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /"cuda" names the WebGPU device/);
    const t = torch.ones(2, { device: "cuda" });
    const u = t.cuda().to("cuda:0");
    assert.equal(torch.device("cuda"), "webgpu");
    assert.equal(warnings.length, 1);
    torch.cuda.set_alias_warning(false);
    torch.cuda.set_alias_warning(true);
    torch.cuda.device_count();
    assert.equal(warnings.length, 1, "never twice in a process");
    for (const x of [t, u]) x.dispose();
  });

  test(
    "device strings, torch.device and torch.cuda",
    { skip: !gpu },
    async () => {
      for (const name of ["cuda", "cuda:0", "webgpu", "webgpu:0"]) {
        const t = torch.tensor([1, 2], { device: name });
        assert.equal(t.device, "webgpu", name);
        assert.equal(t.is_cuda, true);
        t.dispose();
      }
      assert.equal(torch.device("cuda", 0), "webgpu");
      assert.equal(torch.device("cpu"), "cpu");
      assert.equal(torch.zeros(1, { device: "cpu:0" }).device, "cpu");
      assert.throws(() => torch.zeros(1, { device: "cuda:1" }), {
        name: "DeviceError",
        message: /Invalid device ordinal 1/,
      });
      assert.throws(() => torch.device("tpu"), {
        name: "DeviceError",
        message:
          /Expected one of cpu, webgpu, cuda device type at start of device string: tpu/,
      });
      assert.equal(torch.cuda.device_count(), 1);
      assert.equal(torch.cuda.current_device(), 0);
      assert.equal(typeof torch.cuda.get_device_name(), "string");
      assert.equal(torch.get_device_module("cuda"), torch.cuda);
      const t = torch.ones(3, { device: "cuda" }).mul(2);
      await torch.cuda.synchronize();
      assert.deepEqual(await t.tolist(), [2, 2, 2]);
      assert.throws(
        () => torch.cuda.synchronize("cpu"),
        /Expected a cuda device/,
      );
    },
  );

  test('t.to("cuda") moves, as issue #34 asked', { skip: !gpu }, async () => {
    const c = torch.tensor([1.5, -2], { device: "cpu" });
    const g = c.to("cuda");
    assert.equal(g.device, "webgpu");
    assert.deepEqual(await g.tolist(), [1.5, -2]);
    const h = c.to("cuda", "float16");
    assert.equal(h.dtype, "float16");
    assert.equal(h.device, "webgpu");
    assert.throws(() => c.to("cuda:3"), { name: "DeviceError" });
    assert.throws(() => c.to("nodevice"), {
      name: "DeviceError",
      message: /device string: nodevice/,
    });
  });
});

describe("Tensor.to, cpu(), cuda(), half(), bfloat16()", () => {
  for (const device of devices) {
    test(`[${device}] the casts round as PyTorch's`, async () => {
      const x = torch.tensor(FIX.values, { device });
      for (const [dtype, cast] of [
        ["float16", (t) => t.half()],
        ["bfloat16", (t) => t.bfloat16()],
        ["float16", (t) => t.to({ dtype: "float16" })],
        ["bfloat16", (t) => t.to(device, "bfloat16")],
      ]) {
        const y = cast(x);
        assert.equal(y.dtype, dtype);
        assert.equal(y.device, device);
        assertSame(
          Array.from(await y.toArray()),
          nums(FIX.cast[dtype].values),
          `${device} ${dtype}`,
        );
      }
    });

    test(`[${device}] the forms of to()`, async () => {
      const x = torch.tensor([[1.25, -3]], { device });
      const same = x.to(device);
      same.add_(1);
      assert.deepEqual(
        await x.tolist(),
        [[2.25, -2]],
        "no change: the same tensor",
      );
      const copy = x.to(device, null, false, true);
      copy.add_(1);
      assert.deepEqual(await x.tolist(), [[2.25, -2]], "copy: true copies");
      const like = torch.zeros(1, { dtype: "bfloat16", device: "cpu" });
      const y = x.to(like);
      assert.equal(y.dtype, "bfloat16");
      assert.equal(y.device, "cpu");
      assert.equal(x.to({ device: "cpu", dtype: "int32" }).dtype, "int32");
      assert.throws(() => x.to("float16", "float32"), /invalid combination/);
      assert.throws(() => x.to({ dtyp: "float16" }), {
        name: "ArgumentError",
        message: /unexpected keyword argument 'dtyp'/,
      });
    });

    test(`[${device}] float64: on the CPU made, on WebGPU refused in PyTorch's MPS wording`, async () => {
      const x = torch.ones(2, { device });
      const makers = [
        () => x.double(),
        () => x.to("float64"),
        () => x.to({ dtype: "float64" }),
        () => x.to(device, "float64"),
        () => new torch.nn.Linear(2, 2, { device }).double().weight,
        () => new torch.nn.Linear(2, 2, { device }).to("float64").weight,
      ];
      if (device === "webgpu") {
        const message =
          "Cannot convert a WebGPU Tensor to float64 dtype as the WebGPU device doesn't support float64. Please use float32 instead.";
        for (const f of makers)
          assert.throws(f, { name: "DTypeError", message });
        // Moved to the CPU as float64: the move first, then the cast.
        const back = x.to("cpu", "float64");
        assert.equal(back.dtype, "float64");
        assert.deepEqual(await back.tolist(), [1, 1]);
      } else {
        for (const f of makers) assert.equal(f().dtype, "float64");
      }
    });
  }

  test(
    "a GPU tensor's cpu() is returned at once; its values follow",
    { skip: !gpu },
    async () => {
      const g = torch
        .tensor(
          [
            [1, -2],
            [3, 4.5],
          ],
          { device: "cuda" },
        )
        .mul(2);
      const c = g.cpu();
      assert.equal(c.device, "cpu");
      assert.equal(c.dtype, "float32");
      // No await yet: the values are on their way, so a synchronous host read is refused...
      assert.throws(() => c.to("webgpu"), {
        name: "DeviceError",
        message: /still being copied from webgpu/,
      });
      // ...while CPU work on them is recorded, index checks included, and runs when they land.
      const d = c.mul(10).add(torch.ones(2, 2, { device: "cpu" }));
      const picked = d.index_select(0, torch.tensor([1, 0], { device: "cpu" }));
      const s = c.to("int64").sum();
      g.dispose();
      assert.deepEqual(await picked.tolist(), [
        [61, 91],
        [21, -39],
      ]);
      assert.deepEqual(await c.tolist(), [
        [2, -4],
        [6, 9],
      ]);
      assert.equal(await s.item(), 13);
      // After a sync the moves are synchronous again.
      const back = c.to("cuda");
      assert.deepEqual(await back.tolist(), [
        [2, -4],
        [6, 9],
      ]);
      const e = torch.tensor([5], { device: "cuda" }).to("cpu");
      const bad = torch
        .ones(2, { device: "cpu" })
        .index_select(0, e.to("int64"));
      await assert.rejects(torch.cpu.synchronize(), {
        name: "IndexError",
        message: "index out of range in self",
      });
      bad.dispose();
      const r = torch.arange(3, { device: "cuda" }).to("cpu", "float16");
      assert.equal(r.dtype, "float16");
      assert.deepEqual(await r.tolist(), [0, 1, 2]);
    },
  );

  test(
    "moving a tensor that requires grad is refused (no gradient recorded)",
    { skip: !gpu },
    () => {
      const w = torch.ones(2, { requires_grad: true, device: "cpu" });
      assert.throws(() => w.cuda(), /records no gradient/);
      assert.equal(torch.no_grad(() => w.cuda()).device, "webgpu");
      assert.equal(w.detach().cpu().device, "cpu");
    },
  );
});

describe("torch.set_default_device, torch.set_default_dtype", () => {
  test("the default dtype in the float factories and in inference", async () => {
    assert.equal(torch.get_default_dtype(), "float32");
    for (const dtype of ["float16", "bfloat16"]) {
      torch.set_default_dtype(dtype);
      try {
        assert.equal(torch.get_default_dtype(), dtype);
        const made = {
          zeros: torch.zeros(2),
          ones: torch.ones([2]),
          empty: torch.empty(2),
          rand: torch.rand(2),
          randn: torch.randn(2),
          full: torch.full([2], 1.5),
          arange: torch.arange(0, 1, 0.25),
          linspace: torch.linspace(0, 1, 3),
          eye: torch.eye(2),
          tensor: torch.tensor([1.5, 2]),
        };
        for (const [name, t] of Object.entries(made))
          assert.equal(t.dtype, dtype, name);
        // What stays: integers, booleans, an explicit dtype.
        assert.equal(torch.tensor([1, 2]).dtype, "int64");
        assert.equal(torch.full([1], true).dtype, "bool");
        assert.equal(torch.arange(3).dtype, "int64");
        assert.equal(torch.zeros(1, { dtype: "float32" }).dtype, "float32");
        // Printed as PyTorch prints under that default (its values in PyTorch: 1.5000, and
        // the float32 tensor is the one that names its dtype).
        assert.equal(await torch.tensor([1.5]).format(), "tensor([1.5000])");
        assert.equal(
          await torch.tensor([1.5], { dtype: "float32" }).format(),
          "tensor([1.5000], dtype=torch.float32)",
        );
        assert.equal(await torch.zeros(0).format(), "tensor([])");
        // Values are the dtype's: 1/3 rounded to it.
        const third = await torch.tensor([1 / 3]).tolist();
        const want = await torch
          .tensor([1 / 3], { dtype: "float32" })
          .to(dtype)
          .tolist();
        assert.deepEqual(third, want);
      } finally {
        torch.set_default_dtype("float32");
      }
    }
    assert.equal(torch.zeros(1).dtype, "float32");
    for (const bad of ["int64", "int32", "bool", "uint8"])
      assert.throws(() => torch.set_default_dtype(bad), {
        name: "DTypeError",
        message: "only floating-point types are supported as the default type",
      });
    if (torch.get_default_device() === "webgpu")
      assert.throws(() => torch.set_default_dtype("float64"), {
        name: "DTypeError",
        message: /^Cannot convert a WebGPU Tensor to float64 dtype/,
      });
    else {
      torch.set_default_dtype("float64");
      try {
        assert.equal(torch.zeros(1).dtype, "float64");
        assert.equal(torch.tensor([1.5]).dtype, "float64");
        assert.equal(new torch.nn.Linear(2, 2).weight.dtype, "float64");
      } finally {
        torch.set_default_dtype("float32");
      }
    }
    assert.equal(torch.get_default_dtype(), "float32");
  });

  test("the default device in the factories", async () => {
    const chosen = torch.get_default_device();
    const others = gpu ? ["cpu", "cuda", "webgpu"] : ["cpu"];
    try {
      for (const d of others) {
        torch.set_default_device(d);
        const want = d === "cuda" ? "webgpu" : d;
        assert.equal(torch.get_default_device(), want);
        for (const t of [
          torch.zeros(2),
          torch.ones(2),
          torch.tensor([1, 2]),
          torch.arange(3),
          torch.rand(2),
          torch.randn(2),
          torch.full([2], 3),
          torch.empty(1),
          torch.eye(2),
          torch.linspace(0, 1, 4),
        ])
          assert.equal(t.device, want);
        // An explicit device still wins.
        assert.equal(torch.zeros(1, { device: "cpu" }).device, "cpu");
      }
    } finally {
      torch.set_default_device(null);
    }
    assert.equal(torch.get_default_device(), chosen);
    assert.throws(() => torch.set_default_device("tpu"), {
      name: "DeviceError",
    });
    assert.throws(() => torch.get_default_device(1), { name: "ArgumentError" });
  });
});

describe("Module.to moves parameters and buffers in place", () => {
  /** The fixture's Linear(3, 4) + BatchNorm1d(4), its state loaded, on `device`. */
  function net(device) {
    class Net extends torch.nn.Module {
      fc = new torch.nn.Linear(3, 4, { device });
      bn = new torch.nn.BatchNorm1d(4, { device });
      forward(x) {
        return this.bn.call(this.fc.call(x));
      }
    }
    const m = new Net();
    const state = {};
    for (const [k, v] of Object.entries(FIX.state))
      state[k] = torch.tensor(v, { device }).reshape(m.state_dict()[k].shape);
    state["bn.num_batches_tracked"] = torch.tensor(3, { device });
    m.load_state_dict(state);
    return m;
  }

  async function stateOf(m) {
    const out = {};
    for (const [k, v] of Object.entries(m.state_dict()))
      out[k] = {
        dtype: v.dtype,
        device: v.device,
        values: Array.from(await v.toArray()),
      };
    return out;
  }

  for (const device of devices) {
    for (const [dtype, cast] of [
      ["float16", (m) => m.half()],
      ["bfloat16", (m) => m.bfloat16()],
      ["float16", (m) => m.to("float16")],
      ["bfloat16", (m) => m.to({ dtype: "bfloat16" })],
    ]) {
      test(`[${device}] ${dtype}: floating ones cast as PyTorch's, integer buffers kept`, async () => {
        const m = net(device);
        const params = m.parameters();
        assert.equal(cast(m), m, "returns the module");
        assert.deepEqual(m.parameters(), params, "the same Parameter objects");
        const s = await stateOf(m);
        for (const [k, want] of Object.entries(FIX.cast[dtype].dtypes)) {
          assert.equal(s[k].dtype, want, k);
          assert.equal(s[k].device, device, k);
        }
        for (const [k, v] of Object.entries(FIX.cast[dtype].state))
          assertSame(s[k].values, nums(v), `${device} ${dtype} ${k}`);
        assert.deepEqual(s["bn.num_batches_tracked"].values, [3]);
        for (const p of params) assert.equal(p.requires_grad, true);
        m.float();
        assert.equal(m.fc.weight.dtype, "float32");
        assert.throws(() => m.to("int64"), {
          message:
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64",
        });
      });
    }
  }

  const moves = gpu
    ? [
        ["cpu", "cuda", (m) => m.cuda()],
        ["webgpu", "cpu", (m) => m.cpu()],
        ["cpu", "webgpu", (m) => m.to("webgpu")],
        ["webgpu", "cpu", (m) => m.to({ device: "cpu" })],
      ]
    : [["cpu", "cpu", (m) => m.to("cpu")]];
  for (const [from, to, move] of moves) {
    test(`${from} → ${to}: an optimizer made before steps on, its momentum carried`, async () => {
      const m = net(from);
      const params = m.parameters();
      const opt = new torch.optim.SGD(m.parameters(), {
        lr: 0.1,
        momentum: 0.9,
      });
      // A round trip before training changes nothing. (A CPU copy of GPU values moves on to the
      // GPU once they have arrived: the sync between.)
      if (gpu) {
        m.to(from === "cpu" ? "cuda" : "cpu");
        await torch.cuda.synchronize();
        m.to(from);
      }
      const x = torch.tensor(FIX.x).reshape(5, 3);
      // A training loop's step, which reads its loss.
      const step = async () => {
        const dev = m.fc.weight.device;
        opt.zero_grad();
        const loss = m.call(x.to(dev)).pow(2).mean();
        loss.backward();
        opt.step();
        return loss.item();
      };
      await step();
      assert.equal(move(m), m);
      assert.deepEqual(m.parameters(), params, "the same Parameter objects");
      const target = to === "cuda" ? "webgpu" : to;
      for (const [k, t] of Object.entries(m.state_dict()))
        assert.equal(t.device, target, k);
      await step();
      const s = await stateOf(m);
      for (const [k, v] of Object.entries(FIX.trained))
        assertClose(s[k].values, v, 1e-5, `${from}→${to} ${k}`);
      assert.deepEqual(s["bn.num_batches_tracked"].values, [5]);
      for (const p of params) assert.equal(p.grad.device, target);
    });
  }
});
