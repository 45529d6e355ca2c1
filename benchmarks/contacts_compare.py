#!/usr/bin/env python3
"""Side by side: attend's contact predictors (potts, factored, evoformer) and FreeContact
(EVfold-mfDCA and PSICOV profiles) on protein families, with precision and wall time.

For every family the script runs `attend contacts predict` (each attend method asked for;
evoformer with the shipped model unless --evoformer-model names another) and, when the
`freecontact` program is installed (Debian package `freecontact`; optional), `freecontact
--parprof evfold` and `--parprof psicov` on the same alignment in PSICOV `.aln` form
(FASTA/A3M/Stockholm inputs are converted on the fly: insertions dropped, first sequence as
the query). Every prediction is scored by `attend contacts eval --json` against the family's
contacts TSV, and the table shows long-range P@L/5 and P@L/2, the wall time and the CPU time (user +
system, which tells more than wall time on a shared machine) of each run.

Families: the sets in the folder given by --families-dir (default: the repository's
data/proteins), one sub-folder per set with FAMILIES.tsv (column `id`), the alignment in
aln/<id>.aln[.gz] or msa/<id>.{fasta,a3m,sto}[.gz], and the truth in contacts/<id>.tsv[.gz].

With --markdown the table is also printed as a Markdown table (family, L, N, N_eff, then
P@L/5, P@L/2 and seconds per method) for docs/results.md.

Usage: contacts_compare.py [--attend build/apps/attend] [--families-dir DIR]
           [--family ID ...] [--methods potts,factored,evoformer,evfold,psicov] [--threads 2]
           [--evoformer-model FILE] [--json OUT] [--timeout S] [--markdown]
"""
import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ATTEND_METHODS = ("potts", "factored", "evoformer")
FREECONTACT_METHODS = ("evfold", "psicov")


def open_text(path):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)


def find_one(folder, stem, suffixes):
    for suffix in suffixes:
        for extra in ("", ".gz"):
            p = folder / (stem + suffix + extra)
            if p.exists():
                return p
    return None


def families(root, wanted):
    """(id, alignment path, truth path) for every family under `root`."""
    found = []
    for fam_file in sorted(root.glob("*/FAMILIES.tsv")):
        folder = fam_file.parent
        with open(fam_file) as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                if not line.strip():
                    continue
                fid = dict(zip(header, line.rstrip("\n").split("\t")))["id"]
                if wanted and fid not in wanted:
                    continue
                msa = find_one(folder / "aln", fid, [".aln"]) or find_one(
                    folder / "msa", fid, [".fasta", ".fa", ".a3m", ".a2m", ".sto"])
                truth = find_one(folder / "contacts", fid, [".tsv"])
                if msa is None or truth is None:
                    print(f"skipping {fid}: no alignment or no contacts in {folder}", file=sys.stderr)
                    continue
                found.append((fid, msa, truth))
    return found


def to_psicov(msa, out):
    """Write `msa` as a PSICOV .aln (one upper-case sequence per line); returns L."""
    name = str(msa).removesuffix(".gz")
    rows = []
    with open_text(msa) as f:
        if name.endswith(".aln"):
            rows = [line.strip() for line in f if line.strip()]
        elif name.endswith(".sto"):
            seqs = {}
            for line in f:
                if line.startswith("#") or line.startswith("//") or not line.strip():
                    continue
                key, seq = line.split()
                seqs.setdefault(key, []).append(seq)
            rows = ["".join(s) for s in seqs.values()]
        else:  # FASTA / A2M / A3M
            current = None
            for line in f:
                line = line.strip()
                if line.startswith(">"):
                    current = []
                    rows.append(current)
                elif line and not line.startswith("#") and current is not None:
                    current.append(line)
            rows = ["".join(r) for r in rows]
    # Insertions (lower case, '.') are not alignment columns; unknown letters become gaps.
    clean = []
    for r in rows:
        s = "".join(c for c in r if not (c.islower() or c == "."))
        clean.append("".join(c if c in "ACDEFGHIKLMNPQRSTVWY" else "-" for c in s))
    with open(out, "w") as f:
        f.write("\n".join(clean) + "\n")
    return len(clean[0])


