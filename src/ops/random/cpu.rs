//! The CPU twin of `poisson.wgsl`: each element's draw from its own Philox stream, in the
//! shader's f32 arithmetic and order, reading the same uniform words.

use crate::backend::Words;
use crate::dtype::DType;
use crate::error::Result;
use crate::random::{philox, unit, POISSON_TAG};

/// One element's Philox stream: counter [element, call, POISSON_TAG, group], four uniforms per
/// group (`poisson.wgsl`'s `Stream`, word for word).
pub struct Stream {
    key: [u32; 2],
    counter: [u32; 4],
    buf: [u32; 4],
    used: usize,
}

impl Stream {
    pub fn new(key: [u32; 2], element: u32, call: u32) -> Stream {
        Stream { key, counter: [element, call, POISSON_TAG, 0], buf: [0; 4], used: 4 }
    }

    /// The next uniform in [0, 1).
    pub fn uniform(&mut self) -> f32 {
        if self.used == 4 {
            self.buf = philox(self.counter, self.key);
            self.counter[3] = self.counter[3].wrapping_add(1);
            self.used = 0;
        }
        self.used += 1;
        unit(self.buf[self.used - 1])
    }
}

/// A Poisson draw with rate `lam`: Knuth's product of uniforms below 10, Hörmann's transformed
/// rejection (PTRS) from 10 up. f32 arithmetic in the order of `poisson.wgsl`, so both
/// devices draw the same numbers, up to the last-place rounding of exp/sqrt/log/lgamma (not exact
/// in WGSL), which moves a draw only when a uniform lands that close to a boundary (docs/dtypes.md).
pub fn poisson(lam: f32, s: &mut Stream) -> f32 {
    if lam == 0.0 {
        return 0.0;
    }
    if lam.is_nan() || lam < 0.0 || lam.is_infinite() {
        return f32::NAN;
    }
    if lam < 10.0 {
        let limit = (-lam).exp();
        let (mut p, mut k) = (1.0f32, 0.0f32);
        for _ in 0..1000 {
            p *= s.uniform();
            if p <= limit {
                return k;
            }
            k += 1.0;
        }
        return k;
    }
    let slam = lam.sqrt();
    let loglam = lam.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    for _ in 0..1000 {
        let u = s.uniform() - 0.5;
        let v = s.uniform();
        let us = 0.5 - u.abs();
        if us <= 0.0 {
            continue;
        }
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v <= 0.0 {
            return k;
        }
        if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - libm::lgamma(k as f64 + 1.0) as f32
        {
            return k;
        }
    }
    lam.floor()
}

/// The twin of `poisson.wgsl`'s `main` (words 0: n, 2: rate offset, 3–4: key, 5: call): the
/// draws into slot 0, as the variant's dtype, with the rates of slot 1.
pub(super) fn draw(w: &mut Words) -> Result<()> {
    let dtype = DType::from_code(w.variant)?;
    let (n, offset, key, call) = (w.at(0), w.at(2), [w.m(3), w.m(4)], w.m(5));
    let rates = w.read.get(1);
    let out = &mut w.written[0];
    for i in 0..n {
        let mut s = Stream::new(key, i as u32, call);
        if dtype == DType::Float64 {
            // float64 (CPU-only: two words an element, low first): the draw of the rate rounded
            // to float32, the same stream as for a float32 tensor of those rates. The draws are
            // whole numbers, exact in either width.
            let at = offset + i;
            let rate = crate::dtype::f64_at(rates, at);
            crate::dtype::set_f64(out, i, poisson(rate as f32, &mut s) as f64);
        } else {
            out[i] = dtype.round_f32(poisson(f32::from_bits(rates[offset + i]), &mut s)).to_bits();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_moments() {
        for lam in [0.5f32, 3.0, 9.5, 10.0, 40.0, 1000.0] {
            let n = 20_000;
            let x: Vec<f32> = (0..n).map(|i| poisson(lam, &mut Stream::new([7, 0], i, 3))).collect();
            let m = x.iter().sum::<f32>() / n as f32;
            let v = x.iter().map(|y| (y - m) * (y - m)).sum::<f32>() / n as f32;
            // Mean and variance are both lam; 5 standard errors.
            assert!((m - lam).abs() < 5.0 * (lam / n as f32).sqrt(), "{lam}: mean {m}");
            assert!((v - lam).abs() < 5.0 * lam * (2.0 / n as f32).sqrt() + 0.05, "{lam}: var {v}");
            assert!(x.iter().all(|y| *y >= 0.0 && y.fract() == 0.0));
        }
    }
}
