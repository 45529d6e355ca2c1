"""How the module's OpenMP threads wait: `import attend` bounds libgomp's spinning when the
user chose no waiting and libgomp is not loaded yet, and leaves every other case alone. Each
case runs in a fresh interpreter, libgomp printing the settings it started with
(OMP_DISPLAY_ENV=verbose)."""
import os
import re
import subprocess
import sys

import attend._attend


def _started_spin_counts(code, chosen):
    """Runs `code` in a fresh interpreter with this environment less OMP_WAIT_POLICY and
    GOMP_SPINCOUNT, plus `chosen`: the GOMP_SPINCOUNT values libgomp printed, and what the
    interpreter printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(chosen, OMP_DISPLAY_ENV="verbose")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return re.findall(r"^  GOMP_SPINCOUNT = '(\d+)'$", run.stderr, re.M), run.stdout.strip()


def test_import_bounds_spinning_when_nothing_was_chosen():
    counts, printed = _started_spin_counts("import os, attend; print(os.environ['GOMP_SPINCOUNT'])", {})
    bound = str(attend._attend.bounded_spin_count)
    assert counts == [bound]
    assert printed == bound


def test_import_leaves_a_chosen_waiting_alone():
    for chosen, count in (({"OMP_WAIT_POLICY": "passive"}, "0"), ({"GOMP_SPINCOUNT": "12345"}, "12345")):
        counts, _ = _started_spin_counts("import attend", chosen)
        assert counts == [count], chosen


def test_import_after_libgomp_was_loaded_sets_nothing():
    code = ("import ctypes, ctypes.util, os\n"
            "ctypes.CDLL(ctypes.util.find_library('gomp'))\n"
            "import attend\n"
            "print(os.environ.get('GOMP_SPINCOUNT', 'unset'))")
    counts, printed = _started_spin_counts(code, {})
    assert len(counts) == 1 and counts[0] != str(attend._attend.bounded_spin_count)
    assert printed == "unset"
