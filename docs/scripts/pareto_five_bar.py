"""The five-bar's Pareto front of the worst f1 vs the mass (docs/optimisation.md):
the epsilon-constraint method (SLSQP, exact gradients) and NSGA-II (pymoo),
their dominance margins; writes docs/img/pareto_five_bar.png and
docs/img/pareto_five_bar.csv. Run: OMP_NUM_THREADS=1 python docs/scripts/pareto_five_bar.py"""
import time
from pathlib import Path

from flexpkm.analysis.design_problem import DesignProblem
from flexpkm.analysis.pareto import (dominance_margin, epsilon_front, nsga2_front, plot_fronts,
                                     write_fronts)
from flexpkm.model.files import Where, parse

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "cases" / "examples" / "five_bar.toml"
PROX = tuple(f"legs[{k}].frames[0].bodies[0].section.b_y" for k in (0, 1))
DIST = tuple(f"legs[{k}].frames[1].bodies[1].section.b_y" for k in (0, 1))
POSES = [[0.1, 0.35], [0.05, 0.4], [0.15, 0.3]]

problem = DesignProblem(parse(FILE.read_text(encoding="utf-8"), Where(str(FILE))),
                        {PROX: (0.003, 0.0095), DIST: (0.0005, 0.008)}, POSES)
t = time.process_time()
eps = epsilon_front(problem, 7)
t_eps = time.process_time() - t
t = time.process_time()
nsga = nsga2_front(problem, population=24, generations=25, seed=0)
t_nsga = time.process_time() - t
print(f"epsilon: {len(eps.x)} points, {t_eps:.1f} s CPU, {problem.evaluations} gradient evaluations")
for (f, m), x in zip(eps.values, eps.x):
    print(f"  f1 {f:8.4f} Hz  mass {m:.4f} kg  b_prox {1e3 * x[0]:.3f} mm  b_dist {1e3 * x[1]:.3f} mm")
print(f"NSGA-II: {len(nsga.x)} points, {t_nsga:.1f} s CPU (24 x 25 evaluations)")
print(f"margin epsilon over NSGA-II {dominance_margin(eps, nsga):.3e}, "
      f"NSGA-II over epsilon {dominance_margin(nsga, eps):.3e}")
write_fronts([eps, nsga], ROOT / "docs" / "img" / "pareto_five_bar.csv")
plot_fronts([eps, nsga], ROOT / "docs" / "img" / "pareto_five_bar.png",
            title="five-bar: worst f1 over 3 poses vs mass")
