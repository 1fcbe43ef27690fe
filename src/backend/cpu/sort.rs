//! CPU reference scans, sorts and binary searches over contiguous rows, in the orders the WGSL
//! kernels (`shaders/scan.wgsl`, `shaders/sort.wgsl`) define: sequential scans in f32 / i32,
//! stable sorts with NaN above +inf, and PyTorch's binary search (NaN compares false).

use std::cmp::Ordering;

use super::CpuBackend;
use crate::backend::{Scan, ScanOp, SearchSorted, Sort};
use crate::dtype::{Compute, DType};

/// A row element as the kernels compare it.
#[derive(Clone, Copy)]
enum Key {
    F(f32),
    I(i64),
}

fn key(word: u32, dtype: DType) -> Key {
    match dtype.compute() {
        Compute::F32 => Key::F(f32::from_bits(word)),
        Compute::I32 => Key::I(word as i32 as i64),
        Compute::U32 => Key::I(word as i64),
    }
}

/// Total order with NaN greatest (NaNs equal to each other).
fn cmp(a: Key, b: Key) -> Ordering {
    match (a, b) {
        (Key::F(a), Key::F(b)) => match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        },
        (Key::I(a), Key::I(b)) => a.cmp(&b),
        _ => Ordering::Equal,
    }
}

impl CpuBackend {
    pub(super) fn scan_impl(&self, k: &Scan) {
        let words = self.with_buf(k.input, |b| b[k.offset..k.offset + k.rows * k.n].to_vec());
        let mut out = vec![0u32; words.len()];
        let float = k.dtype.compute() == Compute::F32;
        for (row, o) in words.chunks(k.n.max(1)).zip(out.chunks_mut(k.n.max(1))) {
            match k.op {
                ScanOp::Sum | ScanOp::Prod | ScanOp::LogSumExp if float => {
                    let mut acc = match k.op {
                        ScanOp::Sum => 0.0f32,
                        ScanOp::Prod => 1.0,
                        _ => f32::NEG_INFINITY,
                    };
                    for (w, o) in row.iter().zip(o.iter_mut()) {
                        let x = f32::from_bits(*w);
                        acc = match k.op {
                            ScanOp::Sum => acc + x,
                            ScanOp::Prod => acc * x,
                            _ => log_add_exp(acc, x),
                        };
                        *o = acc.to_bits();
                    }
                }
                ScanOp::Sum | ScanOp::Prod => {
                    let mut acc: i32 = if k.op == ScanOp::Sum { 0 } else { 1 };
                    for (w, o) in row.iter().zip(o.iter_mut()) {
                        let x = *w as i32;
                        acc = if k.op == ScanOp::Sum { acc.wrapping_add(x) } else { acc.wrapping_mul(x) };
                        *o = acc as u32;
                    }
                }
                ScanOp::LogSumExp => unreachable!("logcumsumexp of an integer dtype is refused above"),
                ScanOp::Max | ScanOp::Min => {
                    let mut best: Option<(Key, usize)> = None;
                    for (j, (w, o)) in row.iter().zip(o.iter_mut()).enumerate() {
                        let x = key(*w, k.dtype);
                        // PyTorch's rule: the later element wins when it is NaN or not beyond the
                        // running extreme (`x >= best` for max); a NaN extreme sticks.
                        let later_wins = match best {
                            None => true,
                            Some((b, _)) => match (x, b) {
                                (Key::F(x), _) if x.is_nan() => true,
                                (_, Key::F(b)) if b.is_nan() => false,
                                _ => {
                                    let c = cmp(x, b);
                                    if k.op == ScanOp::Max {
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
        self.put(k.out, out);
    }

    pub(super) fn sort_impl(&self, k: &Sort) {
        let words = self.with_buf(k.input, |b| b[k.offset..k.offset + k.rows * k.n].to_vec());
        let mut out = Vec::with_capacity(words.len());
        for row in words.chunks(k.n.max(1)) {
            let mut perm: Vec<usize> = (0..row.len()).collect();
            // `sort_by` is stable: ties keep their original order, as the GPU's (key, index) order.
            perm.sort_by(|&a, &b| {
                let c = cmp(key(row[a], k.dtype), key(row[b], k.dtype));
                if k.descending {
                    c.reverse()
                } else {
                    c
                }
            });
            out.extend(perm.into_iter().map(|j| j as u32));
        }
        self.put(k.out, out);
    }

    pub(super) fn search_sorted_impl(&self, k: &SearchSorted) {
        let sorted = self.with_buf(k.sorted, |b| {
            let rows = if k.shared { 1 } else { k.rows };
            b[k.sorted_offset..k.sorted_offset + rows * k.m].to_vec()
        });
        let values = self.with_buf(k.values, |b| b[k.values_offset..k.values_offset + k.rows * k.n].to_vec());
        let mut out = Vec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            let r = if k.shared { 0 } else { i / k.n.max(1) };
            let row = &sorted[r * k.m..(r + 1) * k.m];
            let v = key(*v, k.dtype);
            // PyTorch's loop: move right while !(s >= v) (`right`: !(s > v)); NaN compares false.
            let go_right = |s: u32| match (key(s, k.dtype), v) {
                (Key::F(s), Key::F(v)) => !(if k.right { s > v } else { s >= v }),
                (s, v) => {
                    let c = cmp(s, v);
                    !(if k.right { c == Ordering::Greater } else { c != Ordering::Less })
                }
            };
            // The same bisection as the kernel (a NaN in the row makes the predicate unordered,
            // so the probe sequence matters).
            let (mut lo, mut hi) = (0, row.len());
            while lo < hi {
                let mid = (lo + hi) / 2;
                if go_right(row[mid]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            let pos = lo;
            out.push(pos as u32);
        }
        self.put(k.out, out);
    }
}

/// log(exp(a) + exp(b)), stable; -inf when both are -inf, NaN when either is.
pub(super) fn log_add_exp(a: f32, b: f32) -> f32 {
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
