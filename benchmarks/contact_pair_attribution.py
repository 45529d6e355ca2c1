#!/usr/bin/env python3
"""How much of a predicted contact comes from the potts scores and how much from the
alignment, on the shipped families (issue #14, protein half).

For every family of data/proteins/contact_{train,val,heldout}.txt (the 13 families shipped as
data/proteins/features/<id>.h5), runs `attend explain contacts --method evoformer` on the
shipped model's top long-range contact (integrated gradients on the model's MSA and pair
inputs together, zero baseline) and prints, per family: the logit change f(x) - f(0), its
split between the pair (potts score) input and the MSA input, the completeness gap, and
where the pair input's attribution sits: the place of the explained pair (I, J) among all
residue pairs by |attribution|, the largest other pair, and how the pair input's total splits
between (I, J) itself, its neighbourhood (the other pairs (p, q) with |p - I| <= 2 and
|q - J| <= 2), the other pairs that share residue I or J, and the rest. Whether (I, J) is a
native contact comes from the family's truth file; the potts score the model reads for it,
standardised as contact_features.hpp does (over the off-diagonal pairs), and its place among
all pairs i < j by that score come from the family's /scores.

Usage (Debian's /usr/bin/python3, for h5py):
       contact_pair_attribution.py [--attend build/apps/attend] [--steps 50] [--max-gap G]
           [--family ID ...] [--threads 1] [--json OUT] [--markdown]
"""
import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from contact_heads import ROOT, families  # the shipped families, listed once


def native(truth, i, j):
    """The truth file's contact column for the 1-based pair (i, j): 1, 0 or None (not listed)."""
    with gzip.open(truth, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            a, b, _, contact = line.split()[:4]
            if {int(a), int(b)} == {i, j}:
                return int(contact)
    return None


def potts_score(msa, i, j):
    """The standardised potts score of the 1-based pair (i, j) and its 1-based place among the
    pairs p < q by that score (ties: (i, j) first)."""
    with h5py.File(msa, "r") as f:
        scores = f["scores"][()].astype(np.float64)
    off = ~np.eye(scores.shape[0], dtype=bool)
    z = (scores - scores[off].mean()) / scores[off].std()
    upper = z[np.triu_indices(scores.shape[0], 1)]
    return float(z[i - 1, j - 1]), int((upper > z[i - 1, j - 1]).sum()) + 1


def explain(attend, msa, steps, max_gap, threads, workdir):
    """The --json summary, the pair table's rows (i, j, score) and the wall seconds of one run."""
    out = Path(workdir) / msa.stem
    command = [attend, "--threads", str(threads), "explain", "contacts", "--msa", str(msa), "--method", "evoformer",
               "--steps", str(steps), "--max-gap", str(max_gap), "--max-steps", "1350", "--out", str(out), "--json", str(out) + ".json", "--quiet"]
    start = time.time()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.time() - start
    rows = []
    for line in Path(str(out) + ".pairs.tsv").read_text().splitlines()[1:]:
        i, j, score = line.split("\t")
        rows.append((int(i), int(j), float(score)))
    return json.loads(Path(str(out) + ".json").read_text()), rows, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"))
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--max-gap", type=float, default=0.0,
                        help="refine the midpoint rule (x3, at most 1350 points) until |gap| <= G |f(x) - f(0)|")
    parser.add_argument("--family", action="append", help="only these ids (repeatable)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="write every row as JSON")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for family, msa, truth in families():
            if args.family and family not in args.family:
                continue
            summary, pairs, seconds = explain(args.attend, msa, args.steps, args.max_gap, args.threads, workdir)
            a = summary["attribution"]
            i, j = a["pair"]
            own = next(s for (p, q, s) in pairs if (p, q) == (i, j))
            near = sum(s for (p, q, s) in pairs if abs(p - i) <= 2 and abs(q - j) <= 2) - own
            line = sum(s for (p, q, s) in pairs if (abs(p - i) > 2 or abs(q - j) > 2) and {p, q} & {i, j})
            total = a["pair_total"]
            other = max((r for r in pairs if (r[0], r[1]) != (i, j)), key=lambda r: abs(r[2]))
            change = a["logit"] - a["baseline_logit"]
            z, z_rank = potts_score(msa, i, j)
            row = {"family": family, "L": summary["L"], "pair": [i, j], "native": native(truth, i, j), "potts_z": z, "potts_rank": z_rank,
                   "logit": a["logit"], "baseline_logit": a["baseline_logit"], "change": change,
                   "pair_total": a["pair_total"], "msa_total": a["msa_total"],
                   "pair_fraction": abs(a["pair_total"]) / max(1e-12, abs(a["pair_total"]) + abs(a["msa_total"])),
                   "completeness_gap": a["completeness_gap"], "steps": a["steps"], "pair_rank": a["pair_rank"],
                   "own_score": own, "own_share": own / total, "near_share": near / total, "line_share": line / total,
                   "rest_share": 1.0 - (own + near + line) / total,
                   "largest_other": list(other), "seconds": round(seconds, 1)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if args.markdown:
        print("\n| family | L | pair (native?) | potts z (rank) | logit | logit, both inputs 0 | pair input | MSA input | pair fraction "
              "| gap | (I, J) rank | largest other pair | pair input's share: (I, J), near, same residue, rest | s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            nat = {1: "yes", 0: "no", None: "n/a"}[r["native"]]
            oi, oj, os_ = r["largest_other"]
            print(f"| {r['family']} | {r['L']} | {r['pair'][0]}-{r['pair'][1]} ({nat}) | {r['potts_z']:.1f} ({r['potts_rank']}) "
                  f"| {r['logit']:.4f} "
                  f"| {r['baseline_logit']:.4f} | {r['pair_total']:.4f} | {r['msa_total']:.4f} | {r['pair_fraction']:.4f} "
                  f"| {r['completeness_gap']:.1e} ({r['steps']}) | {r['pair_rank']} | {oi}-{oj} ({os_:.4f}) "
                  f"| {r['own_share']:.2f}, {r['near_share']:.2f}, {r['line_share']:.2f}, {r['rest_share']:.2f} "
                  f"| {r['seconds']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
