// Library adapters: webtorch, TensorFlow.js (WebGPU backend) and jax-js (WebGPU), each on the
// same Dawn adapter. `prepare(w)` uploads a workload's inputs and returns
//   { step(): handle | Promise, wait(handles): Promise (GPU done, handles freed),
//     result(): Promise<Float32Array | number>, free() }
// or null where the library has no such op.

import { jaxModelStep, tfjsModelStep } from "./peer_models.mjs";

/**
 * Bandwidth workloads that the `webtorch:freed` column times with each call's result freed as
 * soon as its work is recorded, as bench/torch_bench.py's loop drops each result (PyTorch's
 * caching allocator then hands the same block to the next call, so a 25-64 MB output can stay in
 * the H100's 50 MB L2). Every other column holds each result until the batch's wait, so each call
 * writes fresh memory (bench/KERNELS.md has both figures). webtorch dispatches these at once (the
 * elementwise ones are forced past fusion); the check counts that a freed call dispatched.
 */
export const FREE_AT_ONCE = new Set(["add", "gelu", "chain6", "sum", "softmax", "layer_norm"]);

const eye8 = () => {
  const e = new Float32Array(64);
  for (let i = 0; i < 8; i++) e[i * 9] = 1;
  return e;
};

/** webtorch from the built package; `variant` forces a matmul kernel (matmul workloads only). */
/**
 * webtorch; `variant` forces a matmul kernel (matmul workloads only; `"tuned"`: the autotuner's
 * table, from `tuned()`); `compiled` runs every
 * workload step through `torch.compile` (docs/compile.md: after two equal traces a step replays
 * its recorded core calls, through a core plan when it can), which shows its host cost against
 * eager.
 */
