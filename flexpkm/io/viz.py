"""Off-screen pictures of mode shapes with pyvista: one PNG per mode (mode
number and frequency in the title, the undeformed robot as a translucent
ghost, the deformed robot coloured by its relative displacement) and
animated GIFs (written with Pillow, so imageio is not needed).

Camera (:func:`camera_view`, parallel projection, window shaped to the
robot): a planar model (``Robot.plane_normal``) is seen along its plane
normal; a spatial one from an isometric-ish point above (``-gravity`` up, or
``+z_0`` without gravity). The geometry (m, base frame) comes from
:mod:`flexpkm.io.geometry`. Rendering needs no display (plotters are made with ``off_screen=True``).
"""
from __future__ import annotations

import contextlib
import ctypes.util
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flexpkm.errors import InvalidArgumentError

from flexpkm.io.geometry import RobotGeometry, auto_scale, mode_geometries
from flexpkm.io.mesh import JOINT, KINDS
from flexpkm.io.run_files import atomic_write

#: height of the PNG windows, px (the width follows the robot's aspect ratio)
WINDOW_HEIGHT = 900
BACKGROUND = "white"
GHOST = dict(color="#9aa5b1", opacity=0.25)
JOINT_COLOR = "#3d4450"
CMAP = "plasma"
#: direction of the isometric-ish view (from the focal point to the camera,
#: in the frame whose third axis is "up")
ISO_DIRECTION = (1.0, -1.4, 1.3)


def pyvista():
    """Import pyvista (the ``viz`` extra, imported on first use; a
    :class:`flexpkm.errors.MissingDependencyError` naming the extra when it
    is not installed). Nothing process-wide is changed."""
    from flexpkm.optional import require
    return require("pyvista", "mode pictures")


@contextlib.contextmanager
def headless_window(off_screen: bool):
    """While a plotter is made: without a display (no ``DISPLAY`` or
    ``WAYLAND_DISPLAY``), an off-screen render window is EGL's
    (``VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow``, unless the user set
    it), so that VTK does not first try X and print "bad X server
    connection" on stderr (its logger, vtkXOpenGLRenderWindow). The variable
    is restored afterwards."""
    key = "VTK_DEFAULT_OPENGL_WINDOW"
    headless = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if not (off_screen and headless) or key in os.environ or not ctypes.util.find_library("EGL"):
        yield
        return
    os.environ[key] = "vtkEGLRenderWindow"
    try:
        yield
    finally:
        os.environ.pop(key, None)


def to_pyvista(geometry: RobotGeometry, scale: float = 1.0, deformed: bool = True,
               kinds=None):
    """A ``pyvista.UnstructuredGrid`` of hexahedra of the parts.

    scale : multiplies the displacement when ``deformed``.
    kinds : subset of :data:`flexpkm.io.geometry.KINDS` to keep (default all).
    Point data: ``displacement`` (n, 3) m and ``rotation`` (n, 3) rad, both
    times ``scale``; ``relative |u|`` (n,) = |u| / max |u| over the whole
    robot (0 when nothing moves). Cell data: ``part``, ``kind``.
    """
    pv = pyvista()
    mesh = geometry.mesh()
    keep = np.isin(mesh.cell_kind, [KINDS.index(k) for k in (kinds or KINDS)])
    pts = mesh.reference + (scale * mesh.displacement if deformed else 0.0)
    grid = pv.UnstructuredGrid({pv.CellType.HEXAHEDRON: mesh.cells[keep]}, pts)
    u = scale * mesh.displacement
    norm = np.linalg.norm(u, axis=-1)
    grid.point_data["displacement"] = u
    grid.point_data["rotation"] = scale * mesh.rotation
    grid.point_data["relative |u|"] = norm / norm.max() if norm.max() > 0 else norm
    grid.cell_data["part"] = mesh.cell_part[keep]
    grid.cell_data["kind"] = mesh.cell_kind[keep]
    return grid


@dataclass(frozen=True)
class View:
    """Camera: unit direction from the focal point to the camera and the
    view-up vector (base frame), and whether the projection is parallel."""

    direction: tuple
    up: tuple
    parallel: bool


