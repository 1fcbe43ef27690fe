//! The CPU twins of the family's programs, reading the same uniform words: sequential scans in
//! f32 / i32 (`scan.wgsl`; float64, a CPU-only dtype, in f64), stable sorts with NaN above +inf (`sort.wgsl`), and PyTorch's binary
//! search, NaN comparing false (`search_sorted.wgsl`), and PyTorch's quickselect (`select.wgsl`).

use std::cmp::Ordering;

use super::scan::{self, ScanOp};
use crate::backend::Words;
use crate::dtype::{Compute, DType};
use crate::error::Result;

/// A row element as the kernels compare it.
#[derive(Clone, Copy)]
enum Key {
    F(f32),
    I(i64),
    D(f64),
}

fn key(word: u32, dtype: DType) -> Key {
    match dtype.compute() {
        Compute::F32 => Key::F(f32::from_bits(word)),
        Compute::I32 => Key::I(word as i32 as i64),
        Compute::U32 => Key::I(word as i64),
        Compute::F64 => unreachable!("a float64 key is two words (`key_at`)"),
    }
}

/// Element `i` of a row of `dtype` words (float64: two words an element, low first).
fn key_at(words: &[u32], i: usize, dtype: DType) -> Key {
    if dtype == DType::Float64 {
        Key::D(crate::dtype::f64_at(words, i))
    } else {
        key(words[i], dtype)
    }
}

