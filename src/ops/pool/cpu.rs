//! The CPU twins of `max_pool2d.wgsl` and `max_pool2d_backward.wgsl`, reading the same uniform
//! words, invocation by invocation.

use crate::backend::Words;
use crate::error::Result;

/// The twin of `max_pool2d.wgsl`: values into slot 0, indices into slot 1 (with word 20), the
/// input in slot 2.
pub(super) fn forward(w: &mut Words) -> Result<()> {
    let m = |i: usize| w.at(i);
    let (n, c, hh, ww, oh_n, ow_n) = (m(0), m(1), m(2) as i64, m(3) as i64, m(4), m(5));
    let (kh, kw, sh, sw, ph, pw, dh, dw) = (m(6), m(7), m(8), m(9), m(10), m(11), m(12), m(13));
    let (offset, strides, indices) = (m(14), [m(15), m(16), m(17), m(18)], m(20) != 0);
    let x = w.read.get(2);
    let (out, idx) = w.written.split_at_mut(1);
    for e in 0..n {
        let ow = e % ow_n;
        let oh = (e / ow_n) % oh_n;
        let p = e / (ow_n * oh_n);
        let base = offset + (p / c) * strides[0] + (p % c) * strides[1];
        let h0 = (oh * sh) as i64 - ph as i64;
        let w0 = (ow * sw) as i64 - pw as i64;
        let (mut best, mut at) = (0.0f32, -1i64);
        for i in 0..kh {
            let h = h0 + (i * dh) as i64;
            if h < 0 || h >= hh {
                continue;
            }
            for j in 0..kw {
                let col = w0 + (j * dw) as i64;
                if col < 0 || col >= ww {
                    continue;
                }
                let v = f32::from_bits(x[base + h as usize * strides[2] + col as usize * strides[3]]);
                if at < 0 || v > best || v.is_nan() {
                    best = v;
                    at = h * ww + col;
                }
            }
        }
        out[0][e] = best.to_bits();
        if indices {
            idx[0][e] = at as i32 as u32;
        }
    }
    Ok(())
}

/// The first output whose window can reach input position `q` (padded: q + pad).
fn first_window(q: i64, k: i64, d: i64, s: i64) -> usize {
    let lo = q - (k - 1) * d;
    if lo <= 0 {
        0
    } else {
        ((lo + s - 1) / s) as usize
    }
}

/// The twin of `max_pool2d_backward.wgsl`: the input gradient into slot 0, the output's gradient
/// in slot 1, the indices in slot 2.
pub(super) fn backward(w: &mut Words) -> Result<()> {
    let m = |i: usize| w.at(i);
    let (n, hh, ww, oh_n, ow_n) = (m(0), m(1), m(2), m(3), m(4));
    let (kh, kw, sh, sw, ph, pw, dh, dw) = (m(5), m(6), m(7), m(8), m(9), m(10), m(11), m(12));
    let (offset, strides, c) = (m(13), [m(14), m(15), m(16), m(17)], m(18));
    let (g, idx) = (w.read.get(1), w.read.get(2));
    for e in 0..n {
        let col = e % ww;
        let h = (e / ww) % hh;
        let p = e / (ww * hh);
        let (hp, wp) = ((h + ph) as i64, (col + pw) as i64);
        let oh0 = first_window(hp, kh as i64, dh as i64, sh as i64);
        let ow0 = first_window(wp, kw as i64, dw as i64, sw as i64);
        let oh1 = oh_n.min(hp as usize / sh + 1);
        let ow1 = ow_n.min(wp as usize / sw + 1);
        let here = (h * ww + col) as i32;
        let gbase = offset + (p / c) * strides[0] + (p % c) * strides[1];
        let mut acc = 0.0f32;
        for oh in oh0..oh1 {
            for ow in ow0..ow1 {
                if idx[(p * oh_n + oh) * ow_n + ow] as i32 == here {
                    acc += f32::from_bits(g[gbase + oh * strides[2] + ow * strides[3]]);
                }
            }
        }
        w.written[0][e] = acc.to_bits();
    }
    Ok(())
}

// Native only: the test reads results with `pollster`, a native dependency.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::super::{max_pool2d, MaxPool2d, MaxPool2dBackward, PoolGeometry};
    use crate::backend::Backend;
    use crate::dtype::DType;
    use crate::tensor::Tensor;
    use crate::Device;
    use std::rc::Rc;

    fn words(t: &Tensor) -> Vec<u32> {
        pollster::block_on(t.read_words()).unwrap()
    }

    /// The twins on the CPU backend against the composition the CPU backend takes (windows and
    /// `max(dim)`): a strided input with ties, NaN and -inf, padding, dilation and ceil_mode's
    /// clipped last window; then the gradient against its definition (summed at the indices).
    #[test]
    fn twins_match_the_composition() {
        let (n, c, h, w) = (2usize, 3usize, 7usize, 6usize);
        let mut data: Vec<f32> = (0..n * c * h * w).map(|i| ((i * 7919) % 23) as f32 / 4.0 - 2.0).collect();
        data[5] = f32::NAN;
        data[40] = f32::NEG_INFINITY;
        data[41] = f32::NEG_INFINITY;
        // [N, H, C, W] in memory, viewed as [N, C, H, W].
        let base = Tensor::from_f32(&data, &[n, h, c, w], Device::Cpu).unwrap();
        let x = base.transpose(1, 2).unwrap();
        let (kernel, stride, pad, dilation) = ([3i64, 2], [2i64, 2], [1i64, 1], [1i64, 2]);
        let y = crate::autograd::pool::max_pool(&x, &kernel, &stride, &pad, &dilation, true).unwrap();
        let (oh, ow) = (y.shape()[2], y.shape()[3]);
        let g = PoolGeometry {
            input: [n, c, h, w],
            out_hw: [oh, ow],
            kernel: [3, 2],
            stride: [2, 2],
            pad: [1, 1],
            dilation: [1, 2],
        };
        let be: Rc<dyn Backend> = crate::engine::cpu();
        let out = Tensor::empty_on(&be, &[n, c, oh, ow], DType::Float32).unwrap();
        let idx = Tensor::empty_on(&be, &[n, c, oh, ow], DType::Int64).unwrap();
        let k = MaxPool2d {
            g: g.clone(),
            x: x.operand_with(&x.layout.strides).unwrap(),
            out: out.buf().unwrap(),
            idx: idx.buf().unwrap(),
            indices: true,
        };
        max_pool2d::forward(&*be, &k).unwrap();
        assert_eq!(words(&out), words(&y));

        let grad: Vec<f32> = (0..n * c * oh * ow).map(|i| i as f32 * 0.5 + 1.0).collect();
        let gy = Tensor::from_f32(&grad, &[n, c, oh, ow], Device::Cpu).unwrap();
        let gx = Tensor::empty_on(&be, &[n, c, h, w], DType::Float32).unwrap();
        let kb = MaxPool2dBackward {
            g,
            grad: gy.operand_with(&gy.layout.strides).unwrap(),
            idx: idx.buf().unwrap(),
            out: gx.buf().unwrap(),
        };
        max_pool2d::backward(&*be, &kb).unwrap();
        let mut want = vec![0.0f32; n * c * h * w];
        let at = words(&idx);
        for (e, g) in grad.iter().enumerate() {
            let plane = e / (oh * ow);
            want[plane * h * w + at[e] as usize] += g;
        }
        let got: Vec<f32> = words(&gx).into_iter().map(f32::from_bits).collect();
        assert_eq!(got, want);
    }
}
