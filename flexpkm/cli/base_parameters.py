"""``flexpkm base-parameters CASE|FILE.toml [--samples N] [--seed S]
[--spread X] [--no-friction] [--json]``: the base dynamic parameters of a
rigid robot by the QR decomposition of its observation matrix at random
states (Briot & Khalil Section 8.7.4; :mod:`flexpkm.identification.base`):
the standard parameters without effect, and each base parameter with its
grouping relation in the file's names (``ZZ11R = ZZ11 + IA11 - 0.24158
MX12 + 0.045369 M12``) and its value from the file. A flexible robot is
refused (exit 2): the identification of elastic parameters is not in
Section 8.7."""
from __future__ import annotations

from flexpkm.cli.common import case_command, count, emit, model_of, positive


def register(subparsers, files=()):
    case_command(subparsers, "base-parameters", add_sampling, run,
                 help="base dynamic parameters and their groupings (rigid robots)",
                 description=__doc__.splitlines()[0],
                 pose=False,
                 files=files)


def add_sampling(p, case=None):
    """The options of the random states (shared with ``identify``)."""
    p.add_argument("--samples", type=count, default=None, metavar="N",
                   help="random states of the observation matrix (default max(20, 1.5 n_st/n_a))")
    p.add_argument("--seed", type=int, default=0, help="seed of the random states (default 0)")
    p.add_argument("--spread", type=positive, default=0.02, metavar="X",
                   help="the random poses' range around the reference, m or rad (default 0.02)")
    p.add_argument("--no-friction", action="store_true",
                   help="without the friction parameters FV, FS (default: with)")


def base_of(args, model):
    """The :class:`flexpkm.identification.base.BaseParameters` of the parsed options."""
    from flexpkm.identification.base import base_parameters
    return base_parameters(model, samples=args.samples, seed=args.seed, spread=args.spread,
                           friction=not args.no_friction)


def run(args) -> int:
    model = model_of(args)
    bp = base_of(args, model)
    std = bp.standard.symbols
    lines = [f"{model.name}: {bp.n_b} base parameters of {len(std)} standard ones "
             f"({len(bp.zero)} without effect, {len(bp.grouped)} grouped; QR of "
             f"{bp.samples} random states)"]
    lines += [f"  {s:<10} = {v:<13.6g} {bp.relation(i) if s.endswith('R') else ''}".rstrip()
              for i, (s, v) in enumerate(zip(bp.symbols, bp.values))]
    lines.append("without effect: " + (" ".join(std[k] for k in bp.zero) or "none"))
    emit(args, {"case": args.case.name, **bp.to_dict()}, lines)
    return 0
