#!/usr/bin/env python3
"""Compares JSON Schema validation speed: mcpcxx (C++, via bench_schema), Python `jsonschema`
(Draft202012Validator, precompiled) and pydantic-core (SchemaValidator from an equivalent core
schema), on the same schema and instances. Prints medians of several repetitions and ratios.

Usage: bench/schema_compare.py [path/to/mcpcxx_bench_schema] [--reps N]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import timeit

import jsonschema
import pydantic_core
from pydantic_core import SchemaValidator, core_schema as cs


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, nproc={os.cpu_count()}, {platform.platform()}, Python {platform.python_version()}"


def pydantic_validator():
    """A core schema equivalent to the JSON Schema in bench_schema.cpp."""
    filters = cs.typed_dict_schema({
        "lang": cs.typed_dict_field(cs.str_schema(max_length=8), required=True),
        "year": cs.typed_dict_field(cs.int_schema(ge=1900, le=2100, strict=True), required=False),
    }, extra_behavior="forbid")
    fields = {
        "query": cs.typed_dict_field(cs.str_schema(min_length=1, max_length=200, strict=True), required=True),
        "limit": cs.typed_dict_field(cs.int_schema(ge=1, le=100, strict=True), required=True),
        "mode": cs.typed_dict_field(cs.literal_schema(["fast", "exact", "fuzzy"]), required=True),
        "user": cs.typed_dict_field(cs.str_schema(pattern=r"^[a-z0-9_-]{3,32}$", strict=True), required=False),
        "verbose": cs.typed_dict_field(cs.bool_schema(strict=True), required=False),
        "threshold": cs.typed_dict_field(cs.float_schema(ge=0, le=1), required=False),
        "filters": cs.typed_dict_field(filters, required=False),
        "tags": cs.typed_dict_field(cs.list_schema(cs.str_schema(strict=True), max_length=10), required=False),
    }
    return SchemaValidator(cs.typed_dict_schema(fields, extra_behavior="forbid"))


def median_ns(fn, reps, target_s=0.2):
    number = 1
    while timeit.timeit(fn, number=number) < target_s / 10:
        number *= 2
    runs = [timeit.timeit(fn, number=number) / number * 1e9 for _ in range(reps)]
    return statistics.median(runs)


def cpp_medians(binary, reps):
    out = subprocess.run([binary, f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    return {b["run_name"]: b["cpu_time"] for b in data["benchmarks"] if b.get("aggregate_name") == "median"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary", nargs="?", default="build/bench/bench/mcpcxx_bench_schema")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    cases = json.loads(subprocess.run([args.binary, "--dump-cases"], check=True, capture_output=True,
                                      text=True).stdout)
    schema, valid, invalid = cases["schema"], cases["valid"], cases["invalid"]

    js = jsonschema.Draft202012Validator(schema)
    pv = pydantic_validator()
    # Sanity: all three agree on the verdicts before anything is timed.
    assert js.is_valid(valid) and not js.is_valid(invalid)
    pv.validate_python(valid)
    try:
        pv.validate_python(invalid)
        sys.exit("pydantic-core accepted the invalid instance; the schemas are not equivalent")
    except pydantic_core.ValidationError:
        pass

    def pyd_invalid():
        try:
            pv.validate_python(invalid)
        except pydantic_core.ValidationError as e:
            return e.errors()

    cpp = cpp_medians(args.binary, args.reps)
    rows = [
        ("valid instance, yes/no", cpp["BM_schema_is_valid_valid"],
         median_ns(lambda: js.is_valid(valid), args.reps), median_ns(lambda: pv.validate_python(valid), args.reps)),
        ("valid instance, full validate", cpp["BM_schema_validate_valid"],
         median_ns(lambda: list(js.iter_errors(valid)), args.reps),
         median_ns(lambda: pv.validate_python(valid), args.reps)),
        ("invalid instance, all errors", cpp["BM_schema_validate_invalid"],
         median_ns(lambda: list(js.iter_errors(invalid)), args.reps), median_ns(pyd_invalid, args.reps)),
    ]
    print(f"machine: {machine()}")
    print(f"jsonschema {jsonschema.__version__ if hasattr(jsonschema, '__version__') else '?'}, "
          f"pydantic-core {pydantic_core.__version__}; medians of {args.reps} repetitions, ns per validation")
    print(f"{'case':32s} {'mcpcxx':>9s} {'jsonschema':>11s} {'pydantic-core':>14s} {'x jsonschema':>13s} "
          f"{'x pydantic':>11s}")
    for name, c, j, p in rows:
        print(f"{name:32s} {c:9.0f} {j:11.0f} {p:14.0f} {j / c:13.1f} {p / c:11.1f}")
    print(f"{'compile (C++ only)':32s} {cpp['BM_schema_compile']:9.0f}")
    print(f"{'validate+format invalid (C++)':32s} {cpp['BM_schema_validate_and_format_invalid']:9.0f}")


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore", DeprecationWarning)
    main()
