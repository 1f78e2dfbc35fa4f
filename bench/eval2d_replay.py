#!/usr/bin/env python3
"""bench/eval2d_replay.py - replay a 2-D plan's answers offline from an
EVAL_DUMP=1 log of bench/eval2d.c (one application's section: its plan
dump, tree, points and evaluation lines), with and without split
families (skel.h _skel_split_kin): for each evaluation point, the leaf
that holds it, the variant each rule answers there (closed leaves: their
winner; open ones: the least bilinearly interpolated time, the split
margin and the CPU tie rule as in skel.h) and that variant's measured
time at the point, forced (a split not in the evaluation's list: the one
over the same places with the nearest host share).  Prints per point and
the mean accuracy (capped at 1) and points below 0.8 of each rule.

It is an estimate, not a measurement: the real plan interpolates only a
leaf's candidates (at most 4), and a tuned call's time differs from the
forced variant's by the run's noise.

    python3 bench/eval2d_replay.py SECTION.txt
"""
import re, sys
NUM = r'([0-9.]+(?:e[+-]?\d+)?)'
pts = {}; nodes = []; evals = []
for l in open(sys.argv[1]).read().split('\n'):
    m = re.match(r'^  p(\d+) (\d+) x (\d+) \[.*?\]:  (.*)$', l)        # a tuning point: name R+F ...
    if m:
        toks = re.findall(r'(split\[[^\]]*\]|\S+) ' + NUM + r'\+' + NUM, m.group(4))
        pts[int(m.group(1))] = dict(x=(int(m.group(2)), int(m.group(3))), t={n: float(r) + float(f) for n, r, f in toks})
        continue
    m = re.match(r'^\s+#(\d+) \[(\d+), (\d+)\] x \[(\d+), (\d+)\] corners (.*) -> (.*)$', l)   # a tree node
    if m:
        nodes.append(dict(lo=(int(m.group(2)), int(m.group(4))), hi=(int(m.group(3)), int(m.group(5))),
                          c=[int(c) for c in re.findall(r'p(\d+):', m.group(6))], kind=m.group(7)))
        continue
    m = re.match(r'^(\d+) x (\d+) \(plan: ([^)]*)\): tuned ([0-9.e+-]+) (.*)$', l)   # an evaluation point
    if m:   # (split names there are cut to 31 characters)
        toks = re.findall(r'(split\[.{25}|[\w/]+) ' + NUM + r'(?:\(dropped\))?', m.group(5))
        evals.append(dict(x=(int(m.group(1)), int(m.group(2))), plan=m.group(3), tuned=float(m.group(4)),
                          t=[(n, float(v)) for n, v in toks]))
def issplit(n): return n.startswith('split[')
def parts(n):
    ps=n[6:-1].split('|'); out=[]
    for p in ps:
        nm,sh=p.rsplit(' ',1); b=nm.split('/')[0]; th=nm.split('/')[1] if b in('pool',) else ''
        out.append((b,th))
    return tuple(out)
TOL=0.03
def threads(n):
    if n=='seq': return 1
    if n.startswith('pool/'): return int(n.split('/')[1])
    return 0
def tie_break(tv):
    if not tv: return None
    best=min(tv,key=tv.get)
    if issplit(best):
        singles=[n for n in tv if not issplit(n)]
        if singles:
            one=min(singles,key=tv.get)
            if tv[one]<=tv[best]*(1+2*TOL): best=one
    if not threads(best): return best
    b=best
    for n in tv:
        if tv[n]<=tv[best]*(1+TOL) and threads(n)>threads(b): b=n
    return b
def weight(nd,x,k):
    w=1
    for d in range(2):
        lo,hi=nd['lo'][d],nd['hi'][d]; f=(x[d]-lo)/(hi-lo) if hi>lo else 0
        w*= f if (k>>d)&1 else 1-f
    return w
allnames=set()
for p in pts.values(): allnames|=set(p['t'])
def interp(nd,x,family):
    tv={}
    cs=[pts[c] for c in nd['c']]
    cands=[n for n in allnames if not issplit(n) or any(n in c['t'] for c in cs)]
    for n in cands:
        s=0; ok=True
        for k,c in enumerate(cs):
            if n in c['t']: t=c['t'][n]
            else:
                kin=[m for m in c['t'] if issplit(m) and issplit(n) and parts(m)==parts(n)] if family else []
                if kin: t=min(c['t'][m] for m in kin)
                else: t=2*min(c['t'].values())
            s+=t*weight(nd,x,k)
        tv[n]=s
    b=tie_break(tv)
    if family and issplit(b):
        bw=-1
        for k,c in enumerate(cs):
            kin=[m for m in c['t'] if issplit(m) and parts(m)==parts(b)]
            if kin and weight(nd,x,k)>bw: bw=weight(nd,x,k); bb=min(kin,key=lambda m:c['t'][m])
        b=bb
    return b
def leaf(x):
    for nd in nodes:
        if nd['kind'].startswith('split'): continue
        if all(nd['lo'][d]<=x[d]<=nd['hi'][d] for d in range(2)): return nd
def tparts(n):
    m=re.match(r'split\[(\S+) ([0-9.]+)\|(\w+)',n)
    return (m.group(1),m.group(3),float(m.group(2))) if m else None
def evtime(e,name):
    for n,v in e['t']:
        if name==n or (issplit(name) and n.startswith('split[') and name.startswith(n)): return v
    if issplit(name):
        a=tparts(name); c=[(abs(tparts(n)[2]-a[2]),v) for n,v in e['t'] if issplit(n) and tparts(n) and tparts(n)[:2]==a[:2]]
        if c: return min(c)[1]
    return None
accs={0:[],1:[]}
for e in evals:
    nd=leaf(e['x'])
    if nd is None:
        print('no leaf',e['x']); continue
    best=min(v for n,v in e['t'])
    row=[]
    for fam in (0,1):
        if nd['kind'].startswith('closed'): ch=nd['kind'].split(': ',1)[1]
        else: ch=interp(nd,e['x'],fam)
        t=evtime(e,ch)
        acc=min(1,best/t) if t else None
        accs[fam].append(acc if acc is not None else float('nan')); row.append((ch[:34],t,acc))
    print(e['x'],'plan',e['plan'],'| old',row[0][0],'%.2f'%(row[0][2] or -1),'| new',row[1][0],'%.2f'%(row[1][2] or -1))
for fam in (0,1):
    a=accs[fam]; print('family' if fam else 'old', 'mean %.3f'%(sum(a)/len(a)), 'below 0.8:', sum(1 for v in a if v<0.8))
