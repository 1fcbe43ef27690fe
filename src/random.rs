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

/// A draw's 24 high bits as a float in [0, 1).
pub(crate) fn unit(x: u32) -> f32 {
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

/// Puts the generator at (seed, counter), as `position` gave them (`torch.set_rng_state`).
pub fn set_position(seed: u64, offset: u64) {
    STATE.with(|s| s.set((seed, offset)));
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
}
