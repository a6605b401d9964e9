#!/usr/bin/env python3
"""Runs the ctest entries of one label under NVIDIA's compute-sanitizer, one process per entry.

    python3 scripts/gpu_sanitize.py --build build/gpu --tool memcheck [--label gpu]
        [--whole-binary NAME ...] [--whole-binary-filter SPEC] [--no-api-errors]
        [--sanitizer PATH] [--timeout S] [--dry-run]

Reads the entries from `ctest -L <label> --show-only=json-v1` (the command, the working
directory, ENVIRONMENT, SKIP_RETURN_CODE, DISABLED, WILL_FAIL), and runs each command as
`compute-sanitizer --tool <tool> --error-exitcode 1 <command>`. An entry passes when the
sanitizer reports nothing and the program succeeds; it is "not run" when the program exits with
its SKIP_RETURN_CODE (no GPU) or is DISABLED or WILL_FAIL (a failure it expects would read as a
sanitizer error). Used by scripts/gpu_check.sh.

--whole-binary NAME: the entries of the Catch2 program NAME (catch_discover_tests' entries, whose
second word is the test case) run as one process with every case, instead of one process per
case: the sanitizer's start (loading and instrumenting cuBLAS and cuDNN) is paid once. Only for
programs whose cases may share a process (not cuda_runtime_test's fresh-runtime cases).
--whole-binary-filter SPEC: a Catch2 test spec for those programs (e.g. "Sum on*,Softmax on*"):
racecheck needs only the kernels with shared memory, and is too slow for all of them.
--no-api-errors: no report of CUDA calls that return an error (--report-api-errors no). NCCL
probes its kernels with cudaFuncGetAttributes and gets cudaErrorNoKernelImageForDevice for the
architectures it was not built for, which it expects; eagle checks every CUDA call's status
itself (EAGLE_CUDA_CHECK), so an error there fails the test without the sanitizer.

Exit status: 0 all passed (or not run), 1 a failure, 2 no entries or no sanitizer, 3 the
sanitizer does not support this machine (it said so; e.g. under gVisor: "Device not supported").
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

UNSUPPORTED = ("Device not supported", "device is not supported", "not supported on this platform")


def find_sanitizer(given):
    if given:
        return given
    for c in (
        shutil.which("compute-sanitizer"),
        "/usr/local/cuda/bin/compute-sanitizer",
        "/usr/local/cuda/compute-sanitizer/compute-sanitizer",
    ):
        if c and os.access(c, os.X_OK):
            return c
    return None


def entries(build, label):
    out = subprocess.run(
        ["ctest", "-L", label, "--show-only=json-v1"],
        cwd=build,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    tests = []
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        tests.append(
            {
                "name": t["name"],
                "command": t.get("command") or [],
                "cwd": props.get("WORKING_DIRECTORY", build),
                "env": props.get("ENVIRONMENT", []),
                "skip_code": props.get("SKIP_RETURN_CODE"),
                "disabled": bool(props.get("DISABLED", False)),
                "will_fail": bool(props.get("WILL_FAIL", False)),
            }
        )
    return tests


def merge_whole_binaries(tests, names, spec=""):
    """One entry per program in `names`, running all of that program's cases in one process."""
    merged = []
    groups = {}
    for t in tests:
        cmd = t["command"]
        name = os.path.basename(cmd[0]) if cmd else ""
        if name not in names or len(cmd) < 2 or t["disabled"] or t["will_fail"]:
            merged.append(t)
            continue
        g = groups.get(name)
        if g is None:
            # Drop the test case's name (the second word); keep the extra arguments.
            g = dict(t, command=[cmd[0]] + ([spec] if spec else []) + cmd[2:], cases=0)
            g["name"] = name
            groups[name] = g
            merged.append(g)
        g["cases"] += 1
    for g in groups.values():
        which = f"its {g['cases']} cases"
        if spec:
            which = f"the cases matching '{spec}' of its {g['cases']}"
        g["name"] = f"{g['name']} ({which} in one process)"
    return merged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument(
        "--tool", required=True, choices=("memcheck", "racecheck", "initcheck", "synccheck")
    )
    ap.add_argument("--label", default="gpu")
    ap.add_argument("--sanitizer", default="")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per entry")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--whole-binary", action="append", default=[], metavar="NAME")
    ap.add_argument("--whole-binary-filter", default="", metavar="SPEC")
    ap.add_argument("--no-api-errors", action="store_true")
    args = ap.parse_args()
    build = os.path.abspath(args.build)

    tests = merge_whole_binaries(
        entries(build, args.label), args.whole_binary, args.whole_binary_filter
    )
    if not tests:
        print(f"sanitize: no ctest entries labelled '{args.label}' in {build}")
        return 2
    san = find_sanitizer(args.sanitizer)
    if san is None and not args.dry_run:
        print(
            "sanitize: compute-sanitizer not found (PATH, /usr/local/cuda/bin, "
            "/usr/local/cuda/compute-sanitizer)"
        )
        return 2
    san = san or "compute-sanitizer"

    counts = {"passed": 0, "failed": 0, "not run": 0}
    unsupported = False
    for t in tests:
        if not t["command"]:
            print(f"[not run] {t['name']}: no command (a NOT_AVAILABLE entry?)")
            counts["not run"] += 1
            continue
        if t["disabled"] or t["will_fail"]:
            why = "DISABLED" if t["disabled"] else "WILL_FAIL"
            print(f"[not run] {t['name']}: {why}")
            counts["not run"] += 1
            continue
        cmd = [san, "--tool", args.tool, "--error-exitcode", "1"]
        if args.no_api_errors:
            cmd += ["--report-api-errors", "no"]
        cmd += t["command"]
        if args.dry_run:
            print(f"[dry run] (cd {t['cwd']} && {' '.join(cmd)})")
            continue
        env = dict(os.environ)
        for kv in t["env"]:
            k, _, v = kv.partition("=")
            env[k] = v
        start = time.monotonic()
        try:
            p = subprocess.run(
                cmd,
                cwd=t["cwd"],
                env=env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=args.timeout,
            )
            rc, output = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            rc = None
            output = (
                (e.stdout or b"").decode(errors="replace")
                if isinstance(e.stdout, bytes)
                else (e.stdout or "")
            ) + f"\n(timed out after {args.timeout:.0f} s)\n"
        secs = time.monotonic() - start
        if any(u in output for u in UNSUPPORTED):
            unsupported = True
        if rc == 0:
            status = "passed"
        elif rc is not None and t["skip_code"] is not None and rc == int(t["skip_code"]):
            status = "not run"
        else:
            status = "failed"
        counts[status] += 1
        print(f"[{status}] {t['name']} ({secs:.1f} s, exit {rc})")
        if status != "passed":
            tail = output.strip().splitlines()[-60:]
            print("    " + "\n    ".join(tail))
        sys.stdout.flush()

    print(
        f"sanitize {args.tool}: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['not run']} not run, of {len(tests)}"
    )
    if unsupported and counts["passed"] == 0:
        print("sanitize: compute-sanitizer does not support this machine's GPU or runtime")
        return 3
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
