// nn.Module's backward and state-dict hooks against PyTorch (tests/parity/fixtures/train/
// nn_extra.json, written by tests/parity/nn_extra_gen.py), on WebGPU (when an adapter exists)
// and on the CPU backend: register_full_backward_hook's grad_input/grad_output and its
// replacement, register_full_backward_pre_hook, handles' remove(), and the order, prefixes and
// keys of register_state_dict_pre_hook/post_hook and register_load_state_dict_pre_hook/post_hook.
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn } = torch;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/nn_extra.json", import.meta.url),
  ),
);
const H = FIX.hooks;
const SD = FIX.state_dict_hooks;

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

const make = (s) => torch.tensor(s.data, { dtype: s.dtype }).reshape(s.shape);

/** PyTorch's Linear(4, 3) of the fixture, and its input (requiring grad) and output gradient. */
function linear() {
  const m = new nn.Linear(4, 3);
  m.load_state_dict(
    Object.fromEntries(Object.entries(H.state).map(([k, s]) => [k, make(s)])),
  );
  const x = make(H.input).requires_grad_();
  const gout = torch.tensor(H.gout).reshape([2, 3]);
  return { m, x, gout };
}

for (const device of devices) {
  describe(`[${device}] backward hooks`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("register_full_backward_hook sees PyTorch's grad_input and grad_output", async () => {
      const { m, x, gout } = linear();
      let seen = null;
      m.register_full_backward_hook((mod, gi, go) => {
        assert.equal(mod, m);
        seen = { gi, go };
      });
      const y = m.call(x);
      assert.equal(seen, null, "runs in backward, not forward");
      y.mul(gout).sum().backward();
      assert.equal(seen.gi.length, 1);
      assert.equal(seen.go.length, 1);
      assertClose(await seen.gi[0].toArray(), H.grad_input[0], 1e-5, "gi");
      assertClose(await seen.go[0].toArray(), H.grad_output[0], 1e-5, "go");
      assertClose(await x.grad.toArray(), H.grad_input[0], 1e-5, "x.grad");
    });

    test("a backward hook's return value replaces grad_input; remove() unhooks", async () => {
      const { m, x, gout } = linear();
      const handle = m.register_full_backward_hook((mod, gi) =>
        gi.map((g) => g.mul(2)),
      );
      m.call(x).mul(gout).sum().backward();
      assertClose(await x.grad.toArray(), H.doubled_input_grad, 1e-5, "x");
      assertClose(await m.weight.grad.toArray(), H.weight_grad, 1e-5, "w");
      handle.remove();
      x.grad = null;
      m.call(x).mul(gout).sum().backward();
      assertClose(await x.grad.toArray(), H.grad_input[0], 1e-5, "removed");
    });

    test("inputs without grad: the hook gets null grad_input; a replacement is refused", async () => {
      const { m, gout } = linear();
      const x = make(H.input);
      let seen = null;
      m.register_full_backward_hook((mod, gi, go) => {
        seen = { gi, go };
      });
      m.call(x).mul(gout).sum().backward();
      assert.deepEqual(seen.gi, [null]);
      assertClose(await seen.go[0].toArray(), H.grad_output[0], 1e-5, "go");
      const m2 = new nn.Linear(4, 3);
      m2.register_full_backward_hook(() => [torch.ones(2, 4)]);
      assert.throws(
        () => m2.call(x).sum().backward(),
        /Backward hook for Modules where no input requires gradient should always return None or None for all gradients/,
      );
    });

    test("register_full_backward_pre_hook replaces grad_output before the backward hooks", async () => {
      const { m, x, gout } = linear();
      const order = [];
      m.register_full_backward_hook((mod, gi, go) => {
        order.push("hook");
        return undefined;
      });
      m.register_full_backward_pre_hook((mod, go) => {
        order.push("pre");
        return go.map((g) => g.mul(2));
      });
      m.call(x).mul(gout).sum().backward();
      assert.deepEqual(order, ["pre", "hook"]);
      assertClose(
        await x.grad.toArray(),
        H.doubled_input_grad,
        1e-5,
        "x (grad_output doubled)",
      );
      assertClose(
        await m.weight.grad.toArray(),
        H.weight_grad.map((v) => 2 * v),
        1e-5,
        "w (grad_output doubled)",
      );
    });

    test("a wrong number of replacement gradients is PyTorch's error; no hooks under no_grad", async () => {
      const { m, x } = linear();
      m.register_full_backward_hook(() => [null, null]);
      assert.throws(
        () => m.call(x).sum().backward(),
        /Backward hook returned an invalid number of grad_input, got 2, but expected 1/,
      );
      const y = torch.no_grad(() => m.call(x));
      assert.equal(y.requires_grad, false);
    });
  });

  describe(`[${device}] state-dict hooks`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("state_dict pre and post hooks: PyTorch's order, prefixes, keys and versions", () => {
      const net = new nn.Sequential(new nn.Linear(2, 3), new nn.BatchNorm1d(3));
      const calls = [];
      const handles = [];
      for (const [name, m] of [
        ["root", net],
        ["0", net.at(0)],
        ["1", net.at(1)],
      ]) {
        handles.push(
          m.register_state_dict_pre_hook((mod, prefix, keep_vars) =>
            calls.push(["pre", name, prefix, keep_vars]),
          ),
          m.register_state_dict_post_hook((mod, sd, prefix, meta) =>
            calls.push(["post", name, prefix, Object.keys(sd), meta.version]),
          ),
        );
      }
      assert.deepEqual(Object.keys(net.state_dict()), SD.keys);
      assert.deepEqual(calls, SD.state_dict_calls);
      for (const h of handles) h.remove();
      calls.length = 0;
      net.state_dict();
      assert.deepEqual(calls, []);
    });

    test("load_state_dict hooks: a pre-hook renames a key, post-hooks forgive missing keys", async () => {
      const net = new nn.Sequential(new nn.Linear(2, 3), new nn.BatchNorm1d(3));
      const calls = [];
      net
        .at(0)
        .register_load_state_dict_pre_hook(
          (mod, sd, prefix, meta, strict, missing, unexpected, errors) => {
            calls.push(["load_pre", prefix]);
            if (`${prefix}old_weight` in sd) {
              sd[`${prefix}weight`] = sd[`${prefix}old_weight`];
              delete sd[`${prefix}old_weight`];
            }
          },
        );
      const forgive = (mod, keys) => {
        calls.push([
          "load_post",
          mod.constructor.name,
          [...keys.missing_keys],
          [...keys.unexpected_keys],
        ]);
        keys.missing_keys.length = 0;
      };
      net.at(0).register_load_state_dict_post_hook(forgive);
      net.register_load_state_dict_post_hook(forgive);
      const sd = net.state_dict();
      const w = sd["0.weight"].add(1);
      sd["0.old_weight"] = w;
      delete sd["0.weight"];
      delete sd["1.running_var"];
      const result = net.load_state_dict(sd);
      assert.deepEqual(calls, SD.load_calls);
      assert.deepEqual(result, SD.result);
      assert.deepEqual(
        await net.at(0).weight.toArray(),
        await w.toArray(),
        "the renamed key was loaded",
      );
      const bad = new nn.Linear(2, 3);
      bad.register_load_state_dict_post_hook(() => 1);
      assert.throws(
        () => bad.load_state_dict(bad.state_dict()),
        /not expected to return new values/,
      );
    });
  });
}
