"""The one benchmark runner: arguments, timing, the printed report and the JSON.

A benchmark script declares only what it measures::

    BENCHMARK = Benchmark(
        name="cold_load",            # results/<name>.json (``--name`` changes it)
        doc=__doc__,                 # ``--help``
        measure=measure_all,         # (args) -> results, the JSON written (None: nothing)
        report=report,               # (results, args) -> the tables and lines printed
        rounds=5,                    # ``--rounds`` (alias ``--runs``) and its default
        site="one",                  # ``--site DIR`` ("named": ``--site name=DIR``, repeated)
        options=options,             # (parser) -> None: the script's own arguments
    )

    if __name__ == "__main__":
        sys.exit(run(BENCHMARK))

The runner parses the arguments, starts the clock (``elapsed(args)``), calls
``measure``, prints what ``report`` yields and the wall time, and writes the
JSON (``common.write``: the machine, then the results). Targets are read from
the one table, ``results_md.TARGETS``, with ``target(what)``.
"""

import argparse
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from benchmarks.common import named_site, site_folder, write


def _nothing(*_args) -> Iterable[str]:
    return ()


def _no_options(_parser: argparse.ArgumentParser) -> None:
    return None


@dataclass(frozen=True)
class Benchmark:
    name: str
    doc: str | None
    measure: Callable[[argparse.Namespace], dict | None]
    report: Callable[[dict, argparse.Namespace], Iterable[str] | None] = _nothing
    rounds: int | None = None
    rounds_help: str = "rounds (each measures every variant once)"
    site: str | None = None  # None, "one" or "named"
    site_help: str | None = None
    options: Callable[[argparse.ArgumentParser], None] = _no_options


def parser_for(benchmark: Benchmark) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m benchmarks.{benchmark.name}",
        description=benchmark.doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if benchmark.rounds is not None:
        parser.add_argument(
            "--rounds",
            "--runs",
            dest="rounds",
            type=int,
            default=benchmark.rounds,
            help=f"{benchmark.rounds_help} (default {benchmark.rounds})",
        )
    if benchmark.site == "one":
        parser.add_argument(
            "--site",
            type=site_folder,
            help=benchmark.site_help or "a built export (default: build one)",
        )
    elif benchmark.site == "named":
        parser.add_argument(
            "--site",
            action="append",
            type=named_site,
            help=benchmark.site_help or "name=folder (repeat it)",
        )
    benchmark.options(parser)
    parser.add_argument(
        "--name", default=benchmark.name, help=f"results/<name>.json (default {benchmark.name})"
    )
    return parser


def elapsed(args: argparse.Namespace) -> float:
    """Seconds since the runner started the benchmark."""
    return time.monotonic() - args.started


def run(benchmark: Benchmark, argv: list[str] | None = None) -> int:
    """Parse ``argv``, measure, print the report, write results/<name>.json."""
    args = parser_for(benchmark).parse_args(argv)
    args.started = time.monotonic()
    results = benchmark.measure(args)
    if results is None:  # nothing to write (e.g. step_cost's child process)
        return 0
    for block in benchmark.report(results, args) or ():
        print(block)
    print(f"  took {elapsed(args):.1f} s")
    write(args.name, results)
    return 0


def target(what: str) -> float:
    """The bound of the target named ``what`` in ``results_md.TARGETS`` (``≤ 25`` -> 25)."""
    from benchmarks.results_md import TARGETS

    for name, text, _read, _met in TARGETS:
        if name == what:
            number = text.lstrip("≤≥ ").strip()
            value = float(number)
            return int(value) if value.is_integer() and "." not in number else value
    raise KeyError(f"benchmarks/results_md.py TARGETS has no target named {what!r}")