def camera_view(robot, view="auto") -> View:
    """The camera of :func:`render_mode` for a robot.

    view : ``"auto"`` (``"normal"`` for a planar model, else ``"iso"``),
    ``"normal"`` (along ``robot.plane_normal``, up = the in-plane projection
    of -gravity, else of z_0, else of y_0), ``"iso"`` (from above, up = -gravity or z_0), or
    a :class:`View` (returned as is).
    Raises ValueError for an unknown view or ``"normal"`` without a plane.
    """
    if isinstance(view, View):
        return view
    if view == "auto":
        view = "normal" if robot.plane_normal is not None else "iso"
    if view == "normal":
        if robot.plane_normal is None:
            raise InvalidArgumentError(f"{robot.name} is not planar: no plane normal to look along")
        n = np.asarray(robot.plane_normal, float)
        g = -np.asarray(robot.gravity, float)
        for axis in (g / max(np.linalg.norm(g), 1e-300), np.eye(3)[2], np.eye(3)[1]):
            up = axis - (axis @ n) * n
            if np.linalg.norm(up) > 1e-6:
                return View(tuple(n), tuple(up / np.linalg.norm(up)), True)
    if view == "iso":
        g = np.asarray(robot.gravity, float)
        up = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.eye(3)[2]
        a = np.eye(3)[0] - (np.eye(3)[0] @ up) * up
        if np.linalg.norm(a) < 1e-6:
            a = np.eye(3)[1] - (np.eye(3)[1] @ up) * up
        a /= np.linalg.norm(a)
        frame = np.column_stack([a, np.cross(up, a), up])
        d = frame @ np.asarray(ISO_DIRECTION)
        return View(tuple(d / np.linalg.norm(d)), tuple(up), True)
    raise InvalidArgumentError(f"unknown view {view!r} (use 'auto', 'normal' or 'iso')")


def _plotter(window_size, off_screen=True):
    pv = pyvista()
    with headless_window(off_screen):
        pl = pv.Plotter(off_screen=off_screen, window_size=list(window_size))
    pl.set_background(BACKGROUND)
    return pl


#: fractions of the window used by the robot (the rest: title, text, colour bar)
_USED_HEIGHT, _USED_WIDTH = 0.82, 0.72


def _screen_box(view: View, points: np.ndarray):
    """(centre (3,), width, height) of the points (n, 3) seen along
    ``view`` (m): the centre of their screen-aligned box."""
    d = np.asarray(view.direction)
    up = np.asarray(view.up) - (np.asarray(view.up) @ d) * d
    up /= np.linalg.norm(up)
    right = np.cross(-d, up)
    axes = np.stack([right, up, d])
    lo, hi = (points @ axes.T).min(axis=0), (points @ axes.T).max(axis=0)
    return axes.T @ (0.5 * (lo + hi)), float(hi[0] - lo[0]), float(hi[1] - lo[1])


def window_for(view: View, points: np.ndarray, height: int = WINDOW_HEIGHT) -> tuple:
    """Window (width, height) px fitting the aspect ratio of the points
    (n, 3) seen along ``view`` (width within 900..1800 px)."""
    _, w, h = _screen_box(view, points)
    width = _USED_HEIGHT * height * w / max(h, 1e-12) / _USED_WIDTH
    return int(np.clip(round(width), 900, 1800)), int(height)


def _place_camera(pl, view: View, points: np.ndarray):
    """Point the camera along ``view`` and fit the points (n, 3) into the
    part of the window left by the title, text and colour bar."""
    centre, w, h = _screen_box(view, points)
    dist = 3 * (float(np.linalg.norm(np.ptp(points, axis=0))) or 1.0)
    pl.camera.focal_point = tuple(centre)
    pl.camera.position = tuple(centre + dist * np.asarray(view.direction))
    pl.camera.up = view.up
    pl.reset_camera_clipping_range()
    W, H = pl.window_size
    half = 0.5 * max(h / _USED_HEIGHT, w * H / (W * _USED_WIDTH))
    if view.parallel:
        pl.enable_parallel_projection()
        pl.camera.parallel_scale = half
    else:
        pl.camera.view_angle = 2 * np.degrees(np.arctan(half / dist))


def _scene(pl, geometry: RobotGeometry, scale: float, ghost: bool):
    """Add the ghost and the deformed robot; returns the deformed meshes
    (coloured parts, joints) for animation."""
    if ghost:
        pl.add_mesh(to_pyvista(geometry, deformed=False), **GHOST, show_scalar_bar=False)
    body = to_pyvista(geometry, scale, kinds=[k for k in KINDS if k != JOINT])
    joints = to_pyvista(geometry, scale, kinds=[JOINT])
    pl.add_mesh(body, scalars="relative |u|", cmap=CMAP, clim=(0.0, 1.0),
                scalar_bar_args=dict(title="relative\ndisplacement", n_labels=3, fmt="%.1f",
                                     vertical=True, position_x=0.87, position_y=0.25,
                                     height=0.5, width=0.05, color="black"))
    if joints.n_cells:
        pl.add_mesh(joints, color=JOINT_COLOR, show_scalar_bar=False)
    return body, joints


def _frame_points(geometry: RobotGeometry, scale: float) -> np.ndarray:
    """Nodes of the robot at the amplitudes +scale and -scale (2n, 3)."""
    mesh = geometry.mesh()
    return np.concatenate([mesh.reference + scale * mesh.displacement,
                           mesh.reference - scale * mesh.displacement])


def _texts(pl, title: str, subtitle: str):
    pl.add_text(title, position="upper_edge", font_size=14, color="black")
    if subtitle:
        pl.add_text(subtitle, position="lower_left", font_size=9, color="black")


