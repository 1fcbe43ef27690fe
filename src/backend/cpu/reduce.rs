//! CPU reference reductions: one row of reduced elements (in the kernel's compute type) to one
//! value, with the semantics `shaders/reduce.wgsl` implements (NaN propagation, first-occurrence
//! argmax/argmin, multi-pass var/std and logsumexp).

use super::{elem, load, V};
use crate::backend::ReduceOp;
use crate::dtype::{Compute, DType};

/// One row of stored words, read in the kernel's compute type as it is walked (a row is gathered
/// as words, 4 bytes an element (8 for float64), not as values).
pub(super) struct Row<'a> {
    pub words: &'a [u32],
    pub dtype: DType,
    pub compute: Compute,
}

impl Row<'_> {
    fn iter(&self) -> impl Iterator<Item = V> + '_ {
        (0..self.len()).map(|i| load(elem(self.words, i, self.dtype), self.dtype, self.compute))
    }

    fn len(&self) -> usize {
        self.words.len() / self.dtype.words()
    }
}

fn nonzero(v: V) -> bool {
    match v {
        V::F(x) => x != 0.0 || x.is_nan(),
        V::I(x) => x != 0,
        V::D(x) => x != 0.0 || x.is_nan(),
    }
}

fn floats<'a>(row: &'a Row) -> impl Iterator<Item = f32> + 'a {
    row.iter().map(f)
}

fn doubles<'a>(row: &'a Row) -> impl Iterator<Item = f64> + 'a {
    row.iter().map(|v| match v {
        V::F(x) => x as f64,
        V::I(x) => x as f64,
        V::D(x) => x,
    })
}

/// Cascade summation in f32, like PyTorch's CPU sum (not bit for bit): blocks of 16 values summed in order,
/// the block sums added pairwise (a binary counter of partial sums), so the rounding error grows
/// with log n rather than n — a sum of 2^28 ones is exact, and a mean of a constant is the
/// constant.
pub(crate) fn cascade_sum(values: impl Iterator<Item = f32>) -> f32 {
    cascade(values)
}

/// `cascade_sum` in any float type (float64 sums in f64).
pub(crate) fn cascade<T: Copy + Default + std::ops::Add<Output = T>>(values: impl Iterator<Item = T>) -> T {
    const BLOCK: u32 = 16;
    let mut levels = [T::default(); 64];
    let mut full = 0u64; // bit k set: levels[k] holds the sum of 2^k blocks
    let (mut block, mut in_block) = (T::default(), 0u32);
    for x in values {
        block = block + x;
        in_block += 1;
        if in_block == BLOCK {
            let (mut v, mut k) = (block, 0);
            while full & (1 << k) != 0 {
                v = v + levels[k];
                full &= !(1 << k);
                k += 1;
            }
            levels[k] = v;
            full |= 1 << k;
            (block, in_block) = (T::default(), 0);
        }
    }
    (0..64).filter(|k| full & (1 << k) != 0).fold(block, |acc, k| acc + levels[k])
}

fn is_nan(v: V) -> bool {
    match v {
        V::F(x) => x.is_nan(),
        V::D(x) => x.is_nan(),
        V::I(_) => false,
    }
}

fn gt(a: V, b: V) -> bool {
    match (a, b) {
        (V::F(x), V::F(y)) => x > y,
        (V::I(x), V::I(y)) => x > y,
        (V::D(x), V::D(y)) => x > y,
        _ => unreachable!("one compute type per row"),
    }
}

/// The extreme of `row` (`max`: largest), NaN propagating; `None` when empty.
fn extreme(row: impl Iterator<Item = V>, max: bool) -> Option<(usize, V)> {
    let mut best: Option<(usize, V)> = None;
    for (i, v) in row.enumerate() {
        best = match best {
            None => Some((i, v)),
            Some((_, b)) if is_nan(b) => best,
            Some(_) if is_nan(v) => Some((i, v)),
            Some((_, b)) if (max && gt(v, b)) || (!max && gt(b, v)) => Some((i, v)),
            _ => best,
        };
    }
    best
}

/// `x / max(0, n - correction)`, with x / 0 = inf and 0 / 0 = NaN. Three passes, as
/// `shaders/reduce.wgsl`: the mean, the mean refined by the mean deviation from it (a float32 sum
/// of n values rounds at n times their size, so the first mean can be ulps off, which would show
/// in a small variance of large values), then the squared deviations.
fn var(row: &Row, correction: f32) -> f32 {
    let n = row.len() as f32;
    let mean = cascade_sum(floats(row)) / n;
    let mean = mean + cascade_sum(floats(row).map(|x| x - mean)) / n;
    let ss = cascade_sum(floats(row).map(|x| (x - mean) * (x - mean)));
    ss / (n - correction).max(0.0)
}

/// `var` in f64 (float64 rows), the same three passes.
fn var64(row: &Row, correction: f64) -> f64 {
    let n = row.len() as f64;
    let mean = cascade(doubles(row)) / n;
    let mean = mean + cascade(doubles(row).map(|x| x - mean)) / n;
    let ss = cascade(doubles(row).map(|x| (x - mean) * (x - mean)));
    ss / (n - correction).max(0.0)
}