export function webtorchLib(torch, core, variant, { compiled = false, tuned = () => null, freed: freeAtOnce = false } = {}) {
  const T = (inp) => {
    const flat = torch.tensor(inp.data);
    const t = flat.reshape(inp.shape);
    flat.dispose();
    return t;
  };
  const wait = async (hs) => {
    await torch.webgpu.sync_device();
    for (const h of hs) h?.dispose?.();
  };
  const read = async (t) => {
    const v = await t.toArray();
    t.dispose();
    return v;
  };
  return {
    name: variant ? `webtorch:${variant}` : compiled ? "webtorch:compiled" : freeAtOnce ? "webtorch:freed" : "webtorch",
    only: variant ? ["matmul"] : freeAtOnce ? [...FREE_AT_ONCE] : null,
    prepare(w) {
      // "tuned": the shape rule's place taken by the autotuner's table (run.mjs tuned it).
      torch.webgpu.clear_autotune?.();
      if (variant === "tuned") {
        if (!tuned()) return null;
        core.set_matmul_variant("auto");
        torch.webgpu.load_autotune_cache(tuned());
      } else if (variant && !core?.set_matmul_variant?.(variant)) return null;
      if (!variant) core?.set_matmul_variant?.("auto");
      const ins = w.inputs.map(T);
      const [A, B] = ins;
      const eye = w.kind === "tiny_matmul_chain" ? T({ data: eye8(), shape: [8, 8] }) : null;
      // Each step frees its intermediates as it goes (what torch.scope would do).
      const chain = (x, n, f) => {
        for (let i = 0; i < n; i++) {
          const y = f(x);
          if (x !== A) x.dispose();
          x = y;
        }
        return x;
      };
      // NOTE: sync_device does not compute pending (lazily fused) tensors, so the last op of an
      // elementwise workload runs as a "bypass" (min_size above its size): it is dispatched at
      // once. For the 6-op chain that makes two kernels (the first five fused, then relu).
      const now = (f) => {
        torch.webgpu.set_fusion_min_size(2 ** 31 - 1);
        try {
          return f();
        } finally {
          torch.webgpu.set_fusion_min_size(1024);
        }
      };
      const ops = {
        matmul: () => A.matmul(B),
        add: () => now(() => A.add(B)),
        gelu: () => now(() => torch.gelu(A)),
        chain6: () => {
          const t1 = A.mul(B);
          const fs = [(x) => x.add(A), (x) => x.tanh(), (x) => x.mul(0.5), (x) => x.add(-0.25), (x) => now(() => x.relu())];
          let x = t1;
          for (const f of fs) {
            const y = f(x);
            x.dispose();
            x = y;
          }
          return x;
        },
        sum: () => A.sum(),
        softmax: () => torch.softmax(A, -1),
        tiny_chain: () => chain(A, 1000, (x) => x.add(0.001)),
        tiny_matmul_chain: () => chain(A, 1000, (x) => x.matmul(eye)),
        attention: () => torch.nn.functional.scaled_dot_product_attention(A, B, ins[2]),
        layer_norm: () => torch.nn.functional.layer_norm(A, [A.shape[1]], B, ins[2]),
        conv2d: () => torch.nn.functional.conv2d(A, B, null, 1, 1),
      };
      if (w.kind === "mlp_step" || w.kind === "block_step") return webtorchModelStep(torch, w, T, ins, compiled);
      if (w.kind === "readback") {
        return {
          step: async () => {
            await read(A.add(1));
            return null;
          },
          wait: async () => {},
          result: () => read(A.add(1)),
          free: () => ins.forEach((t) => t.dispose()),
        };
      }
      const op = compiled && ops[w.kind] ? torch.compile(ops[w.kind]) : ops[w.kind];
      const freed = () => {
        op().dispose();
        return null;
      };
      return {
        step: freeAtOnce ? freed : op,
        wait,
        result: async () => {
          if (freeAtOnce) {
            // A freed result must still have been computed: the call must dispatch.
            const before = torch.webgpu.runtime_stats().dispatches;
            freed();
            if (torch.webgpu.runtime_stats().dispatches === before) throw new Error("a freed call dispatched nothing");
          }
          const r = op();
          return w.scalar ? (await read(r))[0] : read(r);
        },
        free: () => {
          ins.forEach((t) => t.dispose());
          eye?.dispose();
          core?.set_matmul_variant?.("auto");
        },
      };
    },
  };
}

/**
 * The training-step workloads on webtorch's nn: the MLP with Adam (`mlp_step`) and the pre-norm
 * transformer block forward + backward (`block_step`), each loaded with the workload's weights.
 * `step()` returns the detached loss; `result()` is the first step's loss (MLP) or the block's
 * forward output.
 */
