// Fused optimizer step (torch.optim; mod.rs builds it): one invocation per element of a
// parameter group's flat buffers. `x` holds the parameters (words 0..n) and their gradients
// (n..2n); `st` holds the optimizer state, role r of element e at st[base_r + e]. Each update
// is PyTorch's single-tensor algorithm op for op in f32; cpu.rs is its twin and mod.rs
// lists the scalars of each kind.
// meta: [0] first element, [1] elements, [2] n, [3] invocations per grid row, [4] flags,
//       [5..8) role bases, [8..24) f32 scalars.
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> st: array<f32>;

const MAXIMIZE = 1u;
const WEIGHT_DECAY = 2u;
const DECOUPLED = 4u;
const MOMENTUM = 8u;
const NESTEROV = 16u;
const AMSGRAD = 32u;
const CENTERED = 64u;
const FIRST = 128u;
const BRANCH = 256u;

fn c(i: u32) -> f32 { return bitcast<f32>(m(8u + i)); }
fn has(f: u32) -> bool { return (m(4u) & f) != 0u; }
fn sget(r: u32, e: u32) -> f32 { return st[m(5u + r) + e]; }
fn sput(r: u32, e: u32, v: f32) { st[m(5u + r) + e] = v; }

// torch.lerp's formula (ATen: the weight picks the end to interpolate from).
fn lerp_t(a: f32, b: f32, w: f32) -> f32 {
    if (w < 0.5) { return a + w * (b - a); }
    return b - (b - a) * (1.0 - w);
}

// torch.sign: 0 for ±0, NaN stays NaN.
fn sgn(v: f32) -> f32 {
    if (v > 0.0) { return 1.0; }
    if (v < 0.0) { return -1.0; }
    return v * 0.0;
}

fn sgd(e: u32, param: f32, g0: f32) -> f32 {
    var g = g0;
    if (has(MOMENTUM)) {
        var b = g;
        if (!has(FIRST)) { b = sget(0u, e) * c(2u) + c(3u) * g; }
        sput(0u, e, b);
        g = b;
        if (has(NESTEROV)) { g = g0 + c(2u) * b; }
    }
    return param + -c(1u) * g;
}

fn adam(e: u32, param: f32, g: f32) -> f32 {
    let mv = lerp_t(sget(0u, e), g, c(2u));
    let v = sget(1u, e) * c(3u) + g * c(4u) * g;
    sput(0u, e, mv);
    sput(1u, e, v);
    var second = v;
    if (has(AMSGRAD)) {
        second = max(sget(2u, e), v);
        sput(2u, e, second);
    }
    let denom = sqrt(second) / c(5u) + c(6u);
    return param + c(7u) * (mv / denom);
}

fn rmsprop(e: u32, param: f32, g: f32) -> f32 {
    let sq = sget(0u, e) * c(2u) + g * c(3u) * g;
    sput(0u, e, sq);
    var avg = sqrt(sq);
    if (has(CENTERED)) {
        let ga = lerp_t(sget(2u, e), g, c(3u));
        sput(2u, e, ga);
        avg = sqrt(sq - ga * ga);
    }
    avg = avg + c(4u);
    if (has(MOMENTUM)) {
        let b = sget(1u, e) * c(5u) + g / avg;
        sput(1u, e, b);
        return param + -c(1u) * b;
    }
    return param + -c(1u) * (g / avg);
}

fn adagrad(e: u32, param: f32, g: f32) -> f32 {
    let sum = sget(0u, e) + g * g;
    sput(0u, e, sum);
    let sd = sqrt(sum) + c(1u);
    return param + c(2u) * (g / sd);
}

fn adamax(e: u32, param: f32, g: f32) -> f32 {
    let mv = lerp_t(sget(0u, e), g, c(1u));
    let u = max(sget(1u, e) * c(2u), abs(g) + c(3u));
    sput(0u, e, mv);
    sput(1u, e, u);
    return param + c(4u) * (mv / u);
}

fn nadam(e: u32, param: f32, g: f32) -> f32 {
    let mv = lerp_t(sget(0u, e), g, c(2u));
    let v = sget(1u, e) * c(3u) + g * c(4u) * g;
    sput(0u, e, mv);
    sput(1u, e, v);
    let denom = sqrt(v / c(5u)) + c(6u);
    let a = param + c(7u) * (g / denom);
    return a + c(8u) * (mv / denom);
}

fn radam(e: u32, param: f32, g: f32) -> f32 {
    let mv = lerp_t(sget(0u, e), g, c(2u));
    let v = sget(1u, e) * c(3u) + g * c(4u) * g;
    sput(0u, e, mv);
    sput(1u, e, v);
    let corrected = mv / c(5u) * c(6u);
    if (has(BRANCH)) {
        let adaptive = c(8u) / (sqrt(v) + c(7u));
        return param - corrected * adaptive * c(9u);
    }
    return param - corrected;
}

fn asgd(e: u32, param: f32, g: f32) -> f32 {
    let q = param * c(1u) + c(2u) * g;
    var ax = q;
    if (has(BRANCH)) {
        let a = sget(0u, e);
        ax = a + (q - a) * c(3u);
    }
    sput(0u, e, ax);
    return q;
}

fn adadelta(e: u32, param: f32, g: f32) -> f32 {
    let sq = sget(0u, e) * c(1u) + g * c(2u) * g;
    sput(0u, e, sq);
    let sd = sqrt(sq + c(3u));
    let delta = sqrt(sget(1u, e) + c(3u)) / sd * g;
    sput(1u, e, sget(1u, e) * c(1u) + delta * c(2u) * delta);
    return param + c(4u) * delta;
}

fn rprop(e: u32, param: f32, g0: f32) -> f32 {
    var size = sget(1u, e);
    if (has(FIRST)) { size = c(5u); }
    let prod = sgn(g0 * sget(0u, e));
    var factor = 1.0;
    if (prod > 0.0) { factor = c(2u); } else if (prod < 0.0) { factor = c(1u); }
    size = min(max(size * factor, c(3u)), c(4u));
    var g = g0;
    if (factor == c(1u)) { g = 0.0; }
    sput(0u, e, g);
    sput(1u, e, size);
    return param - sgn(g) * size;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * m(3u) + gid.x;
    if (i >= m(1u)) { return; }
    let e = m(0u) + i;
    let p = x[e];
    var g = x[m(2u) + e];
    if (has(MAXIMIZE)) { g = -g; }
    var param = p;
    if (has(WEIGHT_DECAY)) {
        if (has(DECOUPLED)) { param = p * c(1u); } else { g = g + c(0u) * p; }
    }
    x[e] = /*{{UPDATE}}*/(e, param, g);
}