/// A float's place in the order with NaN greatest (NaNs equal to each other).
fn cmp_nan_last<T: PartialOrd>(a: T, b: T, a_nan: bool, b_nan: bool) -> Ordering {
    match (a_nan, b_nan) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Total order with NaN greatest (NaNs equal to each other).
fn cmp(a: Key, b: Key) -> Ordering {
    match (a, b) {
        (Key::F(a), Key::F(b)) => cmp_nan_last(a, b, a.is_nan(), b.is_nan()),
        (Key::D(a), Key::D(b)) => cmp_nan_last(a, b, a.is_nan(), b.is_nan()),
        (Key::I(a), Key::I(b)) => a.cmp(&b),
        _ => Ordering::Equal,
    }
}

/// The twin of `scan.wgsl` (words 0: rows, 1: n, 2: input offset): each row's inclusive scan,
/// sequentially.
pub(super) fn scan(w: &mut Words) -> Result<()> {
    let (op, dtype) = scan::from_variant(w.variant);
    if dtype == DType::Float64 {
        return scan64(w, op);
    }
    let (rows, n, offset) = (w.at(0), w.at(1), w.at(2));
    let words = &w.read.get(1)[offset..offset + rows * n];
    let out = &mut w.written[0][..rows * n];
    let float = dtype.compute() == Compute::F32;
    for (row, o) in words.chunks(n.max(1)).zip(out.chunks_mut(n.max(1))) {
        match op {
            ScanOp::Sum | ScanOp::Prod | ScanOp::LogSumExp if float => {
                let mut acc = match op {
                    ScanOp::Sum => 0.0f32,
                    ScanOp::Prod => 1.0,
                    _ => f32::NEG_INFINITY,
                };
                for (w, o) in row.iter().zip(o.iter_mut()) {
                    let x = f32::from_bits(*w);
                    acc = match op {
                        ScanOp::Sum => acc + x,
                        ScanOp::Prod => acc * x,
                        _ => log_add_exp(acc, x),
                    };
                    *o = acc.to_bits();
                }
            }
            ScanOp::Sum | ScanOp::Prod => {
                let mut acc: i32 = if op == ScanOp::Sum { 0 } else { 1 };
                for (w, o) in row.iter().zip(o.iter_mut()) {
                    let x = *w as i32;
                    acc = if op == ScanOp::Sum { acc.wrapping_add(x) } else { acc.wrapping_mul(x) };
                    *o = acc as u32;
                }
            }
            ScanOp::LogSumExp => unreachable!("logcumsumexp of an integer dtype is refused above"),
            ScanOp::Max | ScanOp::Min => {
                let mut best: Option<(Key, usize)> = None;
                for (j, (w, o)) in row.iter().zip(o.iter_mut()).enumerate() {
                    let x = key(*w, dtype);
                    // PyTorch's rule: the later element wins when it is NaN or not beyond the
                    // running extreme (`x >= best` for max); a NaN extreme sticks.
                    let later_wins = match best {
                        None => true,
                        Some((b, _)) => match (x, b) {
                            (Key::F(x), _) if x.is_nan() => true,
                            (_, Key::F(b)) if b.is_nan() => false,
                            _ => {
                                let c = cmp(x, b);
                                if op == ScanOp::Max {
                                    c != Ordering::Less
                                } else {
                                    c != Ordering::Greater
                                }
                            }
                        },
                    };
                    if later_wins {
                        best = Some((x, j));
                    }
                    *o = best.map_or(0, |b| b.1) as u32;
                }
            }
        }
    }
    Ok(())
}

/// The twin of the sort's `init` (words 0: rows, 1: n, 2: P, 3: input offset): each row's words
/// and indices, interleaved, padded to P with (0, index).
pub(super) fn sort_init(w: &mut Words) -> Result<()> {
    let (rows, n, p, offset) = (w.at(0), w.at(1), w.at(2), w.at(3));
    let input = w.read.get(1);
    let data = &mut w.written[0];
    for t in 0..rows * p {
        let (row, j) = (t / p, t % p);
        data[2 * t] = if j < n { input[offset + row * n + j] } else { 0 };
        data[2 * t + 1] = j as u32;
    }
    Ok(())
}

/// The twin of the sort's stages (words 0: rows, 1: n, 2: P, 4: k, 5: j, 7: descending). The network's
/// result is the order of the (key, index) pairs, a total order, so the first step (k = 2, j = 1)
/// puts each row's first n pairs in that order outright, with a stable sort of the keys (NaN
/// above +inf, NaNs equal), and the later steps find them ordered.
pub(super) fn sort_stage(w: &mut Words) -> Result<()> {
    if (w.at(4), w.at(5)) != (2, 1) {
        return Ok(());
    }
    let dtype = DType::ALL[w.variant as usize];
    let (rows, n, p, descending) = (w.at(0), w.at(1), w.at(2), w.m(7) != 0);
    let data = &mut w.written[0][..rows * 2 * p];
    let mut keys = Vec::with_capacity(n);
    for row in data.chunks_mut(2 * p) {
        keys.clear();
        keys.extend(row[..2 * n].chunks(2).map(|pair| pair[0]));
        let mut perm: Vec<usize> = (0..n).collect();
        // `sort_by` is stable: ties keep their original order, as the GPU's (key, index) order.
        perm.sort_by(|&a, &b| {
            let c = cmp(key(keys[a], dtype), key(keys[b], dtype));
            if descending {
                c.reverse()
            } else {
                c
            }
        });
        for (j, &i) in perm.iter().enumerate() {
            row[2 * j] = keys[i];
            row[2 * j + 1] = i as u32;
        }
    }
    Ok(())
}

/// The twin of the sort's `final` (words 0: rows, 1: n, 2: P): the first n indices of each row.
pub(super) fn sort_final(w: &mut Words) -> Result<()> {
    let (rows, n, p) = (w.at(0), w.at(1), w.at(2));
    let data = w.read.get(1);
    for (t, o) in w.written[0][..rows * n].iter_mut().enumerate() {
        *o = data[2 * ((t / n) * p + t % n) + 1];
    }
    Ok(())
}

/// `SORT64` (words 0: rows, 1: n, 2: input offset, 3: descending): each float64 row's stable
/// sort (NaN above +inf, NaNs equal, ties in their original order), its permutation as int32.
pub(super) fn sort64(w: &mut Words) -> Result<()> {
    let (rows, n, offset, descending) = (w.at(0), w.at(1), w.at(2), w.m(3) != 0);
    let input = &w.read.get(1)[2 * offset..2 * (offset + rows * n)];
    let out = &mut w.written[0][..rows * n];
    let mut perm: Vec<usize> = Vec::with_capacity(n);
    for (r, o) in out.chunks_mut(n.max(1)).enumerate() {
        let row = &input[2 * r * n..2 * (r + 1) * n];
        perm.clear();
        perm.extend(0..n);
        perm.sort_by(|&a, &b| {
            let c = cmp(key_at(row, a, DType::Float64), key_at(row, b, DType::Float64));
            if descending {
                c.reverse()
            } else {
                c
            }
        });
        for (o, &i) in o.iter_mut().zip(&perm) {
            *o = i as u32;
        }
    }
    Ok(())
}

/// Whether `a` goes after `b` in PyTorch's selection: greater, or NaN over a number.
fn gt_or_nan(a: Key, b: Key) -> bool {
    match (a, b) {
        (Key::F(a), Key::F(b)) => (a.is_nan() && !b.is_nan()) || a > b,
        (Key::D(a), Key::D(b)) => (a.is_nan() && !b.is_nan()) || a > b,
        (Key::I(a), Key::I(b)) => a > b,
        _ => false,
    }
}

/// The twin of `select.wgsl` (words 0: rows, 1: n, 2: input offset, 3: k): each row's
/// quickselect over (key, index) pairs, the same swaps in the same order, and the index left at
/// position k.
pub(super) fn select(w: &mut Words) -> Result<()> {
    let dtype = DType::ALL[w.variant as usize];
    let (rows, n, offset, k) = (w.at(0), w.at(1), w.at(2), w.at(3) as isize);
    let words = if dtype == DType::Float64 {
        &w.read.get(2)[2 * offset..2 * (offset + rows * n)]
    } else {
        &w.read.get(2)[offset..offset + rows * n]
    };
    let mut a: Vec<(Key, u32)> = Vec::with_capacity(n);
    for (r, o) in w.written[0][..rows].iter_mut().enumerate() {
        a.clear();
        a.extend((0..n).map(|j| (key_at(words, r * n + j, dtype), j as u32)));
        let gt = |a: &[(Key, u32)], i: isize, j: isize| gt_or_nan(a[i as usize].0, a[j as usize].0);
        let (mut lo, mut hi) = (0isize, n as isize - 1);
        loop {
            if hi <= lo {
                break;
            }
            if hi == lo + 1 {
                if gt(&a, lo, hi) {
                    a.swap(lo as usize, hi as usize);
                }
                break;
            }
            // The median of the first, middle and last as the pivot, left at lo.
            a.swap(((lo + hi) / 2) as usize, (lo + 1) as usize);
            for (x, y) in [(lo + 1, hi), (lo, hi), (lo + 1, lo)] {
                if gt(&a, x, y) {
                    a.swap(x as usize, y as usize);
                }
            }
            let piv = a[lo as usize].0;
            let (mut i, mut j) = (lo + 1, hi);
            loop {
                i += 1;
                while gt_or_nan(piv, a[i as usize].0) {
                    i += 1;
                }
                j -= 1;
                while gt_or_nan(a[j as usize].0, piv) {
                    j -= 1;
                }
                if j < i {
                    break;
                }
                a.swap(i as usize, j as usize);
            }
            a.swap(lo as usize, j as usize);
            if j <= k {
                lo = i;
            }
            if j >= k {
                hi = j - 1;
            }
        }
        *o = a[k as usize].1;
    }
    Ok(())
}

/// The twin of `search_sorted.wgsl` (words 0: values, 1: n, 2: m, 3: shared, 4: right, 5–6:
/// the sorted rows' and the values' offsets).
pub(super) fn search_sorted(w: &mut Words) -> Result<()> {
    let dtype = DType::ALL[w.variant as usize];
    let (total, n, m, shared, right) = (w.at(0), w.at(1), w.at(2), w.m(3) != 0, w.m(4) != 0);
    // Words per element (float64: two; its offsets count elements).
    let k = dtype.words();
    let (sorted, values) = (&w.read.get(1)[k * w.at(5)..], &w.read.get(2)[k * w.at(6)..k * (w.at(6) + total)]);
    for (i, o) in w.written[0][..total].iter_mut().enumerate() {
        let r = if shared { 0 } else { i / n.max(1) };
        let row = &sorted[k * r * m..k * (r + 1) * m];
        let v = key_at(values, i, dtype);
        // PyTorch's loop: move right while !(s >= v) (`right`: !(s > v)); NaN compares false.
        let go_right = |at: usize| match (key_at(row, at, dtype), v) {
            (Key::F(s), Key::F(v)) => !(if right { s > v } else { s >= v }),
            (Key::D(s), Key::D(v)) => !(if right { s > v } else { s >= v }),
            (s, v) => {
                let c = cmp(s, v);
                !(if right { c == Ordering::Greater } else { c != Ordering::Less })
            }
        };
        // The same bisection as the kernel (a NaN in the row makes the predicate unordered,
        // so the probe sequence matters).
        let (mut lo, mut hi) = (0, m);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if go_right(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        *o = lo as u32;
    }
    Ok(())
}

/// log(exp(a) + exp(b)), stable; -inf when both are -inf, NaN when either is.
/// `scan` of float64 rows (two words an element, low first), in f64; `Max`/`Min` write int32
/// indices, one word each.
fn scan64(w: &mut Words, op: ScanOp) -> Result<()> {
    let (rows, n, offset) = (w.at(0), w.at(1), w.at(2));
    let words = &w.read.get(1)[2 * offset..2 * (offset + rows * n)];
    let out = &mut w.written[0];
    let x = |i: usize| crate::dtype::f64_at(words, i);
    for r in 0..rows {
        let mut acc = match op {
            ScanOp::Sum => 0.0f64,
            ScanOp::Prod => 1.0,
            _ => f64::NEG_INFINITY,
        };
        let mut best: Option<(f64, usize)> = None;
        for j in 0..n {
            let (at, v) = (r * n + j, x(r * n + j));
            if let ScanOp::Max | ScanOp::Min = op {
                // `scan`'s rule: the later element wins when NaN or not beyond the extreme.
                let later_wins = match best {
                    None => true,
                    Some(_) if v.is_nan() => true,
                    Some((b, _)) if b.is_nan() => false,
                    Some((b, _)) => (op == ScanOp::Max && v >= b) || (op == ScanOp::Min && v <= b),
                };
                if later_wins {
                    best = Some((v, j));
                }
                out[at] = best.map_or(0, |b| b.1) as u32;
                continue;
            }
            acc = match op {
                ScanOp::Sum => acc + v,
                ScanOp::Prod => acc * v,
                _ => log_add_exp64(acc, v),
            };
            crate::dtype::set_f64(out, at, acc);
        }
    }
    Ok(())
}

/// PyTorch's `_log_add_exp_helper` for doubles: `max + log1p(exp(min - max))`, NaN propagating.
fn log_add_exp64(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    let (lo, hi) = (a.min(b), a.max(b));
    if lo != hi || lo.is_finite() {
        hi + (lo - hi).exp().ln_1p()
    } else {
        a
    }
}

fn log_add_exp(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        return f32::NAN;
    }
    let m = a.max(b);
    if m == f32::NEG_INFINITY {
        return m;
    }
    if m == f32::INFINITY {
        return m;
    }
    m + ((a - m).exp() + (b - m).exp()).ln()
}
