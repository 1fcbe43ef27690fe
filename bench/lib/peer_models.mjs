// The training-step workloads (`mlp_step`, `block_step`) on the peers, written as each library's
// users would write them: TensorFlow.js with variables, `tf.variableGrads` and `tf.train.adam`;
// jax-js with `jit(valueAndGrad(loss))` and a jitted Adam update. Same weights, data and loss as
// webtorch's nn version in libs.mjs (PyTorch's Adam: lr 1e-3, betas (0.9, 0.999), eps 1e-8).
// Differences, by necessity: jax-js projects q, k and v with three matmuls (its arrays have no
// cheap column split inside jit); the causal mask is the same additive -inf mask everywhere.

/** The block's causal mask, `-inf` above the diagonal (as the workload's float mask). */
function causalMask(L) {
  const m = new Float32Array(L * L);
  for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) m[i * L + j] = -Infinity;
  return m;
}

/** TensorFlow.js (WebGPU backend): `step()` returns the loss; `result()` as webtorch's. */
export function tfjsModelStep(tf, w, ins, { read, wait }) {
  const [X] = ins;
  const P = Object.fromEntries(Object.entries(w.params).map(([k, v]) => [k, tf.variable(tf.tensor(v.data, v.shape))]));
  const vars = Object.values(P);
  const lin = (x, W, b) => tf.add(tf.matMul(x, W, false, true), b);
  let step, result, extra;
  if (w.kind === "mlp_step") {
    const Y = tf.oneHot(tf.tensor1d(w.labels, "int32"), 10);
    extra = [Y];
    const loss = () => {
      let h = X;
      for (let l = 0; l < 3; l++) {
        h = lin(h, P[`${2 * l}.weight`], P[`${2 * l}.bias`]);
        if (l < 2) h = tf.relu(h);
      }
      return tf.neg(tf.mean(tf.sum(tf.mul(Y, tf.logSoftmax(h)), -1)));
    };
    const opt = tf.train.adam(1e-3, 0.9, 0.999, 1e-8);
    extra.push(opt);
    step = () => opt.minimize(loss, true, vars);
    result = async () => (await read(step()))[0];
  } else {
    const { B, L, D, H } = w.dims;
    const E = D / H;
    const mask = tf.tensor(causalMask(L), [L, L]);
    extra = [mask];
    const ln = (x, g, b) => {
      const { mean, variance } = tf.moments(x, -1, true);
      return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), g), b);
    };
    const heads = (t) => tf.transpose(tf.reshape(t, [B, L, H, E]), [0, 2, 1, 3]);
    const forward = () => {
      const x2 = tf.reshape(X, [B * L, D]);
      const h = ln(x2, P["norm1.weight"], P["norm1.bias"]);
      const qkv = lin(h, P["self_attn.in_proj_weight"], P["self_attn.in_proj_bias"]);
      const [q, k, v] = tf.split(qkv, 3, 1).map(heads);
      const s = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(E)), mask);
      const o = tf.reshape(tf.transpose(tf.matMul(tf.softmax(s), v), [0, 2, 1, 3]), [B * L, D]);
      const x1 = tf.add(x2, lin(o, P["self_attn.out_proj.weight"], P["self_attn.out_proj.bias"]));
      const f = lin(ln(x1, P["norm2.weight"], P["norm2.bias"]), P["linear1.weight"], P["linear1.bias"]);
      const g = tf.mul(tf.mul(f, 0.5), tf.add(1, tf.erf(tf.mul(f, Math.SQRT1_2))));
      return tf.reshape(tf.add(x1, lin(g, P["linear2.weight"], P["linear2.bias"])), [B, L, D]);
    };
    step = () => {
      const { value, grads } = tf.variableGrads(() => tf.mean(tf.square(forward())), vars);
      tf.dispose(Object.values(grads));
      return value;
    };
    result = () => read(tf.tidy(forward));
  }
  return {
    step,
    wait,
    result,
    free: () => {
      ins.forEach((t) => t.dispose());
      tf.dispose(vars);
      extra.forEach((t) => t.dispose());
    },
  };
}

