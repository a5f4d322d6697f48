#!/usr/bin/env python
"""Write one OpenCompass config per run of a G-Pass@k grid, plus manifest.json.

    python save_opencompass_configs.py                       # quickstart.py -> ./opencompass_configs
    python save_opencompass_configs.py -tc opencompass_config_templates/nono1.py \\
        --output_dir configs_nono1 --set "temperatures=[0.7,1.0]" n=16 --dry-run

The default template, ``quickstart.py``, is the laptop grid: one small model on a local
OpenAI-compatible server (llama.cpp at http://127.0.0.1:8080/v1), AIME2025, n = 8, the rule
judge.  ``nono1.py`` and ``o1.py`` are the paper's grids (lmdeploy on CUDA GPUs),
``self_served.py`` the same on your own server, ``close.py`` on hosted APIs
(docs/generator.md).  Then ``gpassk grid run <output_dir> -w outputs/`` runs them all.

The work is in :mod:`gpassk_opencompass.grid.spec` (what to run) and :mod:`gpassk_opencompass.grid.writer`
(rendering, writing); this script only parses arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_TEMPLATE = Path(__file__).resolve().parent / "opencompass_config_templates" / "quickstart.py"
DEFAULT_OUTPUT_DIR = "opencompass_configs"
PROG = "save_opencompass_configs.py"
EPILOG = """examples:
  python save_opencompass_configs.py                  # the laptop grid (quickstart.py)
  python save_opencompass_configs.py -tc opencompass_config_templates/nono1.py --output_dir configs_nono1
  python save_opencompass_configs.py --set model_url=http://127.0.0.1:11434/v1 server=ollama top_k=None \\
      repetition_penalty=None "models=[{'path': 'qwen2.5:0.5b'}]"    # the laptop grid on Ollama
then: gpassk grid run opencompass_configs -w outputs/ (docs/grid.md); templates: docs/generator.md"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__.split("\n\n")[0],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-tc",
        "--config_template_file",
        default=str(DEFAULT_TEMPLATE),
        metavar="TEMPLATE",
        help="grid template (default: opencompass_config_templates/quickstart.py, the laptop grid)",
    )
    parser.add_argument(
        "--output_dir",
        default=DEFAULT_OUTPUT_DIR,
        metavar="DIR",
        help="where the configs and manifest.json go (default: %(default)s)",
    )
    parser.add_argument(
        "--set",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help='override template variables, e.g. --set "temperatures=[0.7,1.0]" n=16 '
        "(values are Python literals; a bracketed list of bare words is a list of strings)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would be written; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from gpassk_opencompass.cli import configure_logging, exit_code

    configure_logging()  # the CLI's one set-up: the package's records on, redacted, on stderr
    from gpassk_opencompass.grid import overrides, spec, writer

    try:
        assignments = dict(overrides.parse_override(assignment) for assignment in args.set)
        template = writer.load_template(args.config_template_file, assignments)
        runs = spec.expand(template)
        files = writer.plan(runs, template, args.config_template_file)
        if args.dry_run:
            print("\n".join(writer.dry_run_lines(files, args.output_dir, force=args.force)))
            return 0
        writer.write(files, args.output_dir, force=args.force)
    except (Exception, KeyboardInterrupt) as error:  # one line and its exit code, as every gpassk command
        code = exit_code(PROG, error)
        if code is None:
            raise  # a bug: its traceback, exit code 1
        return code
    print(f"wrote {len(runs)} configs + {writer.MANIFEST} to {args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
