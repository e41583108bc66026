"""Settings of the Isaac Sim backend, typed and strict like every JARVIS config (saved with each episode's
provenance through `IsaacBackend.config`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class IsaacConfig(BaseModel):
    """Physics, control, camera and clutch settings of the Isaac backend."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    headless: bool = Field(True, description="Run Kit without a window (the service and CI on a workstation).")
    physics_dt: float = Field(1.0 / 600.0, gt=0, le=0.01, description="PhysX step, s (2.3 g bricks need small steps).")
    control_dt: float = Field(0.01, gt=0, le=0.05, description="Seconds per Backend.step tick (MuJoCo's too).")
    device: Literal["cpu", "cuda:0"] = Field(
        "cpu", description="PhysX device; clutch welds are joints created and toggled while playing, which Isaac "
        "Sim supports on CPU physics only.")
    assets_root: str | None = Field(None, description="Isaac assets root (None: isaacsim.storage.native's default, "
                                    "remote unless the workstation mirrors the assets).")
    franka_usd: str = Field("/Isaac/Robots/FrankaRobotics/FrankaPanda/franka.usd",
                            description="Franka asset, relative to the assets root.")
    image_width: int = Field(640, ge=16, le=4096)
    image_height: int = Field(480, ge=16, le=4096)
    top_camera_height_m: float = Field(0.8, gt=0.2, description="Height of the top-down camera over the table.")
    top_camera_fovy_deg: float = Field(45.0, gt=5, lt=120, description="Vertical field of view (MuJoCo's default).")
    side_camera: bool = Field(True, description="Add an oblique view from the front.")
    focal_length_mm: float = Field(18.0, gt=0, description="USD camera focal length; apertures follow from the fov.")
    grip_force_n: float = Field(20.0, gt=0, description="Default finger force of a close command.")
    capture_xy_m: float = Field(0.0006, gt=0, le=0.003, description="In-plane capture of a press into studs, m.")
    capture_z_m: float = Field(0.0008, gt=0, le=0.003, description="Height above the seated pose still captured, m.")
    capture_yaw_rad: float = Field(0.02, gt=0, le=0.1, description="Yaw capture of a press, rad.")
    press_force_n: float = Field(3.0, gt=0, description="Downward contact force that seats a captured brick, N.")
    clutch_n_per_stud: float = Field(1.2, gt=0, description="Load one stud's clutch holds before it lets go, N.")
