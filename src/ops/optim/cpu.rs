//! The CPU twin of `optim.wgsl`: one fused optimizer update over a parameter group's flat
//! buffers, element by element, in the same f32 operations and order (PyTorch's single-tensor
//! algorithms), reading the same uniform words. `mod.rs` documents the scalars of each kind.

use super::step::{
    OptimKind, MAX_SCALARS, OPT_AMSGRAD, OPT_BRANCH, OPT_CENTERED, OPT_DECOUPLED, OPT_FIRST, OPT_MAXIMIZE,
    OPT_MOMENTUM, OPT_NESTEROV, OPT_WEIGHT_DECAY, SCALARS,
};
use crate::backend::Words;
use crate::error::Result;

/// `torch.lerp`'s formula (ATen: the weight picks the end to interpolate from).
fn lerp(a: f32, b: f32, w: f32) -> f32 {
    if w < 0.5 {
        a + w * (b - a)
    } else {
        b - (b - a) * (1.0 - w)
    }
}

/// `torch.sign` (0 for ±0, NaN stays NaN), not `f32::signum`.
fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x * 0.0
    }
}

/// The state of one element: role `r` at word `bases[r] + e` of the state buffer.
struct Slots<'a> {
    words: &'a mut [u32],
    bases: [usize; 3],
    e: usize,
}

impl Slots<'_> {
    fn get(&self, r: usize) -> f32 {
        f32::from_bits(self.words[self.bases[r] + self.e])
    }
    fn set(&mut self, r: usize, v: f32) {
        self.words[self.bases[r] + self.e] = v.to_bits();
    }
}

/// An update's kind, flags and scalars, from its variant and uniform words.
struct Step {
    kind: OptimKind,
    flags: u32,
    scalars: [f32; MAX_SCALARS],
}

/// The new value of parameter element `p` with gradient `g` (state updated in `s`).
fn element(k: &Step, p: f32, g: f32, s: &mut Slots) -> f32 {
    let c = |i: usize| k.scalars[i];
    let has = |f: u32| k.flags & f != 0;
    let mut g = if has(OPT_MAXIMIZE) { -g } else { g };
    let mut param = p;
    if has(OPT_WEIGHT_DECAY) {
        if has(OPT_DECOUPLED) {
            param = p * c(1);
        } else {
            g += c(0) * p;
        }
    }
    match k.kind {
        OptimKind::Sgd => {
            if has(OPT_MOMENTUM) {
                let b = if has(OPT_FIRST) { g } else { s.get(0) * c(2) + c(3) * g };
                s.set(0, b);
                g = if has(OPT_NESTEROV) { g + c(2) * b } else { b };
            }
            param + -c(1) * g
        }
        OptimKind::Adam => {
            let m = lerp(s.get(0), g, c(2));
            let v = s.get(1) * c(3) + g * c(4) * g;
            s.set(0, m);
            s.set(1, v);
            let mut second = v;
            if has(OPT_AMSGRAD) {
                second = s.get(2).max(v);
                s.set(2, second);
            }
            let denom = second.sqrt() / c(5) + c(6);
            param + c(7) * (m / denom)
        }
        OptimKind::RmsProp => {
            let sq = s.get(0) * c(2) + g * c(3) * g;
            s.set(0, sq);
            let mut avg = if has(OPT_CENTERED) {
                let ga = lerp(s.get(2), g, c(3));
                s.set(2, ga);
                (sq - ga * ga).sqrt()
            } else {
                sq.sqrt()
            };
            avg += c(4);
            if has(OPT_MOMENTUM) {
                let b = s.get(1) * c(5) + g / avg;
                s.set(1, b);
                param + -c(1) * b
            } else {
                param + -c(1) * (g / avg)
            }
        }
        OptimKind::Adagrad => {
            let sum = s.get(0) + g * g;
            s.set(0, sum);
            let std = sum.sqrt() + c(1);
            param + c(2) * (g / std)
        }
        OptimKind::Adamax => {
            let m = lerp(s.get(0), g, c(1));
            let u = (s.get(1) * c(2)).max(g.abs() + c(3));
            s.set(0, m);
            s.set(1, u);
            param + c(4) * (m / u)
        }
        OptimKind::NAdam => {
            let m = lerp(s.get(0), g, c(2));
            let v = s.get(1) * c(3) + g * c(4) * g;
            s.set(0, m);
            s.set(1, v);
            let denom = (v / c(5)).sqrt() + c(6);
            let a = param + c(7) * (g / denom);
            a + c(8) * (m / denom)
        }
        OptimKind::RAdam => {
            let m = lerp(s.get(0), g, c(2));
            let v = s.get(1) * c(3) + g * c(4) * g;
            s.set(0, m);
            s.set(1, v);
            let corrected = m / c(5) * c(6);
            if has(OPT_BRANCH) {
                let adaptive = c(8) / (v.sqrt() + c(7));
                param - corrected * adaptive * c(9)
            } else {
                param - corrected
            }
        }
        OptimKind::Asgd => {
            let q = param * c(1) + c(2) * g;
            let ax = if has(OPT_BRANCH) {
                let ax = s.get(0);
                ax + (q - ax) * c(3)
            } else {
                q
            };
            s.set(0, ax);
            q
        }
        OptimKind::Adadelta => {
            let sq = s.get(0) * c(1) + g * c(2) * g;
            s.set(0, sq);
            let std = (sq + c(3)).sqrt();
            let delta = (s.get(1) + c(3)).sqrt() / std * g;
            let acc = s.get(1) * c(1) + delta * c(2) * delta;
            s.set(1, acc);
            param + c(4) * delta
        }
        OptimKind::Rprop => {
            let size = if has(OPT_FIRST) { c(5) } else { s.get(1) };
            let prod = sign(g * s.get(0));
            let factor = if prod > 0.0 {
                c(2)
            } else if prod < 0.0 {
                c(1)
            } else {
                1.0
            };
            let size = (size * factor).max(c(3)).min(c(4));
            let g = if factor == c(1) { 0.0 } else { g };
            s.set(0, g);
            s.set(1, size);
            param - sign(g) * size
        }
    }
}

/// The twin of `optim.wgsl`'s `main`: elements `start .. start + len` of `x` (slot 0: parameters,
/// then gradients from word `n`), the state in slot 1 (empty when it is `x`, which then has no
/// state to update).
pub(super) fn update(w: &mut Words) -> Result<()> {
    let mut scalars = [0f32; MAX_SCALARS];
    for (i, c) in scalars.iter_mut().enumerate() {
        *c = f32::from_bits(w.m(SCALARS + i));
    }
    let k = Step { kind: OptimKind::from_variant(w.variant), flags: w.m(4), scalars };
    let (start, len, n, bases) = (w.at(0), w.at(1), w.at(2), [w.at(5), w.at(6), w.at(7)]);
    let [x, state] = &mut *w.written else { crate::bail!(Torch, "internal: the optimizer update writes two buffers") };
    for e in start..start + len {
        let (p, g) = (f32::from_bits(x[e]), f32::from_bits(x[n + e]));
        let mut slots = Slots { words: &mut state[..], bases, e };
        x[e] = element(&k, p, g, &mut slots).to_bits();
    }
    Ok(())
}
