"""The import cycles of the Rust core: modules of `src/` as nodes, every `crate::a::b` and
`super::a` path (`use` lines and inline paths, `{…}` groups one level deep) as an edge to the
deepest module it names; prints the module count and the size of the largest strongly connected
component (`-v`: its modules).

    python3 scripts/module-cycles.py src [-v]
"""
import os, re, sys
root = sys.argv[1]
mods = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith('.rs'): continue
        p = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
        if p[-1] in ('mod', 'lib'): p = p[:-1]
        mods['::'.join(p)] = os.path.join(d, f)
def resolve(path):
    parts = path.split('::')
    for i in range(len(parts), 0, -1):
        m = '::'.join(parts[:i])
        if m in mods: return m
    return None
edges = {m: set() for m in mods}
for m, f in mods.items():
    src = open(f).read()
    # crate::x::y paths, including those inside `use crate::{a::b, c}` groups (first level only)
    for g in re.finditer(r'crate::\{([^}]*)\}', src):
        for item in g.group(1).split(','):
            t = resolve(item.strip().split('::{')[0].replace(' ', ''))
            if t and t != m: edges[m].add(t)
    for g in re.finditer(r'crate((?:::\w+)+)', src):
        t = resolve(g.group(1)[2:])
        if t and t != m: edges[m].add(t)
    # super:: paths (and `super::{a, b::c}` groups); `super` of module a::b is a
    sup = (m.split('::') if m else [])[:-1]
    for g in re.finditer(r'\bsuper::\{([^}]*)\}', src):
        for item in g.group(1).split(','):
            t = resolve('::'.join(sup + [x for x in item.strip().split('::{')[0].replace(' ', '').split('::') if x]))
            if t and t != m: edges[m].add(t)
    for g in re.finditer(r'\bsuper((?:::\w+)*)', src):
        t = resolve('::'.join(sup + [x for x in g.group(1).split('::') if x]))
        if t and t != m: edges[m].add(t)
# Tarjan
sys.setrecursionlimit(10000)
idx, low, on, st, comps, n = {}, {}, set(), [], [], [0]
def sc(v):
    idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = st.pop(); on.discard(w); c.append(w)
            if w == v: break
        comps.append(c)
for v in edges:
    if v not in idx: sc(v)
big = max(comps, key=len)
print(len(mods), 'modules; largest SCC', len(big))
if '-v' in sys.argv: print(sorted(big))
