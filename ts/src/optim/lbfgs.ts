/**
 * `torch.optim.LBFGS`: limited-memory BFGS with an optional strong-Wolfe line search, PyTorch's
 * algorithm step for step. Its decisions (convergence tests, the line
 * search's bracketing) read values on the host, which in JS is asynchronous: `step(closure)`
 * returns a Promise, and `closure` may be async. PyTorch mixes Python floats with float32 0-d
 * tensors in those scalar computations; {@link Num} keeps track of which is which so that the
 * arithmetic rounds where PyTorch's does, and trajectories match PyTorch's to float32 rounding.
 *
 * @module
 */

import { TorchError } from "../errors.js";
import { Tensor } from "../tensor/tensor.js";
import { enable_grad, no_grad } from "../autograd/grad_mode.js";
import { cat } from "../ops/indexing.js";
import { zeros } from "../ops/creation.js";
import { keep as keepAlive } from "../lifetime.js";
import {
  Optimizer,
  type ParamGroupInput,
  type ParamState,
} from "./optimizer.js";
import { resolveOptions } from "./options.js";
import { args, omit } from "../schema/index.js";

/** Options of {@link LBFGS}. */
export interface LBFGSOptions {
  /** Learning rate. */
  lr: number;
  /** Iterations per `step()` (default 20). */
  max_iter: number;
  /** Default `max_iter * 5 / 4` (rounded down). */
  max_eval: number | null;
  /** Stop when the largest gradient entry is below this (default 1e-7). */
  tolerance_grad: number;
  /** Stop when the function value or parameters change less than this (default 1e-9). */
  tolerance_change: number;
  /** Number of past updates kept (default 100). */
  history_size: number;
  /** `"strong_wolfe"` or null (default: a fixed step of `lr`). */
  line_search_fn: "strong_wolfe" | null;
}

/** A scalar as PyTorch holds it: a Python float (f64) or a float32 0-d tensor (`f32`). */
class Num {
  constructor(
    readonly v: number,
    readonly f32 = false,
  ) {}

  static t(v: number): Num {
    return new Num(Math.fround(v), true);
  }

  /** `this ⊕ b` with PyTorch's rounding: float32 when either side is a tensor. */
  op(b: Num | number, f: (x: number, y: number) => number): Num {
    const o = typeof b === "number" ? new Num(b) : b;
    if (!this.f32 && !o.f32) return new Num(f(this.v, o.v));
    return Num.t(f(Math.fround(this.v), Math.fround(o.v)));
  }
  add(b: Num | number): Num {
    return this.op(b, (x, y) => x + y);
  }
  sub(b: Num | number): Num {
    return this.op(b, (x, y) => x - y);
  }
  mul(b: Num | number): Num {
    return this.op(b, (x, y) => x * y);
  }
  div(b: Num | number): Num {
    return this.op(b, (x, y) => x / y);
  }
  /** `b / this` (a float over a tensor is a tensor). */
  rdiv(b: number): Num {
    return new Num(b).div(this);
  }
  abs(): Num {
    return new Num(Math.abs(this.v), this.f32);
  }
}

const minN = (a: Num, b: Num): Num => (b.v < a.v ? b : a);
const maxN = (a: Num, b: Num): Num => (b.v > a.v ? b : a);

/** Minimum of the cubic through (x1, f1, g1) and (x2, f2, g2), within the bounds. */
function cubicInterpolate(
  x1: Num,
  f1: number,
  g1: Num,
  x2: Num,
  f2: number,
  g2: Num,
  bounds?: [Num, Num],
): Num {
  const [lo, hi] = bounds ?? (x1.v <= x2.v ? [x1, x2] : [x2, x1]);
  const d1 = g1.add(g2).sub(new Num(3 * (f1 - f2)).div(x1.sub(x2)));
  const d2Square = d1.mul(d1).sub(g1.mul(g2));
  if (d2Square.v >= 0) {
    const d2 = d2Square.f32
      ? Num.t(Math.sqrt(d2Square.v))
      : new Num(Math.sqrt(d2Square.v));
    const minPos =
      x1.v <= x2.v
        ? x2.sub(
            x2.sub(x1).mul(
              g2
                .add(d2)
                .sub(d1)
                .div(g2.sub(g1).add(d2.mul(2))),
            ),
          )
        : x1.sub(
            x1.sub(x2).mul(
              g1
                .add(d2)
                .sub(d1)
                .div(g1.sub(g2).add(d2.mul(2))),
            ),
          );
    return minN(maxN(minPos, lo), hi);
  }
  return lo.add(hi).div(2);
}

