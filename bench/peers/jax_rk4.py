"""What a JAX user writes instead of rbmc: the same 13-state right-hand side (quaternion
kinematics, Euler's equations with the full inertia tensor of bench/bench_body.hpp, uniform
gravity), classical RK4, vmapped over N samples, the steps in a jitted lax.fori_loop. Timed after
a warm-up (which compiles), median of repetitions, synchronised with block_until_ready.

    python3 bench/peers/jax_rk4.py [--n N] [--steps S] [--repetitions R] [--float32]
"""
import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--float32", action="store_true")
    args = parser.parse_args()
    if not args.float32:
        jax.config.update("jax_enable_x64", True)
    dtype = jnp.float32 if args.float32 else jnp.float64

    inertia = jnp.array([[0.0135958213, -0.0007921593, -0.0053268325],
                         [-0.0007921593, 0.0170577090, -0.0036351764],
                         [-0.0053268325, -0.0036351764, 0.0160131363]], dtype=dtype)
    inverse = jnp.linalg.inv(inertia)
    gravity = jnp.array([0.0, 0.0, -9.81], dtype=dtype)
    h = dtype(1e-3)

    def rhs(x):
        q, v, w = x[3:7], x[7:10], x[10:13]
        qw, qx, qy, qz = q
        wx, wy, wz = w
        q_dot = 0.5 * jnp.array([-qx * wx - qy * wy - qz * wz, qw * wx + qy * wz - qz * wy,
                                 qw * wy + qz * wx - qx * wz, qw * wz + qx * wy - qy * wx])
        w_dot = inverse @ (-jnp.cross(w, inertia @ w))
        return jnp.concatenate([v, q_dot, gravity, w_dot])

    def rk4(x):
        k1 = rhs(x)
        k2 = rhs(x + 0.5 * h * k1)
        k3 = rhs(x + 0.5 * h * k2)
        k4 = rhs(x + h * k3)
        return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    step_all = jax.vmap(rk4)

    @jax.jit
    def integrate(x0):
        return jax.lax.fori_loop(0, args.steps, lambda _, x: step_all(x), x0)

    rng = np.random.default_rng(1)
    x0 = np.zeros((args.n, 13))
    x0[:, 3] = 1
    x0[:, 7:10] = [1.0, 0.0, 5.0]
    x0[:, 10:13] = [0.1, 4.0, 0.2] + 0.05 * rng.standard_normal((args.n, 3))
    x0 = jnp.asarray(x0, dtype=dtype)
    integrate(x0).block_until_ready()  # compile and warm up
    times = []
    for _ in range(args.repetitions):
        start = time.perf_counter()
        integrate(x0).block_until_ready()
        times.append(time.perf_counter() - start)
    t = float(np.median(times))
    print("jax %s on %s: N = %d x %d RK4 steps: %.4f s, %.3g body-steps/s" %
          ("float32" if args.float32 else "float64", jax.devices()[0].device_kind, args.n, args.steps, t,
           args.n * args.steps / t))


if __name__ == "__main__":
    main()
