//! CPU reference row-wise NN kernels (softmax, log_softmax, layer_norm, rms_norm, causal softmax
//! and the softmax backward rules), computed in f32; a row's sums are cascade sums (`reduce.rs`),
//! so a long row's statistics keep PyTorch's accuracy.

use super::reduce::cascade_sum;
use super::{for_each_offset, CpuBackend};
use crate::backend::{RowOp, Rowwise};

/// The NaN-propagating max of a row (-inf when empty).
fn row_max(row: &[f32]) -> f32 {
    row.iter().fold(f32::NEG_INFINITY, |m, &x| if m.is_nan() || !(x.is_nan() || x > m) { m } else { x })
}

impl CpuBackend {
    pub(super) fn rowwise_impl(&self, k: &Rowwise) {
        let shape: Vec<usize> = k.outer.iter().chain(&k.inner).copied().collect();
        let n: usize = k.inner.iter().product();
        let (mut xs, mut outs) = (vec![], vec![]);
        self.with_buf(k.input.buf, |buf| {
            for_each_offset(&shape, &[(k.input.offset, &k.input.strides), (0, &k.out_strides)], |_, o| {
                xs.push(f32::from_bits(buf[o[0]]));
                outs.push(o[1]);
            })
        });
        let mut gs = vec![];
        if let Some(g) = &k.grad {
            self.with_buf(g.buf, |buf| {
                for_each_offset(&shape, &[(g.offset, &g.strides)], |_, o| gs.push(f32::from_bits(buf[o[0]])))
            });
        }
        let affine = |o: &Option<crate::backend::Operand>| -> Option<Vec<f32>> {
            o.as_ref().map(|w| self.with_buf(w.buf, |b| (0..n).map(|j| f32::from_bits(b[w.offset + j])).collect()))
        };
        let (w, b) = (affine(&k.weight), affine(&k.bias));
        let eps = k.eps as f32;
        let mut ys = vec![0f32; xs.len()];
        for (r, (row, y)) in xs.chunks(n.max(1)).zip(ys.chunks_mut(n.max(1))).enumerate() {
            let g = gs.get(r * n..(r + 1) * n).unwrap_or(&[]);
            match k.op {
                RowOp::CausalSoftmax => {
                    let keep = (r % k.queries.max(1) + 1).min(n);
                    let m = row_max(&row[..keep]);
                    let sum = cascade_sum(row[..keep].iter().map(|x| (x - m).exp()));
                    for (j, (y, x)) in y.iter_mut().zip(row).enumerate() {
                        *y = if j < keep { (x - m).exp() / sum } else { 0.0 };
                    }
                }
                RowOp::SoftmaxBackward => {
                    let dot = cascade_sum(g.iter().zip(row).map(|(g, y)| g * y));
                    for ((o, yv), gv) in y.iter_mut().zip(row).zip(g) {
                        *o = yv * (gv - dot);
                    }
                }
                RowOp::LogSoftmaxBackward => {
                    let sum = cascade_sum(g.iter().copied());
                    for ((o, yv), gv) in y.iter_mut().zip(row).zip(g) {
                        *o = gv - yv.exp() * sum;
                    }
                }
                RowOp::Softmax | RowOp::LogSoftmax => {
                    let m = row_max(row);
                    let sum = cascade_sum(row.iter().map(|x| (x - m).exp()));
                    for (y, x) in y.iter_mut().zip(row) {
                        *y = if k.op == RowOp::Softmax { (x - m).exp() / sum } else { x - m - sum.ln() };
                    }
                }
                RowOp::LayerNorm | RowOp::RmsNorm => {
                    let nf = n as f32;
                    let (center, ms) = if k.op == RowOp::LayerNorm {
                        let mean = cascade_sum(row.iter().copied()) / nf;
                        (mean, cascade_sum(row.iter().map(|x| (x - mean) * (x - mean))) / nf)
                    } else {
                        (0.0, cascade_sum(row.iter().map(|x| x * x)) / nf)
                    };
                    let r = 1.0 / (ms + eps).sqrt();
                    for (j, (y, x)) in y.iter_mut().zip(row).enumerate() {
                        let mut v = (x - center) * r;
                        if let Some(w) = &w {
                            v *= w[j];
                        }
                        if let Some(b) = &b {
                            v += b[j];
                        }
                        *y = v;
                    }
                }
            }
        }
        let mut st = self.state.borrow_mut();
        let buf = st.bufs[k.out as usize].as_mut().expect("live buffer");
        for (o, y) in outs.into_iter().zip(ys) {
            buf[o] = y.to_bits();
        }
    }
}