/** jax-js (WebGPU): reference-counted arrays; every call below passes `.ref`s it keeps. */
export function jaxModelStep(jax, w, ins, { read }) {
  const np = jax.numpy;
  const { tree } = jax;
  const [X] = ins;
  const arr = (data, shape) => np.array(data, { shape });
  let P = {};
  const lin = (x, W, b) => np.matmul(x, np.matrixTranspose(W)).add(b);
  let loss, fwd, extra;
  if (w.kind === "mlp_step") {
    for (const [k, v] of Object.entries(w.params)) P[k] = arr(v.data, v.shape);
    const Y = jax.nn.oneHot(np.array(w.labels, { dtype: np.int32 }), 10);
    extra = Y;
    loss = (p, x, y) => {
      let h = x;
      for (let l = 0; l < 3; l++) {
        h = lin(h, p[`${2 * l}.weight`], p[`${2 * l}.bias`]);
        if (l < 2) h = jax.nn.relu(h);
      }
      return y.mul(jax.nn.logSoftmax(h, -1)).sum(-1).mean().neg();
    };
  } else {
    const { B, L, D, H } = w.dims;
    const E = D / H;
    for (const [k, v] of Object.entries(w.params)) {
      if (k.startsWith("self_attn.in_proj_")) {
        const per = v.data.length / 3;
        const shape = v.shape.length === 2 ? [D, D] : [D];
        "qkv".split("").forEach((n, i) => (P[`${n}.${k.endsWith("weight") ? "w" : "b"}`] = arr(v.data.subarray(i * per, (i + 1) * per), shape)));
      } else P[k] = arr(v.data, v.shape);
    }
    const mask = arr(causalMask(L), [L, L]);
    extra = mask;
    const ln = (x, g, b) => jax.nn.standardize(x, -1, { epsilon: 1e-5 }).mul(g).add(b);
    const heads = (t) => t.reshape([B, L, H, E]).transpose([0, 2, 1, 3]);
    fwd = (p, x, m) => {
      const x2 = x.reshape([B * L, D]);
      const h = ln(x2.ref, p["norm1.weight"], p["norm1.bias"]);
      const q = heads(lin(h.ref, p["q.w"], p["q.b"]));
      const k = heads(lin(h.ref, p["k.w"], p["k.b"]));
      const v = heads(lin(h, p["v.w"], p["v.b"]));
      const s = np.matmul(q, np.matrixTranspose(k)).mul(1 / Math.sqrt(E)).add(m);
      const o = np.matmul(jax.nn.softmax(s, -1), v).transpose([0, 2, 1, 3]).reshape([B * L, D]);
      const x1 = x2.add(lin(o, p["self_attn.out_proj.weight"], p["self_attn.out_proj.bias"]));
      const f = lin(ln(x1.ref, p["norm2.weight"], p["norm2.bias"]), p["linear1.weight"], p["linear1.bias"]);
      const g = jax.nn.gelu(f, { approximate: false });
      return x1.add(lin(g, p["linear2.weight"], p["linear2.bias"])).reshape([B, L, D]);
    };
    loss = (p, x, m) => np.square(fwd(p, x, m)).mean();
  }
  const valueAndGrad = jax.jit(jax.valueAndGrad(loss));
  let step, result;
  if (w.kind === "mlp_step") {
    const keys = Object.keys(P);
    let M = Object.fromEntries(keys.map((k) => [k, np.zerosLike(P[k].ref)]));
    let V = Object.fromEntries(keys.map((k) => [k, np.zerosLike(P[k].ref)]));
    // Adam (PyTorch's form): p -= lr · (m / bc1) / (sqrt(v / bc2) + eps); c1 = 1/bc1, c2 = 1/bc2.
    const update = jax.jit((p, g, m, v, c1, c2) => {
      const out = { p: {}, m: {}, v: {} };
      for (const k of keys) {
        const gk = g[k];
        const mk = m[k].mul(0.9).add(gk.ref.mul(0.1));
        const vk = v[k].mul(0.999).add(np.square(gk).mul(0.001));
        const den = np.sqrt(vk.ref.mul(c2.ref)).add(1e-8);
        out.p[k] = p[k].sub(mk.ref.mul(c1.ref).div(den).mul(1e-3));
        out.m[k] = mk;
        out.v[k] = vk;
      }
      c1.dispose();
      c2.dispose();
      return out;
    });
    let t = 0;
    step = () => {
      t += 1;
      const [l, g] = valueAndGrad(tree.ref(P), X.ref, extra.ref);
      const out = update(P, g, M, V, np.array(1 / (1 - 0.9 ** t)), np.array(1 / (1 - 0.999 ** t)));
      ({ p: P, m: M, v: V } = out);
      return l;
    };
    result = async () => (await read(step()))[0];
    // jax-js is lazy: wait for the parameters and moments of the last update too.
    const wait = async (hs) => {
      await jax.blockUntilReady([hs, P, M, V]);
      tree.dispose(hs);
    };
    return { step, wait, result, free: () => (tree.dispose([P, M, V]), extra.dispose(), ins.forEach((a) => a.dispose())) };
  }
  const forward = jax.jit(fwd);
  // The gradients are kept until the wait, so that a lazy library computes them.
  step = () => valueAndGrad(tree.ref(P), X.ref, extra.ref);
  const wait = async (hs) => {
    await jax.blockUntilReady(hs);
    tree.dispose(hs);
  };
  result = () => read(forward(tree.ref(P), X.ref, extra.ref));
  return { step, wait, result, free: () => (tree.dispose(P), extra.dispose(), ins.forEach((a) => a.dispose())) };
}
