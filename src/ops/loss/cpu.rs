//! The CPU twins of `nll_loss.wgsl` and `nll_loss_backward.wgsl`, reading the same uniform words:
//! rows whose target is ignore_index or outside `0..c` count for nothing. Variant 0 computes in
//! f32 as the WGSL does; variant 1 is float64 (a CPU-only dtype: input, weight, gradient and
//! results two words an element, offsets counting elements), in f64.

use crate::backend::Words;
use crate::error::Result;

/// The float width a variant computes in: its storage words and arithmetic.
trait Width:
    Copy
    + Default
    + std::ops::Neg<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Add<Output = Self>
{
    const ONE: Self;
    fn get(words: &[u32], at: usize) -> Self;
    fn set(words: &mut [u32], at: usize, v: Self);
}

impl Width for f32 {
    const ONE: Self = 1.0;
    fn get(words: &[u32], at: usize) -> Self {
        f32::from_bits(words[at])
    }
    fn set(words: &mut [u32], at: usize, v: Self) {
        words[at] = v.to_bits();
    }
}

impl Width for f64 {
    const ONE: Self = 1.0;
    fn get(words: &[u32], at: usize) -> Self {
        crate::dtype::f64_at(words, at)
    }
    fn set(words: &mut [u32], at: usize, v: Self) {
        crate::dtype::set_f64(words, at, v)
    }
}

/// Row `i`'s class, or `None` when the row does not count (`class_of` in the WGSL; words 1: c,
/// 2: ignore_index, -1 when outside `0..c`, 7–8: target offset and stride).
fn class_of(w: &Words, target: &[u32], i: usize) -> Option<usize> {
    let t = target[w.at(7) + i * w.at(8)] as i32;
    (t >= 0 && (t as usize) < w.at(1) && t != w.m(2) as i32).then_some(t as usize)
}

/// Class `t`'s weight (words 3: weighted, 9–10: weight offset and stride).
fn weight_of<T: Width>(w: &Words, weight: &[u32], t: usize) -> T {
    if w.m(3) == 0 {
        T::ONE
    } else {
        T::get(weight, w.at(9) + t * w.at(10))
    }
}

/// The forward: the per-row losses ('none'), or the reduced loss and the total weight.
pub(super) fn forward(w: &mut Words) -> Result<()> {
    if w.variant == 1 {
        forward_in::<f64>(w)
    } else {
        forward_in::<f32>(w)
    }
}

fn forward_in<T: Width>(w: &mut Words) -> Result<()> {
    let (x, target, weight) = (w.read.get(1), w.read.get(2), w.read.get(3));
    let (n, reduction) = (w.at(0), w.m(11));
    // 'sum' / 'mean': the rows' losses and weights in cascade sums, as PyTorch's (and as the
    // WGSL's; bench/KERNELS.md, "Summation order").
    let (mut losses, mut weights) = (vec![], vec![]);
    for i in 0..n {
        // Skipped rows add 0, never -0·x (NaN for x = -inf).
        let loss = match class_of(w, target, i) {
            Some(t) => {
                let wt: T = weight_of(w, weight, t);
                weights.push(wt);
                -wt * T::get(x, w.at(4) + i * w.at(5) + t * w.at(6))
            }
            None => T::default(),
        };
        if reduction == 0 {
            T::set(&mut w.written[0], i, loss);
        } else {
            losses.push(loss);
        }
    }
    if reduction != 0 {
        let cascade = |v: Vec<T>| crate::backend::cpu::cascade(v.into_iter());
        let (sum, total) = (cascade(losses), cascade(weights));
        // 0/0 = NaN for an all-ignored batch, as PyTorch.
        let r = if reduction == 2 { sum / total } else { sum };
        T::set(&mut w.written[0], 0, r);
        T::set(&mut w.written[0], 1, total);
    }
    Ok(())
}

/// The input gradient: 0 except at (row, class) for the rows that count.
pub(super) fn backward(w: &mut Words) -> Result<()> {
    if w.variant == 1 {
        backward_in::<f64>(w)
    } else {
        backward_in::<f32>(w)
    }
}

fn backward_in<T: Width>(w: &mut Words) -> Result<()> {
    let (g, target, weight, total) = (w.read.get(1), w.read.get(2), w.read.get(3), w.read.get(4));
    let (len, c) = (w.at(0), w.at(1));
    let n = len.checked_div(c).unwrap_or(0);
    let words = len * std::mem::size_of::<T>() / 4;
    w.written[0][..words].fill(0);
    for i in 0..n {
        let Some(t) = class_of(w, target, i) else { continue };
        let mut s = T::get(g, w.at(4) + i * w.at(5));
        if w.m(6) == 2 {
            s = s / T::get(total, w.at(11));
        }
        let v = -weight_of::<T>(w, weight, t) * s;
        T::set(&mut w.written[0], i * c + t, v);
    }
    Ok(())
}
