// F.nll_loss forward (nll.rs, NllLoss): row i's loss is -w[t]·x[i, t] with t = tgt[i]; rows whose
// target is ignore_index or outside [0, c) count for nothing (a kernel cannot throw: the host
// checked the targets). One kernel whatever the reduction, instead of a one-hot product and its
// reductions:
// - reduction 'none': one invocation per row writes its loss.
// - 'sum' / 'mean': one workgroup loops over the rows, reduces Σ loss and Σ w[t] in workgroup
//   memory and writes [loss, total weight] ('mean': the sum over the total; the backward divides
//   by the same total).
// meta: [0] n rows, [1] c classes, [2] ignore_index (i32 bits; -1 when outside [0, c), which
//       class_of rejects anyway), [3] 1 when a weight is bound, [4] x offset, [5] x row stride,
//       [6] x class stride, [7] tgt offset, [8] tgt stride, [9] w offset, [10] w stride,
//       [11] reduction (0 none, 1 sum, 2 mean), [12] invocations per grid row.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> tgt: array<i32>;
// Without a weight the host binds `x` here and sets meta[3] to 0.
@group(0) @binding(4) var<storage, read> w: array<f32>;

var<workgroup> part_loss: array<f32, 256>;
var<workgroup> part_weight: array<f32, 256>;

// Row i's class, or -1 when the row does not count.
fn class_of(i: u32) -> i32 {
    let t = tgt[m(7u) + i * m(8u)];
    if (t < 0 || u32(t) >= m(1u) || t == bitcast<i32>(m(2u))) { return -1; }
    return t;
}

fn weight_of(t: u32) -> f32 {
    if (m(3u) == 0u) { return 1.0; }
    return w[m(9u) + t * m(10u)];
}

// Row i's (loss, weight); (0, 0) when it does not count (never -0·x, which is NaN for x = -inf).
fn row(i: u32) -> vec2<f32> {
    let t = class_of(i);
    if (t < 0) { return vec2<f32>(0.0, 0.0); }
    let wt = weight_of(u32(t));
    return vec2<f32>(-wt * x[m(4u) + i * m(5u) + u32(t) * m(6u)], wt);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let n = m(0u);
    if (m(11u) == 0u) {
        let i = gid.y * m(12u) + gid.x;
        if (i < n) { out[i] = row(i).x; }
        return;
    }
    // (A branch on a uniform word: the barriers below stay in uniform control flow.)
    // A cascade (bench/KERNELS.md, "Summation order"): rows into `block`, every 32nd row's
    // `block` into `group`, every 1024th's `group` into `acc`.
    var acc = vec2<f32>(0.0, 0.0);
    var group = acc;
    var block = acc;
    var taken = 0u;
    for (var i = lid; i < n; i += 256u) {
        block += row(i);
        taken++;
        if ((taken & 31u) == 0u) {
            group += block;
            block = vec2<f32>(0.0, 0.0);
            if ((taken & 1023u) == 0u) {
                acc += group;
                group = vec2<f32>(0.0, 0.0);
            }
        }
    }
    acc = (acc + group) + block;
    part_loss[lid] = acc.x;
    part_weight[lid] = acc.y;
    for (var s = 128u; s > 0u; s >>= 1u) {
        workgroupBarrier();
        if (lid < s) {
            part_loss[lid] += part_loss[lid + s];
            part_weight[lid] += part_weight[lid + s];
        }
    }
    if (lid == 0u) {
        let total = part_loss[0];
        let tw = part_weight[0];
        var r = total;
        if (m(11u) == 2u) {
            // An all-ignored batch gives 0/0 = NaN, as PyTorch; spelled out because WGSL may
            // assume no NaN or inf arises from arithmetic.
            r = total / tw;
            if (tw == 0.0) { r = select(inf_like(total), nan_like(total), total == 0.0); }
        }
        out[0] = r;
        out[1] = tw;
    }
}
