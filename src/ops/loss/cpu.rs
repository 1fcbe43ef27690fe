//! The CPU twins of `nll_loss.wgsl` and `nll_loss_backward.wgsl`, reading the same uniform words:
//! rows whose target is ignore_index or outside `0..c` count for nothing.

use crate::backend::Words;
use crate::error::Result;

/// Row `i`'s class, or `None` when the row does not count (`class_of` in the WGSL; words 1: c,
/// 2: ignore_index, -1 when outside `0..c`, 7–8: target offset and stride).
fn class_of(w: &Words, target: &[u32], i: usize) -> Option<usize> {
    let t = target[w.at(7) + i * w.at(8)] as i32;
    (t >= 0 && (t as usize) < w.at(1) && t != w.m(2) as i32).then_some(t as usize)
}

/// Class `t`'s weight (words 3: weighted, 9–10: weight offset and stride).
fn weight_of(w: &Words, weight: &[u32], t: usize) -> f32 {
    if w.m(3) == 0 {
        1.0
    } else {
        f32::from_bits(weight[w.at(9) + t * w.at(10)])
    }
}

/// The forward: the per-row losses ('none'), or the reduced loss and the total weight.
pub(super) fn forward(w: &mut Words) -> Result<()> {
    let (x, target, weight) = (w.read.get(1), w.read.get(2), w.read.get(3));
    let (n, reduction) = (w.at(0), w.m(11));
    // 'sum' / 'mean': the rows' losses and weights in cascade sums, as PyTorch's (and as the
    // WGSL's; bench/KERNELS.md, "Summation order").
    let (mut losses, mut weights) = (vec![], vec![]);
    for i in 0..n {
        // Skipped rows add 0, never -0·x (NaN for x = -inf).
        let loss = match class_of(w, target, i) {
            Some(t) => {
                let wt = weight_of(w, weight, t);
                weights.push(wt);
                -wt * f32::from_bits(x[w.at(4) + i * w.at(5) + t * w.at(6)])
            }
            None => 0.0,
        };
        if reduction == 0 {
            w.written[0][i] = loss.to_bits();
        } else {
            losses.push(loss);
        }
    }
    if reduction != 0 {
        let cascade = |v: Vec<f32>| crate::backend::cpu::cascade_sum(v.into_iter());
        let (sum, total) = (cascade(losses), cascade(weights));
        // 0/0 = NaN for an all-ignored batch, as PyTorch.
        let r = if reduction == 2 { sum / total } else { sum };
        w.written[0][..2].copy_from_slice(&[r.to_bits(), total.to_bits()]);
    }
    Ok(())
}

/// The input gradient: 0 except at (row, class) for the rows that count.
pub(super) fn backward(w: &mut Words) -> Result<()> {
    let (g, target, weight, total) = (w.read.get(1), w.read.get(2), w.read.get(3), w.read.get(4));
    let (len, c) = (w.at(0), w.at(1));
    let n = len.checked_div(c).unwrap_or(0);
    w.written[0][..len].fill(0);
    for i in 0..n {
        let Some(t) = class_of(w, target, i) else { continue };
        let mut s = f32::from_bits(g[w.at(4) + i * w.at(5)]);
        if w.m(6) == 2 {
            s /= f32::from_bits(total[w.at(11)]);
        }
        let v = -weight_of(w, weight, t) * s;
        w.written[0][i * c + t] = v.to_bits();
    }
    Ok(())
}