def scene_plotter(robot, geometry, scale, title, subtitle, view, ghost, window_size, shrink=1.0,
           off_screen=True):
    """Plotter with the scene, texts and camera; returns (plotter, body
    mesh, joint mesh). The default window (:func:`window_for`) is
    multiplied by ``shrink``."""
    cam, pts = camera_view(robot, view), _frame_points(geometry, scale)
    pl = _plotter(window_size or tuple(int(shrink * x) for x in window_for(cam, pts)),
                  off_screen)
    body, joints = _scene(pl, geometry, scale, ghost)
    _texts(pl, title, subtitle)
    _place_camera(pl, cam, pts)
    return pl, body, joints


def _output(path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def render_mode(robot, geometry: RobotGeometry, scale: float, path, title: str = "",
                subtitle: str = "", view="auto", ghost: bool = True,
                window_size=None) -> Path:
    """Write a PNG of ``geometry`` deformed by ``scale`` times its
    displacement (a :func:`flexpkm.io.geometry.mode_geometry` field), coloured
    by the relative displacement, with the undeformed robot as a ghost.

    view : see :func:`camera_view`; window_size : (width, height) px, default
    :func:`window_for`. Returns the path (parent folders made).
    """
    path = _output(path)
    pl, _, _ = scene_plotter(robot, geometry, scale, title, subtitle, view, ghost, window_size)
    with atomic_write(path) as tmp:
        pl.screenshot(str(tmp))
    pl.close()
    return path


def animate_mode(robot, geometry: RobotGeometry, scale: float, path, title: str = "",
                 subtitle: str = "", view="auto", ghost: bool = True,
                 n_frames: int = 24, fps: float = 12.0, window_size=None) -> Path:
    """Write an animated GIF (Pillow) of one period of the mode: amplitude
    ``scale sin(2 pi k / n_frames)``, k = 0..n_frames-1, fixed camera,
    looping forever (GIF delays are whole centiseconds; Pillow merges
    identical frames). Default window: 70 % of :func:`render_mode`'s."""
    from PIL import Image
    path = _output(path)
    pl, body, joints = scene_plotter(robot, geometry, scale, title, subtitle, view, ghost,
                              window_size, shrink=0.7)
    refs = [(m, m.points - m.point_data["displacement"], np.array(m.point_data["displacement"]),
             np.array(m.point_data["relative |u|"])) for m in (body, joints)]
    frames = []
    for k in range(int(n_frames)):
        a = np.sin(2 * np.pi * k / n_frames)
        for m, ref, u, rel in refs:
            m.points = ref + a * u
            m.point_data["relative |u|"] = abs(a) * rel
        pl.render()
        frames.append(Image.fromarray(pl.screenshot(None, return_img=True)))
    pl.close()
    with atomic_write(path) as tmp:
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], loop=0,
                       duration=int(round(1000 / fps)), optimize=False)
    return path


def mode_title(robot, number: int, frequency_hz: float) -> str:
    """``"DualEMPS - mode 1: 14.21 Hz"``."""
    return f"{robot.name} - mode {number}: {frequency_hz:.2f} Hz"


def pose_text(pose: dict) -> str:
    """``"q11 = 0, q21 = 0"`` from a pose dict (numbers with ``:g``; tuples of
    option values, e.g. NaVARo's working modes, as ``(-1, -1, -1)``; text as is)."""
    def text(v):
        if isinstance(v, (tuple, list)):
            return "(" + ", ".join(text(x) for x in v) + ")"
        return f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
    return ", ".join(f"{k} = {text(v)}" for k, v in pose.items())


def scale_text(geometry: RobotGeometry, scale: float) -> str:
    """``"scale 0.0392: largest displacement 80.3 mm, largest rotation 20.1 deg"``."""
    return (f"scale {scale:.3g}: largest displacement {1e3 * scale * geometry.max_displacement:.3g} mm, "
            f"largest rotation {np.degrees(scale * geometry.max_rotation):.3g} deg")


def render_modes(robot, q_tot, modes, numbers, directory, prefix: str, fraction: float = 0.1,
                 scale: float | None = None, gif: bool = False, pose: dict | None = None,
                 view="auto") -> list:
    """PNGs (and GIFs) ``directory/{prefix}_mode_{k}.png`` of the modes.

    q_tot : nominal state (n_tot,) or (n_t,) of the first pose of ``modes``
            (a :class:`flexpkm.algorithms.modal.Modes`); numbers : 1-based mode numbers.
    scale : displacement factor, default :func:`flexpkm.io.geometry.auto_scale`
            with ``fraction`` (largest displacement / robot size).
    Returns the written paths. Raises ValueError for a mode number out of
    ``1..n_modes``.
    """
    out = []
    for k, f, geo in mode_geometries(robot, q_tot, modes, numbers):
        s = auto_scale(geo, fraction) if scale is None else float(scale)
        title = mode_title(robot, k, f)
        sub = (pose_text(pose) + "; " if pose else "") + scale_text(geo, s)
        out.append(render_mode(robot, geo, s, Path(directory) / f"{prefix}_mode_{k}.png",
                               title, sub, view))
        if gif:
            out.append(animate_mode(robot, geo, s, Path(directory) / f"{prefix}_mode_{k}.gif",
                                    title, sub, view))
    return out