function webtorchModelStep(torch, w, T, ins, compiled) {
  const { nn, optim } = torch;
  const sd = Object.fromEntries(Object.entries(w.params).map(([k, v]) => [k, T(v)]));
  const read = async (t) => {
    const v = await t.toArray();
    t.dispose();
    return v;
  };
  let model, opt = null, fwd, free;
  const [X] = ins;
  if (w.kind === "mlp_step") {
    model = new nn.Sequential(new nn.Linear(784, 256), new nn.ReLU(), new nn.Linear(256, 128), new nn.ReLU(), new nn.Linear(128, 10));
    const Y = torch.tensor(w.labels, { dtype: "int64" });
    fwd = () => nn.functional.cross_entropy(model.call(X), Y);
    model.load_state_dict(sd);
    opt = new optim.Adam(model.parameters(), { lr: 1e-3 });
    free = () => Y.dispose();
  } else {
    const { L, D, H, F } = w.dims;
    model = new nn.TransformerEncoderLayer(D, H, { dim_feedforward: F, dropout: 0, activation: "gelu", batch_first: true, norm_first: true });
    model.load_state_dict(sd);
    const mask = nn.functional.causalMask ? nn.functional.causalMask(L, L) : torch.triu(torch.full([L, L], -Infinity), 1);
    // The is_causal hint as torch_bench.py passes it (PyTorch then runs causal attention).
    fwd = () => model.call(X, { src_mask: mask, is_causal: true });
    free = () => mask.dispose();
  }
  for (const t of Object.values(sd)) t.dispose();
  model.train();
  const train = () => {
    const loss = torch.scope(() => {
      model.zero_grad();
      const out = fwd();
      const l = w.kind === "mlp_step" ? out : out.square().mean();
      l.backward();
      return l.detach();
    });
    opt?.step();
    return loss;
  };
  const inner = compiled ? torch.compile(train) : train;
  // The block's gradients are kept until the wait, so that webtorch computes them, as PyTorch
  // does: webtorch runs a pending result (a product awaiting a fused epilogue, a chain) only when
  // something needs it, and the next step's zero_grad dropped three steps' weight gradients in
  // four unread (bench/KERNELS.md; the peers' harness does the same for lazy jax-js).
  const step =
    w.kind === "block_step"
      ? () => {
          const kept = [inner(), ...model.parameters().map((p) => p.grad)];
          return { loss: kept[0], dispose: () => kept.forEach((t) => t?.dispose()) };
        }
      : inner;
  return {
    step,
    wait: async (hs) => {
      await torch.webgpu.sync_device();
      for (const h of hs) h?.dispose?.();
    },
    result: async () => {
      if (w.kind === "mlp_step") return (await read(step()))[0];
      return read(torch.no_grad(() => fwd().detach()));
    },
    free: () => {
      free();
      ins.forEach((t) => t.dispose());
      for (const p of model.parameters()) p.dispose?.();
    },
  };
}

/** TensorFlow.js with its WebGPU backend (eager: one kernel per op, no fusion). */
export function tfjsLib(tf, { grads = true } = {}) {
  const wait = async (hs) => {
    const be = tf.backend();
    // tfjs keeps a compute pass open and submits every 15 dispatches; end and submit the rest.
    if (be.commandEncoder) {
      be.endComputePassEncoder();
      be.submitQueue();
    }
    await be.queue.onSubmittedWorkDone();
    for (const h of hs) h?.dispose?.();
  };
  const read = async (t) => {
    const v = await t.data();
    t.dispose();
    return v;
  };
  return {
    name: "tfjs",
    prepare(w) {
      const ins = w.inputs.map((i) => tf.tensor(i.data, i.shape));
      const [A, B] = ins;
      const eye = w.kind === "tiny_matmul_chain" ? tf.eye(8) : null;
      // conv2d in tfjs's own layout: NHWC input and HWIO filter, laid out before timing; the
      // output goes back to NCHW only for the check.
      const nhwc = w.kind === "conv2d" ? [tf.transpose(A, [0, 2, 3, 1]), tf.transpose(B, [2, 3, 1, 0])] : null;
      const ops = {
        matmul: () => tf.matMul(A, B),
        add: () => tf.add(A, B),
        gelu: null, // tfjs-core has no gelu op
        chain6: () => tf.tidy(() => tf.relu(tf.add(tf.mul(tf.tanh(tf.add(tf.mul(A, B), A)), 0.5), -0.25))),
        sum: () => tf.sum(A),
        softmax: () => tf.softmax(A),
        attention: () =>
          tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(A, B, false, true), 1 / Math.sqrt(A.shape[2]))), ins[2])),
        layer_norm: () =>
          tf.tidy(() => {
            const { mean, variance } = tf.moments(A, -1, true);
            return tf.add(tf.mul(tf.mul(tf.sub(A, mean), tf.rsqrt(tf.add(variance, 1e-5))), B), ins[2]);
          }),
        conv2d: () => tf.conv2d(nhwc[0], nhwc[1], 1, "same"),
        tiny_chain: () =>
          tf.tidy(() => {
            let x = A;
            for (let i = 0; i < 1000; i++) x = tf.add(x, 0.001);
            return x;
          }),
        tiny_matmul_chain: () =>
          tf.tidy(() => {
            let x = A;
            for (let i = 0; i < 1000; i++) x = tf.matMul(x, eye);
            return x;
          }),
      };
      const free = () => {
        ins.forEach((t) => t.dispose());
        eye?.dispose();
        nhwc?.forEach((t) => t.dispose());
      };
      if (w.kind === "readback") {
        return {
          step: async () => {
            await read(tf.add(A, 1));
            return null;
          },
          wait: async () => {},
          result: () => read(tf.add(A, 1)),
          free,
        };
      }
      if (w.kind === "mlp_step" || w.kind === "block_step") {
        if (grads) return tfjsModelStep(tf, w, ins, { read, wait });
        free();
        return null;
      }
      const op = ops[w.kind];
      if (!op) {
        free();
        return null;
      }
      return {
        step: op,
        wait,
        result: async () => {
          let r = op();
          if (nhwc) {
            const y = r;
            r = tf.transpose(y, [0, 3, 1, 2]);
            y.dispose();
          }
          return w.scalar ? (await read(r))[0] : read(r);
        },
        free,
      };
    },
  };
}

