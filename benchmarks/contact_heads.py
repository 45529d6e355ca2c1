#!/usr/bin/env python3
"""Which attention heads carry contacts, on the shipped families (issue #14, protein half).

For every family of data/proteins/contact_{train,val,heldout}.txt (the 13 families whose
alignments are shipped as data/proteins/features/<id>.h5: the query and 511 other rows), runs
`attend explain contacts --json` with each method asked for and prints, per family, the best
single head's long-range P@L/5 beside that of the method's full scores (factored: the APC of
the coupling norms; evoformer: the model's probabilities), and how many heads reach the full
score. `--markdown` prints the table for docs/results.md.

The evoformer runs skip the attribution of a contact (`--steps 0`): only the head maps are
tabulated here.

Usage: contact_heads.py [--attend build/apps/attend] [--methods factored,evoformer]
           [--family ID ...] [--threads 1] [--json OUT] [--markdown]
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTEINS = ROOT / "data" / "proteins"


def families():
    """(id, alignment .h5, truth .tsv.gz) of the shipped families, in list order."""
    out = []
    for name in ("contact_train.txt", "contact_val.txt", "contact_heldout.txt"):
        for line in (PROTEINS / name).read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            features, truth = line.split()
            out.append((Path(features).stem, PROTEINS / features, PROTEINS / truth))
    return out


def explain(attend, method, msa, truth, threads, workdir):
    """The --json summary of one run and its wall seconds."""
    out = Path(workdir) / f"{msa.stem}-{method}"
    command = [attend, "--threads", str(threads), "explain", "contacts", "--msa", str(msa), "--method", method,
               "--truth", str(truth), "--out", str(out), "--json", str(out) + ".json", "--quiet"]
    if method == "evoformer":
        command += ["--steps", "0"]
    start = time.time()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return json.loads(Path(str(out) + ".json").read_text()), time.time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"))
    parser.add_argument("--methods", default="factored,evoformer")
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
            for method in args.methods.split(","):
                summary, seconds = explain(args.attend, method, msa, truth, args.threads, workdir)
                length = summary["L"]
                heads = [(h["name"], h["precision"]["long_P@L/5"]) for h in summary["heads"]]
                best = max(heads, key=lambda h: h[1])
                full = summary["precision"]["long_P@L/5"]
                row = {"family": family, "L": length, "method": method, "heads": len(heads), "best_head": best[0],
                       "best_head_P@L/5": best[1], "full_P@L/5": full,
                       "heads_at_full": sum(1 for h in heads if h[1] >= full), "seconds": round(seconds, 1)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    if args.markdown:
        print("\n| family | L | method | heads | best head | its long P@L/5 | full scores' long P@L/5 | heads >= full | s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['family']} | {r['L']} | {r['method']} | {r['heads']} | {r['best_head']} | {r['best_head_P@L/5']:.2f} "
                  f"| {r['full_P@L/5']:.2f} | {r['heads_at_full']} | {r['seconds']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
