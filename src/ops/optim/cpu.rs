//! The CPU twin of `optim.wgsl`: one fused optimizer update over a parameter group's flat
//! buffers, element by element, in the same f32 operations and order (PyTorch's single-tensor
//! algorithms), reading the same uniform words. `mod.rs` documents the scalars of each kind.
//! float64 groups (a CPU-only dtype) run the same update in f64 (`Real`).

use super::step::{
    OptimKind, FLOAT64, MAX_SCALARS, OPT_AMSGRAD, OPT_BRANCH, OPT_CENTERED, OPT_DECOUPLED, OPT_FIRST, OPT_MAXIMIZE,
    OPT_MOMENTUM, OPT_NESTEROV, OPT_WEIGHT_DECAY, SCALARS,
};
use crate::backend::Words;
use crate::error::Result;

/// The float width an update computes in, and its storage (f64: two words, low first).
trait Real:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::AddAssign
{
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn get(words: &[u32], at: usize) -> Self;
    fn set(words: &mut [u32], at: usize, v: Self);
}

macro_rules! real {
    ($t:ty, $get:expr, $set:expr) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn max(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
            fn min(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            fn get(words: &[u32], at: usize) -> Self {
                $get(words, at)
            }
            fn set(words: &mut [u32], at: usize, v: Self) {
                $set(words, at, v)
            }
        }
    };
}
real!(f32, |w: &[u32], at: usize| f32::from_bits(w[at]), |w: &mut [u32], at: usize, v: f32| w[at] = v.to_bits());
real!(f64, crate::dtype::f64_at, crate::dtype::set_f64);

/// `torch.lerp`'s formula (ATen: the weight picks the end to interpolate from).
fn lerp<T: Real>(a: T, b: T, w: T) -> T {
    if w < T::HALF {
        a + w * (b - a)
    } else {
        b - (b - a) * (T::ONE - w)
    }
}

/// `torch.sign` (0 for ±0, NaN stays NaN), not `f32::signum`.
fn sign<T: Real>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else {
        x * T::ZERO
    }
}

/// The state of one element: role `r` at element `bases[r] + e` of the state buffer.
struct Slots<'a> {
    words: &'a mut [u32],
    bases: [usize; 3],
    e: usize,
}

impl Slots<'_> {
    fn get<T: Real>(&self, r: usize) -> T {
        T::get(self.words, self.bases[r] + self.e)
    }
    fn set<T: Real>(&mut self, r: usize, v: T) {
        T::set(self.words, self.bases[r] + self.e, v)
    }
}

/// An update's kind, flags and scalars, from its variant and uniform words.
struct Step<T> {
    kind: OptimKind,
    flags: u32,
    scalars: [T; MAX_SCALARS],
}

/// The new value of parameter element `p` with gradient `g` (state updated in `s`).
fn element<T: Real>(k: &Step<T>, p: T, g: T, s: &mut Slots) -> T {
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
                let b = if has(OPT_FIRST) { g } else { s.get::<T>(0) * c(2) + c(3) * g };
                s.set(0, b);
                g = if has(OPT_NESTEROV) { g + c(2) * b } else { b };
            }
            param + -c(1) * g
        }
        OptimKind::Adam => {
            let m = lerp(s.get::<T>(0), g, c(2));
            let v = s.get::<T>(1) * c(3) + g * c(4) * g;
            s.set(0, m);
            s.set(1, v);
            let mut second = v;
            if has(OPT_AMSGRAD) {
                second = s.get::<T>(2).max(v);
                s.set(2, second);
            }
            let denom = second.sqrt() / c(5) + c(6);
            param + c(7) * (m / denom)
        }
        OptimKind::RmsProp => {
            let sq = s.get::<T>(0) * c(2) + g * c(3) * g;
            s.set(0, sq);
            let mut avg = if has(OPT_CENTERED) {
                let ga: T = lerp(s.get::<T>(2), g, c(3));
                s.set(2, ga);
                (sq - ga * ga).sqrt()
            } else {
                sq.sqrt()
            };
            avg += c(4);
            if has(OPT_MOMENTUM) {
                let b = s.get::<T>(1) * c(5) + g / avg;
                s.set(1, b);
                param + -c(1) * b
            } else {
                param + -c(1) * (g / avg)
            }
        }
        OptimKind::Adagrad => {
            let sum = s.get::<T>(0) + g * g;
            s.set(0, sum);
            let std = sum.sqrt() + c(1);
            param + c(2) * (g / std)
        }
        OptimKind::Adamax => {
            let m = lerp(s.get::<T>(0), g, c(1));
            let u = (s.get::<T>(1) * c(2)).max(g.abs() + c(3));
            s.set(0, m);
            s.set(1, u);
            param + c(4) * (m / u)
        }
        OptimKind::NAdam => {
            let m = lerp(s.get::<T>(0), g, c(2));
            let v = s.get::<T>(1) * c(3) + g * c(4) * g;
            s.set(0, m);
            s.set(1, v);
            let denom = (v / c(5)).sqrt() + c(6);
            let a = param + c(7) * (g / denom);
            a + c(8) * (m / denom)
        }
        OptimKind::RAdam => {
            let m = lerp(s.get::<T>(0), g, c(2));
            let v = s.get::<T>(1) * c(3) + g * c(4) * g;
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
                let ax = s.get::<T>(0);
                ax + (q - ax) * c(3)
            } else {
                q
            };
            s.set(0, ax);
            q
        }
        OptimKind::Adadelta => {
            let sq = s.get::<T>(0) * c(1) + g * c(2) * g;
            s.set(0, sq);
            let std = (sq + c(3)).sqrt();
            let delta = (s.get::<T>(1) + c(3)).sqrt() / std * g;
            let acc = s.get::<T>(1) * c(1) + delta * c(2) * delta;
            s.set(1, acc);
            param + c(4) * delta
        }
        OptimKind::Rprop => {
            let size = if has(OPT_FIRST) { c(5) } else { s.get::<T>(1) };
            let prod = sign(g * s.get::<T>(0));
            let factor = if prod > T::ZERO {
                c(2)
            } else if prod < T::ZERO {
                c(1)
            } else {
                T::ONE
            };
            let size = (size * factor).max(c(3)).min(c(4));
            let g = if factor == c(1) { T::ZERO } else { g };
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
    if w.variant & FLOAT64 != 0 {
        update_in::<f64>(w)
    } else {
        update_in::<f32>(w)
    }
}

fn update_in<T: Real>(w: &mut Words) -> Result<()> {
    let mut scalars = [T::ZERO; MAX_SCALARS];
    let words: Vec<u32> = (SCALARS..SCALARS + MAX_SCALARS * std::mem::size_of::<T>() / 4).map(|i| w.m(i)).collect();
    for (i, c) in scalars.iter_mut().enumerate() {
        *c = T::get(&words, i);
    }
    let k = Step { kind: OptimKind::from_variant(w.variant), flags: w.m(4), scalars };
    let (start, len, n, bases) = (w.at(0), w.at(1), w.at(2), [w.at(5), w.at(6), w.at(7)]);
    let [x, state] = &mut *w.written else { crate::bail!(Torch, "internal: the optimizer update writes two buffers") };
    for e in start..start + len {
        let (p, g) = (T::get(x, e), T::get(x, n + e));
        let mut slots = Slots { words: &mut state[..], bases, e };
        T::set(x, e, element(&k, p, g, &mut slots));
    }
    Ok(())
}
