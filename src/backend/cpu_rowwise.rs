//! CPU reference row-wise NN kernels (softmax, log_softmax, layer_norm, rms_norm), computed in f32
//! in row order as `shaders/rowwise.wgsl` computes them per workgroup.

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
        let affine = |o: &Option<crate::backend::Operand>| -> Option<Vec<f32>> {
            o.as_ref().map(|w| self.with_buf(w.buf, |b| (0..n).map(|j| f32::from_bits(b[w.offset + j])).collect()))
        };
        let (w, b) = (affine(&k.weight), affine(&k.bias));
        let eps = k.eps as f32;
        let mut ys = vec![0f32; xs.len()];
        for (row, y) in xs.chunks(n.max(1)).zip(ys.chunks_mut(n.max(1))) {
            match k.op {
                RowOp::Softmax | RowOp::LogSoftmax => {
                    let m = row_max(row);
                    let sum: f32 = row.iter().map(|x| (x - m).exp()).sum();
                    for (y, x) in y.iter_mut().zip(row) {
                        *y = if k.op == RowOp::Softmax { (x - m).exp() / sum } else { x - m - sum.ln() };
                    }
                }
                RowOp::LayerNorm | RowOp::RmsNorm => {
                    let nf = n as f32;
                    let (center, ms) = if k.op == RowOp::LayerNorm {
                        let mean = row.iter().sum::<f32>() / nf;
                        (mean, row.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / nf)
                    } else {
                        (0.0, row.iter().map(|x| x * x).sum::<f32>() / nf)
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
