"""The declaration of a shipped robot as the front ends see it
(:class:`Case`, :class:`Option`); re-exported as ``flexpkm.cases.Case`` and
``flexpkm.cases.Option``. In a module of its own so that the case modules
import it without importing the package that lists them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional


@dataclass(frozen=True)
class Option:
    """A model option of a case (e.g. the NaVARo's actuation mode).

    name : option name without dashes (``"refined"``)
    help : one sentence with the unit and the default
    kind : ``"flag"`` (True when given), ``"choice"`` (one of ``choices``),
           ``"ints"`` / ``"floats"`` (``nargs`` integers / finite numbers) or
           ``"text"``
    default : value when the option is not given
    flag : the command-line flag (default ``--`` + name with dashes)
    """

    name: str
    help: str
    kind: str = "flag"
    default: object = None
    choices: tuple = ()
    nargs: int = 1
    flag: str = ""


@dataclass(frozen=True)
class Case:
    """A shipped robot, as the front ends see it.

    name : short name (``"dualemps"``)
    title : one line for help texts
    pose_option : the command-line option of a pose (``"q-a"``, ``"pose"``)
    pose_names, pose_units, pose_default : the pose components (SI units);
                 a None default is the robot's reference configuration
    options : model options (:class:`Option`)
    robot : ``options -> Robot`` (options: name -> value for every option)
    configure : ``(model, pose (k,) or (B, k), options) -> q_tot`` (n_tot,) or (B, n_tot);
                options may also hold ``"guess"``, a neighbouring pose's q_tot that a
                numerical assembly starts from (continuation; closed forms ignore it)
    reference : ``(pose (k,), options) -> tuple of Hz or None`` (published values)
    reference_label : where the reference comes from (``"book"``)
    view : camera of the mode pictures (``"normal"``: along the plane normal)
    simulation : ``(maneuver, drive, options) -> (robot, q0_tot, drive, sensors)``
                 or None when the case has no simulation set-up
    maneuvers : names accepted by ``simulation``
    duration : ``maneuver -> seconds``
    variant : ``options -> name or None``, the ``[variants.NAME]`` of the
            description file that ``robot(options)`` reads
    extra : other facts: ``"idm": True`` for a case offered by ``flexpkm
            idm`` (a closed-form inverse geometric model along paths),
            ``"file"``: the description file of a file's case (its
            command-line behaviour: ``--pose``/``--q-a``, ``--variant``),
            ``"source"``: the description file the robot is read from (every
            case has one, :attr:`source`)
    """

    name: str
    title: str
    pose_option: str
    pose_names: tuple
    pose_units: tuple
    pose_default: tuple
    robot: Callable
    configure: Callable
    options: tuple = ()
    reference: Callable = lambda pose, options: None
    reference_label: str = "book"
    view: str = "auto"
    simulation: Optional[Callable] = None
    maneuvers: tuple = ()
    duration: Optional[Callable] = None
    extra: Mapping = field(default_factory=dict)
    variant: Callable = lambda options: options.get("variant")

    @property
    def source(self):
        """The description file (str) the robot is read from, or None."""
        return self.extra.get("source") or self.extra.get("file")

    def pose_dict(self, pose, options) -> dict:
        """Pose components and option values, for printing and JSON."""
        out = {} if pose is None else {n: float(v) for n, v in zip(self.pose_names, pose)}
        out.update({k: v for k, v in options.items() if v not in (None, False)})
        return out
