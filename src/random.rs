//! Philox4x32-10, the counter-based generator behind `rand`/`randn`. A (seed, counter) pair fully
//! determines the numbers, so `torch.manual_seed(s)` gives the same tensors on every device: the
//! stream is a pure function, whichever backend then stores it.

use std::cell::Cell;

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// PyTorch's default seed, so an unseeded program starts from a fixed, documented state.
pub const DEFAULT_SEED: u64 = 67_280_421_310_721;

/// Ten rounds of Philox4x32 on `counter` with `key`.
pub fn philox(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..10 {
        let p0 = (M0 as u64) * (c[0] as u64);
        let p1 = (M1 as u64) * (c[2] as u64);
        c = [((p1 >> 32) as u32) ^ c[1] ^ k[0], p1 as u32, ((p0 >> 32) as u32) ^ c[3] ^ k[1], p0 as u32];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

thread_local! {
    static STATE: Cell<(u64, u64)> = const { Cell::new((DEFAULT_SEED, 0)) };
}

pub fn manual_seed(seed: u64) {
    STATE.with(|s| s.set((seed, 0)));
}

/// `n` raw 32-bit draws; advances the generator's counter.
fn draws(n: usize) -> Vec<u32> {
    let (seed, offset) = STATE.with(|s| s.get());
    let blocks = n.div_ceil(4) as u64;
    STATE.with(|s| s.set((seed, offset + blocks)));
    let key = [seed as u32, (seed >> 32) as u32];
    let mut out = Vec::with_capacity(blocks as usize * 4);
    for b in 0..blocks {
        let c = offset + b;
        out.extend(philox([c as u32, (c >> 32) as u32, 0, 0], key));
    }
    out.truncate(n);
    out
}

fn unit(x: u32) -> f32 {
    // 24 random bits → [0, 1) exactly representable in f32.
    (x >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// `n` uniform floats in [0, 1).
pub fn uniform(n: usize) -> Vec<f32> {
    draws(n).into_iter().map(unit).collect()
}

/// `n` standard normal floats (Box–Muller over pairs of uniforms).
pub fn normal(n: usize) -> Vec<f32> {
    let u = draws(n.div_ceil(2) * 2);
    let mut out = Vec::with_capacity(n + 1);
    for pair in u.chunks(2) {
        let u1 = 1.0 - unit(pair[0]); // (0, 1]: log is finite
        let u2 = unit(pair[1]);
        let r = (-2.0 * (u1 as f64).ln()).sqrt();
        let t = std::f64::consts::TAU * u2 as f64;
        out.push((r * t.cos()) as f32);
        out.push((r * t.sin()) as f32);
    }
    out.truncate(n);
    out
}

/// The generator's (seed, counter): a kernel-graph capture checks that nothing drew from it.
pub fn position() -> (u64, u64) {
    STATE.with(|s| s.get())
}

/// Tags the counters of per-element streams (their third word), so that they never meet the
/// counters of `draws` (0 there).
pub const POISSON_TAG: u32 = 0x706f_6973;

/// The key and call number of one `torch.poisson` call (the generator's counter, advanced by a
/// block, so the next call, and the next `rand`, draw other numbers).
pub fn poisson_call() -> ([u32; 2], u32) {
    let (seed, offset) = STATE.with(|s| s.get());
    STATE.with(|s| s.set((seed, offset + 1)));
    ([seed as u32, (seed >> 32) as u32], offset as u32)
}

/// One element's Philox stream: counter [element, call, POISSON_TAG, group], four uniforms per
/// group (shaders/poisson.wgsl's `Stream`, word for word).
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
/// rejection (PTRS) from 10 up. f32 arithmetic in the order of shaders/poisson.wgsl, so both
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
        if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - crate::ops::math::lgamma(k + 1.0) {
            return k;
        }
    }
    lam.floor()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn philox_known_answer() {
        // Known-answer vector from the Random123 distribution (philox4x32_10, zero counter/key).
        assert_eq!(philox([0, 0, 0, 0], [0, 0]), [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]);
    }

    #[test]
    fn seeded_streams_repeat_and_look_uniform() {
        manual_seed(7);
        let a = uniform(10_000);
        manual_seed(7);
        assert_eq!(a, uniform(10_000));
        let mean = a.iter().sum::<f32>() / a.len() as f32;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        let z = normal(10_000);
        let m = z.iter().sum::<f32>() / z.len() as f32;
        let v = z.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / z.len() as f32;
        assert!(m.abs() < 0.05 && (v - 1.0).abs() < 0.05, "{m} {v}");
    }

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
