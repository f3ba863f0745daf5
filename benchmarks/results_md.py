"""Render benchmarks/RESULTS.md from the JSON in benchmarks/results/."""

import json
from pathlib import Path


def _text_first(results: dict) -> dict:
    """The derived numbers of the last site text_first.py measured (the one under test)."""
    sites = results["text_first"]["sites"]
    return list(sites.values())[-1]["derived"]


def _first_answer_profile(found: dict) -> list[str]:
    """Where the first answers' time goes, per round (first_answer.py's profile fields)."""
    runs = found.get("runs")
    if not runs or "pressed_ms" not in runs["frames"][0]:
        return []
    lines = [
        "| round | floor ms | paint | frames in | page's press at paint: answered | "
        "harness pressed | answered | "
        "tier 2: waited for paint | Pyodide start | numpy tier | two sliders drawn |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, floor in enumerate(runs["floor_ms"]):
        topic, two = runs["frames"][n], runs["two sliders"][n]
        worker = two["worker"]
        lines.append(
            f"| {n + 1} | {floor} | {topic['first_paint_ms']} | {topic['frames_ms']} | "
            f"{topic.get('at_paint', {}).get('answered_ms', '—')} | "
            f"{topic['pressed_ms']} | {topic['first_answer_ms']} | "
            f"{worker['waited for the paint']} | {worker['start pyodide']} | "
            f"{worker['numpy tier']} | {two['answer_ms']} |"
        )
    return [
        "The profile, ms from the page's start: the topic's frames are fetched while "
        "BokehJS parses and read after the paint; the page presses a slider itself at "
        "its paint (the target's answer), the harness presses again later, after its "
        "round trips, while Pyodide starts on the same cores. Tier 2 "
        "(figure 4121, two sliders): the worker waits for the paint and the frames, "
        "starts Pyodide, then loads numpy and the posviz wheel.",
        "",
        *lines,
    ]


TARGETS = [
    # (what, target text, how to read the measured value, test)
    (
        "every page: its text in the HTML ÷ the text a reader sees live (worst page)",
        "≥ 0.95",
        lambda r: _text_first(r)["worst_text_in_html"],
        lambda v: v >= 0.95,
    ),
    (
        "render-blocking script before the first text (bytes, worst page)",
        "0",
        lambda r: (
            _text_first(r)["max_blocking_external_bytes"]
            + _text_first(r)["max_blocking_inline_bytes"]
        ),
        lambda v: v == 0,
    ),
    (
        "topic: first text paint ÷ the reference site's first figure paint",
        "≤ 0.3",
        lambda r: _text_first(r)["text_fcp_over_reference_figure_paint"],
        lambda v: v <= 0.3,
    ),
    (
        "cold topic: first slider answer ÷ first paint (frames, same run)",
        "≤ 1.2",
        # The page's own press at its paint (first_answer.PRESS_AT_PAINT_JS).
        lambda r: round(
            r["first_answer"]["ratios"]["cold topic: first answer ÷ first paint"]["median"], 2
        ),
        lambda v: v <= 1.2,
    ),
    *[
        (
            f"{name} (first_answer.py, same round)",
            f"≤ {bound}",
            lambda r, name=name: round(r["first_answer"]["ratios"][name]["median"], 4),
            lambda v, bound=bound: v <= bound,
        )
        for name, bound in {
            "two sliders on 4121 ÷ floor": 1.2,
            "deep link, 3 values ÷ floor": 1.2,
            "posviz ÷ stock panel convert, first answer": 0.15,
            "four iframes ÷ one figure page": 1.1,
            "step from a frame, median ÷ floor": 0.005,
            "step from a frame, p95 ÷ floor": 0.01,
        }.items()
    ],
    (
        "site size, frames included (MB)",
        "≤ 29.5",
        lambda r: round(r["first_answer"]["size"]["site_bytes"] / 1e6, 2),
        lambda v: v <= 29.5,
    ),
    (
        "topic page, first figure painted (ms)",
        "≤ 900",
        lambda r: r["cold_load"]["pages"]["topic"]["cold_first_paint_ms"]["median"],
        lambda v: v <= 900,
    ),
    (
        "topic page, all figures live, cold (ms)",
        "≤ 6000",
        lambda r: r["cold_load"]["pages"]["topic"]["cold_live_ms"]["median"],
        lambda v: v <= 6000,
    ),
    (
        "topic cold time to interactive, posviz ÷ stock baseline (same run)",
        "≤ 0.35",
        lambda r: round(
            r["baseline"]["pages"]["posviz"]["cold_first_answer_ms"]["median"]
            / r["baseline"]["pages"]["baseline"]["cold_first_answer_ms"]["median"],
            2,
        ),
        lambda v: v <= 0.35,
    ),
    (
        "topic page, live after a warm reload (ms)",
        "≤ 4000",
        lambda r: r["cold_load"]["pages"]["topic"]["warm_live_ms"]["median"],
        lambda v: v <= 4000,
    ),
    (
        "slider → plot in the export, worst figure median (ms)",
        "≤ 25",
        lambda r: max(f["median"] for f in r["slider_latency"]["modes"]["export"].values()),
        lambda v: v <= 25,
    ),
    (
        "slider → plot in the export, worst figure p95 (ms)",
        "≤ 50",
        lambda r: max(f["p95"] for f in r["slider_latency"]["modes"]["export"].values()),
        lambda v: v <= 50,
    ),
    (
        "posviz serve, server CPU per slider update (ms)",
        "≤ 15",
        lambda r: r["server_load"]["load"]["server_cpu_ms_per_update"],
        lambda v: v <= 15,
    ),
    (
        "posviz serve, 20 sessions, update p95 (ms)",
        "≤ 150",
        lambda r: r["server_load"]["load"]["latency_ms"]["p95"],
        lambda v: v <= 150,
    ),
    (
        "posviz serve, memory per session (MB, peak)",
        "≤ 25",
        lambda r: r["server_load"]["mb_per_session_peak"],
        lambda v: v <= 25,
    ),
    (
        "posviz serve, growth returned after close (%)",
        "≥ 90",
        lambda r: r["server_load"]["returned_vs_warm_pct"],
        lambda v: v >= 90,
    ),
    *[
        (
            f"one Python per reader: {what}",
            f"≤ {limit}",
            lambda r, key=key: r["runtime"]["ratios"][key],
            lambda v, limit=limit: v <= limit,
        )
        for key, what, limit in (
            ("topic_cold_over_floor", "topic cold ÷ floor (Pyodide + numpy)", 1.8),
            ("docs_four_over_one", "four figure iframes ÷ one figure page", 1.3),
            ("reading_worst_over_cold", "slowest later page in reading order ÷ topic cold", 0.25),
            ("second_tab_over_cold", "second tab ÷ topic cold", 0.25),
        )
    ],
    (
        "export size on disk (MB)",
        "≤ 30",
        lambda r: round(r["export_size"]["total"]["bytes"] / 1e6, 1),
        lambda v: v <= 30,
    ),
    (
        "serve --dev: an edit shown in the open tab ÷ a cold load of its route (worst kind)",
        "≤ 0.5",
        lambda r: max(e["ratio"] for e in r["dev_loop"]["edits"].values()),
        lambda v: v <= 0.5,
    ),
    (
        "serve --dev: an edit shown in the open tab, seconds (worst kind, median)",
        "≤ 2",
        lambda r: max(e["median_s"] for e in r["dev_loop"]["edits"].values()),
        lambda v: v <= 2,
    ),
]


def load(folder: Path) -> dict:
    return {path.stem: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def rows_table(header, rows) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


# The README quotes TARGETS between these lines; quote_targets keeps the quote current.
QUOTE_START = "<!-- targets: benchmarks/results_md.py TARGETS, written by ./dev bench -->"
QUOTE_END = "<!-- /targets -->"


def targets_markdown() -> str:
    """The one table of targets, as the README quotes it (what, and the target)."""
    return "\n".join(rows_table(["what", "target"], [[what, t] for what, t, _, _ in TARGETS]))


def quote_targets(readme: Path) -> bool:
    """Write the targets table between the README's markers; True if it changed."""
    text = readme.read_text("utf-8")
    head, found, rest = text.partition(QUOTE_START)
    _, ended, tail = rest.partition(QUOTE_END)
    if not (found and ended):
        raise SystemExit(
            f"{readme}: no {QUOTE_START} ... {QUOTE_END} block to quote the targets in"
        )
    new = f"{head}{QUOTE_START}\n{targets_markdown()}\n{QUOTE_END}{tail}"
    readme.write_text(new, "utf-8")
    return new != text


def dates(results: dict) -> str:
    """The span of the measurements' dates (each JSON records its own)."""
    seen = sorted(r["machine"]["date"] for r in results.values() if "machine" in r)
    return seen[0] if seen[0] == seen[-1] else f"{seen[0]} to {seen[-1]}"


def docs_timeline(runtime: dict) -> list[str]:
    """Per iframe of the docs page, in the run with the median docs time: where it went."""
    runs = sorted(
        (r for r in runtime.get("raw", []) if r.get("docs_frames")), key=lambda r: r["docs_four_ms"]
    )
    if not runs:
        return []
    run = runs[len(runs) // 2]
    rows = [
        [
            f["figure"],
            f["connection"],
            f["painted_ms"],
            f["live_ms"],
            f["worker_ms"].get("start pyodide", "—"),
            f["worker_ms"].get("runtime ready", "—"),
            f["worker_ms"].get("build page", "—"),
        ]
        for f in run["docs_frames"]
    ]
    return [
        "",
        f"Docs page with four iframes, one run ({run['docs_four_ms']:.0f} ms until all four"
        f" answered; one figure page alone: {run['one_figure_ms']:.0f} ms). Times from the"
        " docs page's start; the worker's stages are its own (ms):",
        "",
        *rows_table(
            [
                "iframe",
                "connection",
                "pre-render painted",
                "live",
                "start pyodide",
                "runtime ready",
                "build page",
            ],
            rows,
        ),
    ]


def heading(title: str, found: dict, how: str) -> list[str]:
    """A section's heading, and when and how its benchmark measured."""
    return ["", f"## {title}", "", f"Measured {found['machine']['date']}; {how}", ""]


def scale_section(scale: dict) -> list[str]:
    """benchmarks/scale.py: the site with N synthetic pages, each against N = 0 of its run."""
    lines = heading(
        "The site as it grows (scale.py; × N = 0 of the same run)",
        scale,
        f"topic loads cold, median of {scale['runs']} "
        "run(s), network sealed. Times depend on the machine's load: compare them within "
        "the run. Search: the box's time to results, the first query (it loads Pagefind) "
        "and the median (max) of ten warm ones, each a word only one page has.",
    )
    rows = []
    for r in scale["sizes"]:
        vs = r["vs_n0"]
        rows.append(
            [
                r["n"],
                r["routes"],
                f"{r['build_full_s']} ({vs['build_full_s']}×)",
                f"{r['build_after_one_page_edit_s']} (÷ full {r.get('edit_over_full', '?')}; "
                f"{r.get('routes_rerendered_after_edit', '?')} route(s) re-rendered)",
                f"{r['site_bytes'] / 1e6:.1f} ({vs['site_bytes']}×)",
                ""
                if r.get("added_per_page_bytes") is None
                else f"{r['added_per_page_bytes'] / 1e3:.0f} "
                f"({r['added_html_per_page_bytes'] / 1e3:.0f} of HTML)",
                round(r["search_index_bytes"] / 1e3),
                f"{r['largest_page']['path']}, {r['largest_page']['bytes'] / 1e3:.0f} KB",
                f"{r['topic_html_bytes'] / 1e3:.0f} ({vs['topic_html_bytes']}×)",
                f"{r['topic_first_paint_ms']} ({vs['topic_first_paint_ms']}×)",
                f"{r['topic_first_answer_ms']} ({vs['topic_first_answer_ms']}×)",
                _search(r.get("search")),
            ]
        )
    return lines + rows_table(
        [
            "N pages added",
            "routes",
            "full build s",
            "build after a one-page edit s",
            "site MB",
            "KB added per page",
            "search index KB",
            "largest page",
            "topic HTML KB",
            "topic first paint ms",
            "topic first answer ms",
            "search ms: first / warm (max)",
        ],
        rows,
    )


def lazy_section(lazy: dict) -> list[str]:
    """benchmarks/lazy.py: the topic with far figures waiting (lazy) and all drawn (eager)."""
    lines = heading(
        "Lazy join (lazy.py; the topic page cold, lazy ÷ eager of the same run)",
        lazy,
        f"medians of {lazy['rounds']} rounds, the variants "
        "interleaved. Eager is the same export with `window.posvizLazyOff` set.",
    )
    rows = []
    for view, ratios in lazy["ratios"].items():
        eager, waiting = lazy["medians"][f"{view}/eager"], lazy["medians"][f"{view}/lazy"]
        for measure, ratio in ratios.items():
            rows.append([view, measure, eager[measure], waiting[measure], ratio])
        rows.append([view, "figures waiting at paint", eager["waiting"], waiting["waiting"], ""])
    return lines + rows_table(["viewport", "measure", "eager", "lazy", "lazy ÷ eager"], rows)


def hold_section(hold: dict) -> list[str]:
    """benchmarks/hold.py: a slider pressed the moment the topic goes live."""
    lines = heading(
        "A press at live (hold.py; the topic page cold, each arm ÷ the build before)",
        hold,
        f"medians of {hold['rounds']} rounds, the arms interleaved. The pointer rests on "
        "the slider, or on the page's title; `tabbed`: the keyboard brought the focus to "
        "the slider; `before` is a build of the code before, the reader doing "
        f"`{hold.get('before_variant') or 'away'}`.",
    )
    rows = [
        [
            arm,
            medians["answer_ms"],
            hold["over_base"][arm],
            medians["filled_before"],
            f"{medians.get('lost', 0)} of {hold['rounds']}",
        ]
        for arm, medians in hold["medians"].items()
    ]
    return lines + rows_table(
        ["arm", "keydown to new data drawn (ms)", "÷ base", "figures filled before it", "lost"],
        rows,
    )


def build_cost_section(cost: dict) -> list[str]:
    """benchmarks/build_cost.py: seconds per added route, this checkout against an older one."""
    n = str(cost["pages"])
    lines = heading(
        "Per-route cost of a full build "
        f"(build_cost.py; before = {cost['before_commit']}, one run)",
        cost,
        f"seconds per route added by {n} generated pages, full builds from an empty page cache.",
    )
    rows = [
        [name, t["0"], t[n], cost["per_added_route_s"][name]]
        for name, t in cost["full_build_s"].items()
    ]
    lines += rows_table(["checkout", "N = 0 s", f"N = {n} s", "s per route"], rows)
    return [*lines, "", f"After ÷ before: **{cost['after_over_before']}** (target ≤ 0.5)."]


def _search(found: dict | None) -> str:
    if not found:
        return "not measured"
    return f"{found['cold_ms']:.0f} / {found['warm_median_ms']:.0f} ({found['warm_max_ms']:.0f})"


def link_tiers_section(link: dict) -> list[str]:
    """Each tier on a throttled shared link: posviz's time and bytes beside stock's."""
    lines = heading(
        "On a throttled link: each tier, posviz beside stock `panel convert` (link_tiers.py)",
        link,
        "every request, the worker's included, crosses one shared link; gzip on text and "
        "wasm; one run per site (seconds, MB crossed the link by then).",
    )
    rows = []
    for name, measured in link["links"].items():
        ours, stock = (measured["runs"][site][0]["tiers"] for site in ("posviz", "stock"))
        for tier, found in ours.items():
            rows.append(
                [
                    name,
                    tier,
                    found["s"],
                    round(found["bytes"] / 1e6, 2),
                    stock[tier]["s"],
                    round(stock[tier]["bytes"] / 1e6, 2),
                ]
            )
    return lines + rows_table(
        ["link", "tier", "posviz s", "posviz MB", "stock s", "stock MB"], rows
    )


def link_memory_section(runs: dict[str, dict]) -> list[str]:
    """The page's memory at each tier, the worker's included: desktop and phone, one run each.

    ``runs``: a label → a link_tiers result (its first link's first posviz run).
    """
    rows = []
    for label, result in runs.items():
        link, measured = next(iter(result["links"].items()))
        for tier, found in measured["runs"]["posviz"][0]["memory"].items():
            parts = [found["page_heap"], found["worker_heap"], found["wasm"]]
            rows.append([label, link, tier, *(round(b / 1e6, 1) for b in parts)])
            rows[-1].append(round(sum(parts) / 1e6, 1))
    return [
        "",
        "## Memory at each tier on the link (link_tiers.py; `--phone` for the phone)",
        "",
        "JS heap of the page and of the shared worker, and Pyodide's wasm memory, over the "
        "DevTools protocol (MB). The phone is Chromium's emulation: 390 px wide, 3 device "
        "pixels to a CSS pixel, touch, scrolled through the whole topic.",
        "",
        *rows_table(
            ["device", "link", "tier", "page heap", "worker heap", "Pyodide wasm", "total"], rows
        ),
    ]


def dev_loop_section(loop: dict) -> list[str]:
    """posviz serve --dev: each edit kind, file write → shown in the open tab."""
    rows = [
        [name, e["route"], e["median_s"], e["max_s"], e["cold_load_s"], e["ratio"]]
        for name, e in loop["edits"].items()
    ]
    return [
        "",
        f"## posviz serve --dev: an edit until the open tab shows it ({loop['rounds']} rounds)",
        "",
        "One tab open on the route the edit touches; the cold load is a fresh profile "
        "loading that route until its figures are drawn, in the same run (seconds).",
        "",
        *rows_table(["edit", "route", "median", "worst", "cold load", "÷ cold load"], rows),
    ]


def render(folder: Path) -> str:
    results = load(folder)
    machine = next(iter(results.values()))["machine"]
    lines = [
        "# Benchmark results",
        "",
        f"Measured {dates(results)} on {machine['cores']} cores, "
        f"{machine['memory_gib']} GiB, Python {machine['python']}, {machine['chromium']}. "
        "Regenerate with `./dev bench` (JSON in `benchmarks/results/`).",
        "",
        "## Targets",
        "",
    ]
    target_rows = []
    for what, target, read, met in TARGETS:
        try:
            value = read(results)
            target_rows.append([what, target, value, "met" if met(value) else "**missed**"])
        except (KeyError, TypeError, ZeroDivisionError):
            target_rows.append([what, target, "not measured", "—"])
    lines += rows_table(["what", "target", "measured", ""], target_rows)
    if "first_answer" in results:
        found = results["first_answer"]
        lines += [
            "",
            "## First slider answer on the cold topic (runs alternate, one run)",
            "",
            "Pressed by the harness (Playwright), after its round trips; the target's "
            "answer is the page's own press at its paint (the profile below).",
            "",
            *rows_table(
                ["site", "paint ms", "answer ms", "answer ÷ paint (median)", "(max)"],
                [
                    [
                        name,
                        v["first_paint_ms"]["median"],
                        v["first_answer_ms"]["median"],
                        v["answer_over_paint"]["median"],
                        v["answer_over_paint"]["max"],
                    ]
                    for name, v in found["variants"].items()
                ],
            ),
            "",
            f"Frames: {found['size']['frame_bytes']:,} bytes of a "
            f"{found['size']['site_bytes']:,}-byte site "
            f"({found['size']['frames_over_site']:.1%}). Without Panel's Python (every "
            "wheel but posviz's, and the Pyodide packages only Panel needs) it would weigh "
            f"{found['size'].get('site_without_panel_python_bytes', 0):,} bytes.",
            "",
            *_first_answer_profile(found),
        ]
    if "cold_load" in results:
        lines += ["", "## Cold load of the export (median of runs)", ""]
        rows = []
        for label, page in results["cold_load"]["pages"].items():
            rows.append(
                [
                    label,
                    page["runs"],
                    page["cold_first_paint_ms"]["median"],
                    page["cold_live_ms"]["median"],
                    page["cold_first_answer_ms"]["median"],
                    page["warm_live_ms"]["median"],
                    page["blocked_requests"],
                ]
            )
        lines += rows_table(
            [
                "page",
                "runs",
                "first paint ms",
                "live ms",
                "first answer ms",
                "warm live ms",
                "blocked requests",
            ],
            rows,
        )
        worker = [
            run["worker"]
            for run in results["cold_load"]["pages"]["topic"]["cold_runs"]
            if run.get("worker")
        ]
        if worker:
            lines += [
                "",
                "Where a cold topic load goes, inside the worker (ms, first run): "
                + ", ".join(f"{k} {v}" for k, v in worker[0].items())
                + ".",
            ]
    if "runtime" in results:
        lines += ["", "## One Python per reader (ratios measured in one run, median)", ""]
        before = results.get("runtime_before")
        rows = [
            [key, value, before["ratios"].get(key, "—") if before else "—"]
            for key, value in results["runtime"]["ratios"].items()
        ]
        was = f"before: a worker per page ({before['machine']['date']})" if before else "before"
        lines += rows_table(
            ["ratio", f"SharedWorker ({results['runtime']['machine']['date']})", was], rows
        )
        times = results["runtime"]["times_ms"]
        memory = results["runtime"]["memory_mb"]
        rows = [
            [key, value["median"], before["times_ms"][key]["median"] if before else "—"]
            for key, value in times.items()
            if "median" in value
        ] + [
            [key, value["median"], before["memory_mb"][key]["median"] if before else "—"]
            for key, value in memory.items()
        ]
        lines += ["", *rows_table(["median", "SharedWorker", "before"], rows)]
        lines += docs_timeline(results["runtime"])
    for name in sorted(key for key in results if key.startswith("cold_ab")):
        ab = results[name]
        derived = ab["derived"]
        lines += [
            "",
            f"## Cold start, A/B of the levers: {name} "
            f"({ab['rounds']} rounds, builds interleaved, median; "
            f"measured {ab['machine']['date']})",
            "",
        ]
        rows = [
            [
                name,
                d["topic_cold_over_floor"],
                d["floor_ms"],
                d["topic_cold_ms"],
                d["first_paint_ms"],
            ]
            for name, d in derived.items()
        ]
        lines += rows_table(
            ["build", "topic cold ÷ floor", "floor ms", "topic cold ms", "first paint ms"], rows
        )
        stages = sorted({key for d in derived.values() for key in d["stages_ms"]})
        rows = [[key, *(d["stages_ms"].get(key, "") for d in derived.values())] for key in stages]
        lines += ["", *rows_table(["worker stage, topic (ms)", *derived], rows)]
    if "step_cost" in results:
        steps = results["step_cost"]
        before = steps.get("before") or {}
        lines += [
            "",
            "## One slider step, Python side, in-process (CPU ms per step, median)",
            "",
        ]
        rows = []
        for figure_id, sliders in steps["after"].items():
            for name, after in sliders.items():
                old = before.get(figure_id, {}).get(name)
                rows.append(
                    [
                        figure_id,
                        name,
                        old["cpu_ms"]["median"] if old else "—",
                        after["cpu_ms"]["median"],
                        after["cpu_ms"]["p95"],
                        after["patch_bytes"],
                    ]
                )
        lines += rows_table(
            ["figure", "slider", "before", "after", "after p95", "patch bytes"], rows
        )
    if "slider_latency" in results:
        lines += ["", "## Slider → plot latency (keydown to new data drawn)", ""]
        before = results.get("slider_latency_before", {}).get("modes", {})

        def was(mode, figure, key):
            return before.get(mode, {}).get(figure, {}).get(key, "—")

        rows = [
            [
                figure,
                mode,
                data["n"],
                data["median"],
                data["p95"],
                was(mode, figure, "median"),
                was(mode, figure, "p95"),
            ]
            for mode, figures in results["slider_latency"]["modes"].items()
            for figure, data in figures.items()
        ]
        lines += rows_table(
            ["figure", "where", "steps", "median ms", "p95 ms", "before: median", "before: p95"],
            rows,
        )
    if "server_load" in results:
        load_ = results["server_load"]
        lines += ["", "## posviz serve under 20 sessions", ""]
        lines += rows_table(
            ["measure", "value"],
            [
                [
                    "updates",
                    f"{load_['load']['updates_done']} at {load_['load']['updates_per_s']}/s",
                ],
                [
                    "latency p50 / p95 ms",
                    f"{load_['load']['latency_ms']['median']} / "
                    f"{load_['load']['latency_ms']['p95']}",
                ],
                [
                    "RSS before / warm / after close MB",
                    f"{load_['rss_cold_mb']} / {load_['rss_warm_mb']} / {load_['rss_after_mb']}",
                ],
                [
                    "MB per session open / peak",
                    f"{load_['mb_per_session_open']} / {load_['mb_per_session_peak']}",
                ],
                ["second wave of 20: peak MB", load_["second_wave_peak_mb"]],
            ],
        )
    if "export_size" in results:
        lines += ["", "## Export size", ""]
        rows = [
            [part, data["files"], round(data["bytes"] / 1e6, 2), round(data["gzip_bytes"] / 1e6, 2)]
            for part, data in results["export_size"]["parts"].items()
        ]
        total = results["export_size"]["total"]
        rows.append(
            [
                "**total**",
                total["files"],
                round(total["bytes"] / 1e6, 2),
                round(total["gzip_bytes"] / 1e6, 2),
            ]
        )
        lines += rows_table(["part", "files", "MB on disk", "MB gzip"], rows)
    if "baseline" in results:
        pages = results["baseline"]["pages"]
        lines += ["", "## posviz against stock `panel convert` (same run)", ""]
        rows = []
        for key, label in (
            ("cold_first_paint_ms", "first paint ms"),
            ("cold_live_ms", "live ms, cold"),
            ("warm_live_ms", "live ms, warm"),
        ):
            ours, theirs = pages["posviz"][key]["median"], pages["baseline"][key]["median"]
            rows.append([label, ours, theirs, round(ours / theirs, 2)])
        ours, theirs = pages["posviz"]["size"]["bytes"], pages["baseline"]["size"]["bytes"]
        rows.append(
            ["size MB", round(ours / 1e6, 1), round(theirs / 1e6, 1), round(ours / theirs, 2)]
        )
        lines += rows_table(["metric", "posviz", "baseline", "ratio"], rows)
        notes = results["baseline"].get("notes")
        if notes:
            lines += [
                "",
                "Baseline notes: " + (" ".join(notes) if isinstance(notes, list) else str(notes)),
            ]
    if "engines" in results:
        measured = results["engines"]
        load_ = measured.get("load_average", {})
        lines += [
            "",
            "## Three engines: cold topic ÷ that engine's own floor (median of rounds)",
            "",
            f"Measured {measured['machine']['date']}, load average"
            f" {load_.get('before', '?')} before and {load_.get('after', '?')} after"
            " (1-minute, 5-minute, 15-minute; 2 cores). Floor: the bare page that starts the"
            " site's Pyodide and imports numpy; topic: until a keyboard step on its first slider"
            " redrew the plot. Both from the page's own clock, each round on a new origin.",
            "",
        ]
        rows = [
            [
                name,
                e["version"],
                e["rounds"],
                e["topic_over_floor"],
                e["floor_ms"]["median"],
                e["topic_ms"]["median"],
                e["blocked_requests"],
            ]
            for name, e in measured["engines"].items()
        ]
        lines += rows_table(
            ["engine", "version", "rounds", "topic ÷ floor", "floor ms", "topic ms", "blocked"],
            rows,
        )
    if "text_first" in results:
        data = results["text_first"]
        lines += [
            "",
            f"## Text first (reference: {data['reference']}; topic page cold, medians)",
            "",
        ]
        rows = [[name, *site["derived"].values()] for name, site in data["sites"].items()]
        lines += rows_table(["site", *next(iter(data["sites"].values()))["derived"]], rows)
    for name in ("scale", "scale_500"):  # scale_500: a run to N = 500 with its own N = 0
        if name in results:
            lines += scale_section(results[name])
    if "lazy" in results:
        lines += lazy_section(results["lazy"])
    if "hold" in results:
        lines += hold_section(results["hold"])
    if "build_cost" in results:
        lines += build_cost_section(results["build_cost"])
    if "dev_loop" in results:
        lines += dev_loop_section(results["dev_loop"])
    if "link_tiers" in results:
        lines += link_tiers_section(results["link_tiers"])
        devices = {"desktop (1280 px)": results["link_tiers"]}
        if "link_tiers_phone" in results:
            devices["phone (390 px)"] = results["link_tiers_phone"]
        lines += link_memory_section(devices)
    notes = folder.parent / "notes.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    (here / "RESULTS.md").write_text(render(here / "results"))
    print((here / "RESULTS.md").read_text())