/** A point of the line search: loss, flat gradient, directional derivative. */
interface Point {
  f: number;
  g: Tensor;
  gtd: Num;
}

/**
 * LBFGS (one param group; PyTorch's defaults). `await opt.step(closure)`: `closure` clears the
 * gradients, computes the loss, calls `backward()` and returns the loss; the step resolves to the
 * loss of its first evaluation.
 */
export class LBFGS extends Optimizer<LBFGSOptions> {
  readonly #params: Tensor[];
  /** The algorithm's state (PyTorch keeps it in `state[params[0]]`). */
  #s: {
    func_evals: number;
    n_iter: number;
    d?: Tensor;
    t?: Num;
    old_dirs: Tensor[];
    old_stps: Tensor[];
    ro: Num[];
    H_diag?: Num;
    prev_flat_grad?: Tensor;
    prev_loss?: number;
  } = { func_evals: 0, n_iter: 0, old_dirs: [], old_stps: [], ro: [] };

  constructor(
    params: Iterable<Tensor> | Iterable<ParamGroupInput>,
    options: Partial<LBFGSOptions> = {},
  ) {
    const a = args("optim.LBFGS", arguments);
    params = a.params as Iterable<Tensor>;
    options = omit(a, "params") as Partial<LBFGSOptions>;
    const defaults: LBFGSOptions = {
      lr: 1,
      max_iter: 20,
      max_eval: null,
      tolerance_grad: 1e-7,
      tolerance_change: 1e-9,
      history_size: 100,
      line_search_fn: null,
    };
    const o = resolveOptions(defaults, options, ["lr"]);
    o.max_eval ??= Math.floor((o.max_iter * 5) / 4);
    super(params, o);
    if (this.param_groups.length !== 1)
      throw new TorchError(
        "LBFGS doesn't support per-parameter options (parameter groups)",
      );
    this.#params = this.param_groups[0]!.params;
  }

  /**
   * PyTorch's state, under the first parameter: `func_evals`, `n_iter`, the direction `d`, the
   * step `t`, the history (`old_dirs`, `old_stps`, `ro`), `H_diag`, `prev_flat_grad` and
   * `prev_loss` (the tensors are the optimizer's own; `state_dict` → `load_state_dict` copies them).
   */
  override get state(): Map<Tensor, ParamState> {
    const st = this.#s;
    const s: ParamState = { func_evals: st.func_evals, n_iter: st.n_iter };
    if (st.n_iter === 0) return new Map([[this.#params[0]!, s]]);
    if (st.d) s.d = st.d;
    if (st.t) s.t = st.t.v;
    s.old_dirs = [...st.old_dirs];
    s.old_stps = [...st.old_stps];
    s.ro = st.ro.map((r) => r.v);
    if (st.H_diag) s.H_diag = st.H_diag.v;
    if (st.prev_flat_grad) s.prev_flat_grad = st.prev_flat_grad;
    if (st.prev_loss !== undefined) s.prev_loss = st.prev_loss;
    return new Map([[this.#params[0]!, s]]);
  }

  /** Restores the state `state` gives (tensors copied), so a loaded LBFGS resumes its run. */
  protected override _load_state(state: Map<Tensor, ParamState>): void {
    const s = state.get(this.#params[0]!) ?? {};
    const num = (k: string): number | undefined => {
      const v = s[k];
      if (v === undefined) return undefined;
      if (typeof v !== "number")
        throw new TorchError(`LBFGS state '${k}' must be a number to load it`);
      return v;
    };
    const tensor = (k: string): Tensor | undefined => {
      const v = s[k];
      if (v === undefined) return undefined;
      if (!(v instanceof Tensor))
        throw new TorchError(`LBFGS state '${k}' must be a tensor to load it`);
      return keepAlive(v.clone());
    };
    const list = <T>(k: string, ok: (x: unknown) => x is T): T[] => {
      const v = s[k] ?? [];
      if (!Array.isArray(v) || !(v as unknown[]).every(ok))
        throw new TorchError(`LBFGS state '${k}' must be a list to load it`);
      return v as T[];
    };
    const isTensor = (x: unknown): x is Tensor => x instanceof Tensor;
    const isNumber = (x: unknown): x is number => typeof x === "number";
    const old = this.#s;
    const t = num("t");
    const H = num("H_diag");
    this.#s = {
      func_evals: num("func_evals") ?? 0,
      n_iter: num("n_iter") ?? 0,
      d: tensor("d"),
      t: t === undefined ? undefined : new Num(t),
      old_dirs: list("old_dirs", isTensor).map((x) => keepAlive(x.clone())),
      old_stps: list("old_stps", isTensor).map((x) => keepAlive(x.clone())),
      ro: list("ro", isNumber).map((r) => Num.t(r)),
      H_diag: H === undefined ? undefined : new Num(H),
      prev_flat_grad: tensor("prev_flat_grad"),
      prev_loss: num("prev_loss"),
    };
    for (const x of [
      old.d,
      old.prev_flat_grad,
      ...old.old_dirs,
      ...old.old_stps,
    ])
      x?.dispose();
  }

  #flatGrad(): Tensor {
    return keepAlive(
      cat(
        this.#params.map((p) =>
          p.grad === null
            ? zeros([p.numel()], { device: p.device })
            : p.grad.reshape([-1]),
        ),
      ),
    );
  }

  /** Parameters += step · update (flat), in place. */
  #addGrad(step: Num, update: Tensor): void {
    no_grad(() => {
      let offset = 0;
      for (const p of this.#params) {
        const n = p.numel();
        p.add_(update.narrow(0, offset, n).view_as(p), { alpha: step.v });
        offset += n;
      }
    });
  }

  async #loss(closure: () => Tensor | Promise<Tensor>): Promise<Tensor> {
    const loss = await enable_grad(closure);
    return loss;
  }

  /** Loss and flat gradient at x + t·d (the parameters are put back to x). */
  async #directional(
    closure: () => Tensor | Promise<Tensor>,
    x: Tensor[],
    t: Num,
    d: Tensor,
  ): Promise<[number, Tensor]> {
    this.#addGrad(t, d);
    const loss = await (await this.#loss(closure)).item().then(Number);
    const g = this.#flatGrad();
    no_grad(() => this.#params.forEach((p, i) => p.copy_(x[i]!)));
    return [loss, g];
  }

  /** One optimization step: up to `max_iter` LBFGS iterations. */
  override async step(
    closure?: () => Tensor | Promise<Tensor>,
  ): Promise<Tensor> {
    if (closure === undefined)
      throw new TorchError("LBFGS.step() requires a closure");
    const group = this.param_groups[0]!;
    const o = group as unknown as LBFGSOptions;
    const lr = o.lr;
    const maxEval = o.max_eval ?? Math.floor((o.max_iter * 5) / 4);
    const st = this.#s;
    const origLoss = await this.#loss(closure);
    let loss = await origLoss.item().then(Number);
    let currentEvals = 1;
    st.func_evals += 1;
    let flatGrad = this.#flatGrad();
    const absMax = async (t: Tensor) =>
      Num.t(await t.abs().max().item().then(Number));
    let optCond = (await absMax(flatGrad)).v <= o.tolerance_grad;
    if (optCond) return origLoss;
    let { d, t, H_diag } = st;
    let nIter = 0;
    while (nIter < o.max_iter) {
      nIter += 1;
      st.n_iter += 1;
      if (st.n_iter === 1) {
        d = keepAlive(flatGrad.neg());
        st.old_dirs = [];
        st.old_stps = [];
        st.ro = [];
        H_diag = new Num(1);
      } else {
        const y = flatGrad.sub(st.prev_flat_grad!);
        const s = d!.mul(t!.v);
        const ys = Num.t(await y.dot(s).item().then(Number));
        if (ys.v > 1e-10) {
          if (st.old_dirs.length === o.history_size) {
            st.old_dirs.shift()!.dispose();
            st.old_stps.shift()!.dispose();
            st.ro.shift();
          }
          st.old_dirs.push(keepAlive(y));
          st.old_stps.push(keepAlive(s));
          st.ro.push(ys.rdiv(1));
          H_diag = ys.div(Num.t(await y.dot(y).item().then(Number)));
        }
        const n = st.old_dirs.length;
        const al: Num[] = new Array<Num>(n);
        const q = flatGrad.neg();
        for (let i = n - 1; i >= 0; i--) {
          al[i] = Num.t(await st.old_stps[i]!.dot(q).item().then(Number)).mul(
            st.ro[i]!,
          );
          no_grad(() => q.add_(st.old_dirs[i]!, { alpha: -al[i]!.v }));
        }
        const r = q.mul(H_diag!.v);
        for (let i = 0; i < n; i++) {
          const be = Num.t(
            await st.old_dirs[i]!.dot(r).item().then(Number),
          ).mul(st.ro[i]!);
          no_grad(() => r.add_(st.old_stps[i]!, { alpha: al[i]!.sub(be).v }));
        }
        d?.dispose();
        d = keepAlive(r);
      }
      st.prev_flat_grad?.dispose();
      st.prev_flat_grad = keepAlive(flatGrad.clone());
      st.prev_loss = loss;
      // The step length.
      if (st.n_iter === 1) {
        const inv = Num.t(await flatGrad.abs().sum().item().then(Number)).rdiv(
          1,
        );
        t = minN(new Num(1), inv).mul(lr);
      } else t = new Num(lr);
      const gtd = Num.t(await flatGrad.dot(d).item().then(Number));
      if (gtd.v > -o.tolerance_change) break;
      let lsEvals = 0;
      if (o.line_search_fn !== null) {
        if (o.line_search_fn !== "strong_wolfe")
          throw new TorchError("only 'strong_wolfe' is supported");
        const x = this.#params.map((p) => p.clone());
        const [f, g, tNew, evals] = await this.#strongWolfe(
          closure,
          x,
          t,
          d,
          { f: loss, g: flatGrad, gtd },
          o.tolerance_change,
        );
        x.forEach((p) => p.dispose());
        loss = f;
        flatGrad = g;
        t = tNew;
        lsEvals = evals;
        this.#addGrad(t, d);
        optCond = (await absMax(flatGrad)).v <= o.tolerance_grad;
      } else {
        this.#addGrad(t, d);
        if (nIter !== o.max_iter) {
          loss = await (await this.#loss(closure)).item().then(Number);
          flatGrad = this.#flatGrad();
          optCond = (await absMax(flatGrad)).v <= o.tolerance_grad;
          lsEvals = 1;
        }
      }
      currentEvals += lsEvals;
      st.func_evals += lsEvals;
      if (nIter === o.max_iter) break;
      if (currentEvals >= maxEval) break;
      if (optCond) break;
      if (
        Num.t(await d.mul(t.v).abs().max().item().then(Number)).v <=
        o.tolerance_change
      )
        break;
      if (Math.abs(loss - st.prev_loss) < o.tolerance_change) break;
    }
    st.d = d;
    st.t = t;
    st.H_diag = H_diag;
    return origLoss;
  }

  /** PyTorch's `_strong_wolfe`: a step length satisfying the strong Wolfe conditions. */
  async #strongWolfe(
    closure: () => Tensor | Promise<Tensor>,
    x: Tensor[],
    t0: Num,
    d: Tensor,
    start: Point,
    toleranceChange: number,
    c1 = 1e-4,
    c2 = 0.9,
    maxLs = 25,
  ): Promise<[number, Tensor, Num, number]> {
    let t = t0;
    const dNorm = Num.t(await d.abs().max().item().then(Number));
    const { f, gtd } = start;
    let [fNew, gNew] = await this.#directional(closure, x, t, d);
    let evals = 1;
    let gtdNew = Num.t(await gNew.dot(d).item().then(Number));
    let tPrev = new Num(0);
    let fPrev = f;
    let gPrev = start.g;
    let gtdPrev = gtd;
    let done = false;
    let lsIter = 0;
    let bracket: Num[] = [];
    let bf: number[] = [];
    let bg: Tensor[] = [];
    let bgtd: Num[] = [];
    const armijo = (fn: number, tt: Num) =>
      fn > new Num(f).add(tt.mul(c1).mul(gtd)).v;
    while (lsIter < maxLs) {
      if (armijo(fNew, t) || (lsIter > 1 && fNew >= fPrev)) {
        [bracket, bf, bg, bgtd] = [
          [tPrev, t],
          [fPrev, fNew],
          [gPrev, gNew],
          [gtdPrev, gtdNew],
        ];
        break;
      }
      if (gtdNew.abs().v <= gtd.mul(-c2).v) {
        [bracket, bf, bg] = [[t], [fNew], [gNew]];
        done = true;
        break;
      }
      if (gtdNew.v >= 0) {
        [bracket, bf, bg, bgtd] = [
          [tPrev, t],
          [fPrev, fNew],
          [gPrev, gNew],
          [gtdPrev, gtdNew],
        ];
        break;
      }
      const minStep = t.add(t.sub(tPrev).mul(0.01));
      const maxStep = t.mul(10);
      const tmp = t;
      t = cubicInterpolate(tPrev, fPrev, gtdPrev, t, fNew, gtdNew, [
        minStep,
        maxStep,
      ]);
      tPrev = tmp;
      fPrev = fNew;
      gPrev = gNew;
      gtdPrev = gtdNew;
      [fNew, gNew] = await this.#directional(closure, x, t, d);
      evals += 1;
      gtdNew = Num.t(await gNew.dot(d).item().then(Number));
      lsIter += 1;
    }
    if (lsIter === maxLs) {
      [bracket, bf, bg] = [
        [new Num(0), t],
        [f, fNew],
        [start.g, gNew],
      ];
    }
    // Zoom into the bracket.
    let insufProgress = false;
    let [low, high] = bf[0]! <= bf.at(-1)! ? [0, 1] : [1, 0];
    while (!done && lsIter < maxLs) {
      const b0 = bracket[0]!;
      const b1 = bracket[1]!;
      if (b1.sub(b0).abs().mul(dNorm).v < toleranceChange) break;
      t = cubicInterpolate(b0, bf[0]!, bgtd[0]!, b1, bf[1]!, bgtd[1]!);
      const bMax = maxN(b0, b1);
      const bMin = minN(b0, b1);
      const eps = bMax.sub(bMin).mul(0.1);
      if (minN(bMax.sub(t), t.sub(bMin)).v < eps.v) {
        if (insufProgress || t.v >= bMax.v || t.v <= bMin.v) {
          t =
            t.sub(bMax).abs().v < t.sub(bMin).abs().v
              ? bMax.sub(eps)
              : bMin.add(eps);
          insufProgress = false;
        } else insufProgress = true;
      } else insufProgress = false;
      [fNew, gNew] = await this.#directional(closure, x, t, d);
      evals += 1;
      gtdNew = Num.t(await gNew.dot(d).item().then(Number));
      lsIter += 1;
      if (armijo(fNew, t) || fNew >= bf[low]!) {
        bracket[high] = t;
        bf[high] = fNew;
        bg[high] = gNew;
        bgtd[high] = gtdNew;
        [low, high] = bf[0]! <= bf[1]! ? [0, 1] : [1, 0];
      } else {
        if (gtdNew.abs().v <= gtd.mul(-c2).v) done = true;
        else if (gtdNew.mul(bracket[high]!.sub(bracket[low]!)).v >= 0) {
          bracket[high] = bracket[low]!;
          bf[high] = bf[low]!;
          bg[high] = bg[low]!;
          bgtd[high] = bgtd[low]!;
        }
        bracket[low] = t;
        bf[low] = fNew;
        bg[low] = gNew;
        bgtd[low] = gtdNew;
      }
    }
    return [bf[low]!, bg[low]!, bracket[low]!, evals];
  }
}