def run_timed(cmd, **kw):
    """Run `cmd`; returns the process and its wall time. The CPU time of the child (user +
    system) is kept in run_timed.cpu, which tells more than wall time on a busy machine.
    A run longer than run_timed.timeout seconds (None: no limit) is stopped and reported."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=run_timed.timeout, **kw)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(map(str, cmd))} stopped after {run_timed.timeout:.0f} s") from None
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    run_timed.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return proc, seconds


run_timed.timeout = None


def evaluate(attend, pred, truth, work):
    out = work / "eval.json"
    run_timed([attend, "contacts", "eval", "--pred", pred, "--truth", truth, "--json", out])
    with open(out) as f:
        return json.load(f)


def freecontact_matrix(aln, profile, length, threads, mat):
    with open(aln) as f:
        proc, seconds = run_timed(["freecontact", "--parprof", profile, "-o", "evfold", "--threads", str(threads),
                                   "--mincontsep", "1"], stdin=f)
    scores = [[0.0] * length for _ in range(length)]
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) != 6:
            continue
        i, j, s = int(fields[0]) - 1, int(fields[2]) - 1, float(fields[5])
        scores[i][j] = scores[j][i] = s
    with open(mat, "w") as f:
        for row in scores:
            f.write("\t".join(f"{x:.9g}" for x in row) + "\n")
    return seconds


def print_markdown(fams, methods, results):
    """The table as Markdown: N and N_eff come from the first attend run of the family."""
    print("\n| family | L | N | N_eff | " + " | ".join(f"{m} P@L/5 | {m} P@L/2 | {m} s" for m in methods) + " |")
    print("|---|---|---|---|" + "---|---|---|" * len(methods))
    for fid, _, _ in fams:
        rows = [r for r in results if r["family"] == fid]
        fit = next((r for r in rows if "num_sequences" in r), {})
        cells = [fid, str(rows[0]["L"]), str(fit.get("num_sequences", "")),
                 f"{fit['n_eff']:.0f}" if "n_eff" in fit else ""]
        for m in methods:
            r = next(r for r in rows if r["method"] == m)
            cells += ["error", "", ""] if "error" in r else [f"{r['long_l5']:.3f}", f"{r['long_l2']:.3f}",
                                                               f"{r['seconds']:.1f}"]
        print("| " + " | ".join(cells) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attend", default=str(ROOT / "build" / "apps" / "attend"), help="the attend program")
    parser.add_argument("--families-dir", default=str(ROOT / "data" / "proteins"),
                        help="folder of family sets (data/proteins layout)")
    parser.add_argument("--family", action="append", default=[], help="only this family (repeatable)")
    parser.add_argument("--methods", default="potts,factored,evfold,psicov")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--evoformer-model", help="model file for the evoformer method (default: the shipped one)")
    parser.add_argument("--json", help="write the results as JSON")
    parser.add_argument("--timeout", type=float, help="stop a prediction after this many seconds (an error in the table)")
    parser.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    args = parser.parse_args()

    run_timed.timeout = args.timeout
    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in ATTEND_METHODS + FREECONTACT_METHODS:
            parser.error(f"unknown method {m}")
    if not Path(args.attend).exists():
        parser.error(f"{args.attend} not found (build first, or pass --attend)")
    have_freecontact = shutil.which("freecontact") is not None
    if not have_freecontact and any(m in FREECONTACT_METHODS for m in methods):
        print("freecontact is not installed (Debian: apt-get install freecontact); "
              "running the attend methods only", file=sys.stderr)
        methods = [m for m in methods if m in ATTEND_METHODS]
    fams = families(Path(args.families_dir), set(args.family))
    if not fams:
        parser.error(f"no families found under {args.families_dir}")
    load = os.getloadavg()[0]

    results = []
    with tempfile.TemporaryDirectory(prefix="contacts_compare_") as tmp:
        work = Path(tmp)
        for fid, msa, truth in fams:
            aln = work / f"{fid}.aln"
            length = to_psicov(msa, aln)
            for method in methods:
                row = {"family": fid, "method": method, "L": length}
                try:
                    if method in ATTEND_METHODS:
                        prefix = work / f"{fid}.{method}"
                        fit_json = work / f"{fid}.{method}.json"
                        cmd = [args.attend, "--threads", str(args.threads), "contacts", "predict", "--msa", msa,
                               "--method", method, "--out", prefix, "--quiet", "--json", fit_json]
                        if method == "evoformer" and args.evoformer_model:
                            cmd += ["--model", args.evoformer_model]
                        _, seconds = run_timed(cmd)
                        pred = f"{prefix}.h5"
                        cpu = run_timed.cpu
                        with open(fit_json) as f:
                            fit = json.load(f)
                        row.update(num_sequences=fit["num_sequences"], n_eff=fit["n_eff"], iterations=fit["iterations"])
                    else:
                        pred = work / f"{fid}.{method}.mat"
                        seconds = freecontact_matrix(aln, method, length, args.threads, pred)
                        cpu = run_timed.cpu
                    p = evaluate(args.attend, pred, truth, work)
                    row.update(seconds=seconds, cpu_seconds=cpu, long_l5=p["long"]["P@L/5"], long_l2=p["long"]["P@L/2"],
                               precision=p)
                except RuntimeError as e:
                    row["error"] = str(e)
                    print(f"{fid} {method}: {e}", file=sys.stderr)
                results.append(row)
                if "error" not in row:
                    print(f"{fid:10s} {method:9s} long P@L/5 {row['long_l5']:.3f}  P@L/2 {row['long_l2']:.3f}  "
                          f"{row['seconds']:7.1f} s (cpu {row['cpu_seconds']:.1f} s)", file=sys.stderr)

    print(f"\nthreads {args.threads}, load average at start {load:.2f}")
    header = f"{'family':10s} {'L':>4s} " + " ".join(f"{m + ' L/5':>12s} {'L/2':>6s} {'s':>6s} {'cpu':>6s}"
                                                       for m in methods)
    print(header)
    for fid, _, _ in fams:
        cells = []
        length = next(r["L"] for r in results if r["family"] == fid)
        for m in methods:
            r = next(r for r in results if r["family"] == fid and r["method"] == m)
            cells.append(f"{'error':>12s} {'':>6s} {'':>6s} {'':>6s}" if "error" in r else
                         f"{r['long_l5']:12.3f} {r['long_l2']:6.3f} {r['seconds']:6.1f} {r['cpu_seconds']:6.1f}")
        print(f"{fid:10s} {length:4d} " + " ".join(cells))
    if args.markdown:
        print_markdown(fams, methods, results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": args.threads, "load_average": load, "freecontact": have_freecontact,
                       "results": results}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