/// The float-valued reductions of a float64 row, in f64 (`None`: the op is computed by
/// `reduce_row`'s generic arms: extremes, indices, tests and counts).
fn reduce_f64(op: ReduceOp, row: &Row, p: f64) -> Option<f64> {
    use ReduceOp::*;
    Some(match op {
        Sum => cascade(doubles(row)),
        Mean => cascade(doubles(row)) / row.len() as f64,
        Prod => doubles(row).product(),
        Var => var64(row, p),
        Std => var64(row, p).sqrt(),
        LogSumExp => {
            let m = extreme(doubles(row).map(V::D), true).map_or(0.0, |(_, v)| dbl(v));
            let m = if m.is_infinite() { 0.0 } else { m };
            cascade(doubles(row).map(|x| (x - m).exp())).ln() + m
        }
        Norm1 => cascade(doubles(row).map(f64::abs)),
        Norm2 => cascade(doubles(row).map(|x| x * x)).sqrt(),
        NormP => cascade(doubles(row).map(|x| x.abs().powf(p))).powf(1.0 / p),
        NormInf | NormNegInf => {
            extreme(doubles(row).map(|x| V::D(x.abs())), op == NormInf).map_or(0.0, |(_, v)| dbl(v))
        }
        _ => return None,
    })
}

/// The reduction of `row` by `op`, in the compute type the result is stored from.
pub(super) fn reduce_row(op: ReduceOp, row: &Row, param: f64, float: bool) -> V {
    use ReduceOp::*;
    if row.compute == Compute::F64 {
        if let Some(x) = reduce_f64(op, row, param) {
            return V::D(x);
        }
    }
    let p = param as f32;
    match op {
        Sum | Mean if !float => V::I(row.iter().fold(0i32, |s, v| s.wrapping_add(int(v)))),
        Sum => V::F(cascade_sum(floats(row))),
        Mean => V::F(cascade_sum(floats(row)) / row.len() as f32),
        Prod if !float => V::I(row.iter().fold(1i32, |s, v| s.wrapping_mul(int(v)))),
        Prod => V::F(floats(row).product()),
        Max | Min => extreme(row.iter(), op == Max).map_or(V::I(0), |(_, v)| v),
        ArgMax | ArgMin => V::I(extreme(row.iter(), op == ArgMax).map_or(0, |(i, _)| i as i32)),
        All => V::I(row.iter().all(nonzero) as i32),
        Any => V::I(row.iter().any(nonzero) as i32),
        CountNonzero => V::I(row.iter().filter(|v| nonzero(*v)).count() as i32),
        Var => V::F(var(row, p)),
        Std => V::F(var(row, p).sqrt()),
        LogSumExp => {
            let m = extreme(row.iter(), true).map_or(0.0, |(_, v)| f(v));
            let m = if m.is_infinite() { 0.0 } else { m };
            V::F(cascade_sum(floats(row).map(|x| (x - m).exp())).ln() + m)
        }
        Norm0 => V::F(row.iter().filter(|v| nonzero(*v)).count() as f32),
        Norm1 => V::F(cascade_sum(floats(row).map(f32::abs))),
        Norm2 => V::F(cascade_sum(floats(row).map(|x| x * x)).sqrt()),
        NormP => V::F(cascade_sum(floats(row).map(|x| x.abs().powf(p))).powf(1.0 / p)),
        NormInf | NormNegInf => {
            extreme(floats(row).map(|x| V::F(x.abs())), op == NormInf).map_or(V::F(0.0), |(_, v)| v)
        }
    }
}

fn f(v: V) -> f32 {
    match v {
        V::F(x) => x,
        V::I(x) => x as f32,
        V::D(x) => x as f32,
    }
}

fn dbl(v: V) -> f64 {
    match v {
        V::F(x) => x as f64,
        V::I(x) => x as f64,
        V::D(x) => x,
    }
}

fn int(v: V) -> i32 {
    match v {
        V::F(x) => x as i32,
        V::I(x) => x,
        V::D(x) => x as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::{cascade_sum, var, Row};
    use crate::dtype::{Compute, DType};

    #[test]
    fn var_refines_the_mean() {
        // 10^4 plus multiples of float32's spacing there: the float32 sum of 10^6 of them rounds
        // at 1024, putting the first mean a spacing off, which alone would add 1e-6 (4 %).
        let xs: Vec<f64> = (0..1_000_000).map(|i| 1e4 + (i % 17) as f64 / 1024.0).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let exact = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (xs.len() - 1) as f64;
        let words: Vec<u32> = xs.iter().map(|&x| (x as f32).to_bits()).collect();
        let v = var(&Row { words: &words, dtype: DType::Float32, compute: Compute::F32 }, 1.0);
        assert!((v as f64 - exact).abs() < 1e-4 * exact, "{v} against {exact}");
        // A constant whose mean is exact: exactly 0.
        let sevens = vec![7f32.to_bits(); 1000];
        assert_eq!(var(&Row { words: &sevens, dtype: DType::Float32, compute: Compute::F32 }, 1.0), 0.0);
    }

    #[test]
    fn cascade_sums_stay_accurate() {
        // A plain f32 running sum stops growing at 2^24; the cascade is exact here.
        assert_eq!(cascade_sum(std::iter::repeat_n(1.0, (1 << 24) + 1000)), (1u32 << 24) as f32 + 1000.0);
        // 10^6 × 0.1: a running sum is 1 % off; PyTorch's cascade gives 100000 within a few ulps.
        let s = cascade_sum(std::iter::repeat_n(0.1f32, 1_000_000));
        assert!((s - 100_000.0).abs() < 0.05, "{s}");
        assert_eq!(cascade_sum(std::iter::empty()), 0.0);
        assert_eq!(cascade_sum([1.5, -2.0, 4.0].into_iter()), 3.5);
    }
}
