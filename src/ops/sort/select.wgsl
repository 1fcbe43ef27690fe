// The k-th smallest element of each row as PyTorch's CPU kthvalue finds it: a quickselect over a
// scratch copy of the row (interleaved key, index), median-of-three pivot, the classic
// two-pointer partition, NaN above everything; the index that ends at position k is the answer,
// so among equal values it is the one this partitioning leaves there. One invocation per row.
// meta: [0] rows, [1] n, [2] input offset, [3] k (0-based), [4] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<i32>;
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@group(0) @binding(3) var<storage, read> inp: array<u32>;

// Whether key x goes after key y: greater, or NaN over a number.
fn gt_or_nan(x: u32, y: u32) -> bool {
    let a = bitcast</*{{T}}*/>(x);
    let b = bitcast</*{{T}}*/>(y);
/*{{GT}}*/
}

fn key(base: u32, i: i32) -> u32 { return data[2u * (base + u32(i))]; }

fn gt_at(base: u32, i: i32, j: i32) -> bool { return gt_or_nan(key(base, i), key(base, j)); }

fn swap(base: u32, i: i32, j: i32) {
    let a = 2u * (base + u32(i));
    let b = 2u * (base + u32(j));
    let ak = data[a];
    let ai = data[a + 1u];
    data[a] = data[b];
    data[a + 1u] = data[b + 1u];
    data[b] = ak;
    data[b + 1u] = ai;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y * m(4u) + gid.x;
    if (row >= m(0u)) { return; }
    let n = m(1u);
    let base = row * n;
    for (var j = 0u; j < n; j++) {
        data[2u * (base + j)] = inp[m(2u) + base + j];
        data[2u * (base + j) + 1u] = j;
    }
    let k = i32(m(3u));
    var lo = 0;
    var hi = i32(n) - 1;
    loop {
        if (hi <= lo) { break; }
        if (hi == lo + 1) {
            if (gt_at(base, lo, hi)) { swap(base, lo, hi); }
            break;
        }
        // The median of the first, middle and last as the pivot, left at lo.
        swap(base, (lo + hi) / 2, lo + 1);
        if (gt_at(base, lo + 1, hi)) { swap(base, lo + 1, hi); }
        if (gt_at(base, lo, hi)) { swap(base, lo, hi); }
        if (gt_at(base, lo + 1, lo)) { swap(base, lo + 1, lo); }
        let piv = key(base, lo);
        var i = lo + 1;
        var j = hi;
        loop {
            i += 1;
            while (gt_or_nan(piv, key(base, i))) { i += 1; }
            j -= 1;
            while (gt_or_nan(key(base, j), piv)) { j -= 1; }
            if (j < i) { break; }
            swap(base, i, j);
        }
        swap(base, lo, j);
        if (j <= k) { lo = i; }
        if (j >= k) { hi = j - 1; }
    }
    out[row] = i32(data[2u * (base + u32(k)) + 1u]);
}
