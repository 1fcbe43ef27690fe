// Checks of the extension APIs where they meet the device: a user WGSL kernel compiles and runs
// (JS on the cpu device), bad WGSL is refused with the compiler's message (Dawn in Node, Chromium's
// WebGPU in the browser), and a compiled function replays its trace with the eager values.
// Part of the shared API checks: see ./index.mjs.
import { eq, ok } from "./assert.mjs";

const AXPB = `struct Params { numel: u32, r0: u32, r1: u32, r2: u32, scalars: array<vec4<f32>, 2> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= params.numel) { return; }
  out[i] = params.scalars[0].x * x[i] + params.scalars[0].y;
}`;

/** @type {import("./index.mjs").Check[]} */
export const checks = [
  {
    name: "register_kernel: a user kernel runs; bad WGSL is refused with the compiler's message",
    async run(torch, { device }) {
      const name = `axpb_${device}`;
      const op = await torch.register_kernel({
        name,
        inputs: 1,
        wgsl: device === "webgpu" ? AXPB : undefined,
        cpu: ([x], out, { scalars: [a, b] }) => {
          for (let i = 0; i < out.length; i++) out[i] = a * x[i] + b;
        },
      });
      // A strided view as input (made contiguous for the kernel), 70 000 elements (2-D grid).
      const x = torch
        .arange(0, 140000, { dtype: "float32", device })
        .reshape([70000, 2]);
      const y = op(x.t(), 2, 1);
      eq(y.shape, [2, 70000], "shape");
      const got = await y.toArray();
      const want = await x.t().mul(2).add(1).toArray();
      eq(got.length, want.length, "length");
      ok(
        got.every((v, i) => v === want[i]),
        "values equal x * 2 + 1",
      );
      if (device !== "webgpu") return;
      let message = "";
      try {
        await torch.register_kernel({
          name: `broken_${device}`,
          inputs: 1,
          wgsl: AXPB.replace("x[i] +", "xs[i] +"),
        });
      } catch (e) {
        ok(e instanceof torch.TorchError, "a TorchError");
        message = e.message;
      }
      ok(
        /failed to compile/.test(message) && /xs/.test(message),
        `compiler message: ${message}`,
      );
    },
  },
  {
    name: "torch.compile: replays equal eager results",
    async run(torch, { device }) {
      const w = torch
        .arange(0, 12, { dtype: "float32", device })
        .reshape([4, 3])
        .div(10);
      const fn = (x) => x.matmul(w).tanh().sum(0);
      const cfn = torch.compile(fn);
      for (let i = 0; i < 4; i++) {
        const x = torch.full([2, 4], i, { dtype: "float32", device });
        eq(
          Array.from(await cfn(x).toArray()),
          Array.from(await fn(x).toArray()),
          `call ${i}`,
        );
      }
      eq(cfn.stats.replays, 2, "replays after two equal traces");
    },
  },
];
