"""docs/tutorial.md's Python, run as written: section 4's sweep table from rbmc.run and
Results.to_dataframe, against the closed form of section 1, and section 5's orbit against the
splitting's lag."""
import math
import pathlib

import numpy as np

from conftest import run_quietly

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def complete_elliptic_k(k):
    """K(k) = π / (2 AGM(1, √(1 − k²)))."""
    a, b = 1.0, math.sqrt(1 - k * k)
    for _ in range(40):
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def test_the_sweep_table_gives_the_pendulums_periods():
    r = run_quietly(SOURCE / "docs/tutorial/pendulum_period.toml", output="pendulum.h5")
    table = r.to_dataframe(["grid.initial.attitude", "events.bottom.time"])
    table["period_s"] = 4 * table["events.bottom.time"]
    table["amplitude_deg"] = 90 - np.degrees(table["grid.initial.attitude.y"])
    np.testing.assert_allclose(table["amplitude_deg"], [90.0, 30.0], atol=1e-12)
    # T = 4 K(sin(φ₀/2)) / ω₀, ω₀² = m g (l/2) / (m l²/3): within 1e-6 relative, the bound
    # Cli.TutorialPendulumPeriod derives (RK4 at 0.5 ms and the event's interpolant err ~1e-11).
    omega0 = math.sqrt(10 * 9.81 * 0.5 / (10 * 1.0 / 3))
    for period, amplitude in zip(table["period_s"], table["amplitude_deg"]):
        expected = 4 * complete_elliptic_k(math.sin(math.radians(amplitude) / 2)) / omega0
        assert abs(period - expected) <= 1e-6 * expected
    assert list(table.index) == [0, 1]


def test_the_orbit_ends_behind_its_start_by_the_splittings_lag(tmp_path):
    # Section 5: 2π a (nh)²/3 along the track; within 1e-4 m, the bound
    # Cli.SatelliteExampleClosesItsOrbitButForTheSplittingsLag derives (the lag's next term and the
    # steps' rounding of a 7,000 km position).
    r = run_quietly(SOURCE / "configs/satellite_gravity_gradient.toml", samples=8, output=tmp_path / "orbit.h5")
    end = r.to_dataframe(["final.position"])
    a, n = 7.0e6, math.sqrt(3.986004418e14 / 7.0e6 ** 3)
    lag = 2 * math.pi * a * (n * r.attrs["step"]) ** 2 / 3
    assert abs(lag - 4.258614) < 1e-6
    np.testing.assert_allclose(-end["final.position.y"], lag, rtol=0, atol=1.6e-4)
