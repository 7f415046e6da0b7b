"""h17-d192c: the bandwidth model of simulate_d192.py on v19 / v21 points that were measured (D = 128 /
256, N = 512 / 1k, the rule's groups vs one pair per group vs the ascending walk), to see how far
its numbers can be read."""
import importlib.util, os, statistics, sys
R="/work/h17-d192c/bench/results/sm90-fwd-h100-2026-11-23-s12b/simulate_bw.py"
spec=importlib.util.spec_from_file_location("bw",R); bw=importlib.util.module_from_spec(spec); spec.loader.exec_module(bw)
# rule groups of the masked launches (v19's ncu: D=128 512: 132 pairs, D=256 512: 66 pairs; 1k: 66 / 33)
RULE={(128,512):132,(256,512):66,(128,1024):66,(256,1024):33}
for (D,N),g in RULE.items():
    for l2 in (24,30):
        res={}
        for name,groups,walk in (("rule",g,"down"),("opg",1,"down"),("asc",1,"even-up")):
            bw.hpg=lambda D_,m,gg=groups: gg
            runs=[bw.simulate(D,N,walk,4.5,l2,0.5,0.15,0.15,s) for s in range(4)]
            res[name]=(statistics.mean(r[0] for r in runs),statistics.mean(r[1] for r in runs))
        c=res["rule"][0]
        print(f"D={D} N={N} L2={l2}: opg/rule {c/res['opg'][0]:.3f} asc/rule {c/res['asc'][0]:.3f} extra MB rule/opg/asc {res['rule'][1]:.1f}/{res['opg'][1]:.1f}/{res['asc'][1]:.1f}")