/** jax-js on WebGPU: lazy arrays with reference counting; the fused chain goes through jit. */
export function jaxLib(jax) {
  const np = jax.numpy;
  const wait = async (hs) => {
    await jax.blockUntilReady(hs.filter(Boolean));
    for (const h of hs) h?.dispose?.();
  };
  const read = async (a) => await a.data(); // data() consumes the array
  const chain = jax.jit((a, b) => jax.nn.relu(np.tanh(a.ref.mul(b).add(a)).mul(0.5).add(-0.25)));
  return {
    name: "jax-js",
    prepare(w) {
      const ins = w.inputs.map((i) => np.array(i.data, { shape: i.shape }));
      const [A, B] = ins;
      const eye = w.kind === "tiny_matmul_chain" ? np.eye(8) : null;
      const ops = {
        matmul: () => np.matmul(A.ref, B.ref),
        add: () => A.ref.add(B.ref),
        gelu: () => jax.nn.gelu(A.ref, { approximate: false }),
        chain6: () => chain(A.ref, B.ref),
        sum: () => np.sum(A.ref),
        softmax: () => jax.nn.softmax(A.ref, -1),
        // Composed (nn.dotProductAttention goes through einsum, which needs iterator helpers
        // Node 20 lacks).
        attention: () =>
          np.matmul(
            jax.nn.softmax(np.matmul(A.ref, np.matrixTranspose(B.ref)).mul(1 / Math.sqrt(A.shape[2])), -1),
            ins[2].ref,
          ),
        layer_norm: () => jax.nn.standardize(A.ref, -1, { epsilon: 1e-5 }).mul(B.ref).add(ins[2].ref),
        conv2d: () => jax.lax.conv(A.ref, B.ref, [1, 1], "SAME"),
        tiny_chain: () => {
          let x = A.ref;
          for (let i = 0; i < 1000; i++) x = x.add(0.001);
          return x;
        },
        tiny_matmul_chain: () => {
          let x = A.ref;
          for (let i = 0; i < 1000; i++) x = np.matmul(x, eye.ref);
          return x;
        },
      };
      const free = () => {
        ins.forEach((t) => t.dispose());
        eye?.dispose();
      };
      if (w.kind === "readback") {
        return {
          step: async () => {
            await read(A.ref.add(1));
            return null;
          },
          wait: async () => {},
          result: () => read(A.ref.add(1)),
          free,
        };
      }
      if (w.kind === "mlp_step" || w.kind === "block_step") return jaxModelStep(jax, w, ins, { read, wait });
      const op = ops[w.kind];
      if (!op) {
        free();
        return null;
      }
      return {
        step: op,
        wait,
        result: async () => {
          const r = await read(op());
          return w.scalar ? r[0] : r;
        },
        free,
      };
    },
  };
}
