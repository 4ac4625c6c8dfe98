"""What a PyTorch user writes instead of rbmc: the same 13-state body as bench/bench_body.hpp,
RK4 on (N, 13) tensors on the GPU, one vectorised operation after another, a Python loop over
the steps. Timed after a warm-up, median of repetitions, with torch.cuda.synchronize.

    python3 bench/peers/torch_rk4.py [--n N] [--steps S] [--repetitions R] [--float32]
"""
import argparse
import time

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000000)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--float32", action="store_true")
    args = parser.parse_args()
    dtype = torch.float32 if args.float32 else torch.float64
    device = torch.device("cuda")
    inertia = torch.tensor([[0.0135958213, -0.0007921593, -0.0053268325],
                            [-0.0007921593, 0.0170577090, -0.0036351764],
                            [-0.0053268325, -0.0036351764, 0.0160131363]], dtype=dtype, device=device)
    inverse = torch.linalg.inv(inertia)
    gravity = torch.tensor([0.0, 0.0, -9.81], dtype=dtype, device=device)
    h = 1e-3

    def rhs(x):
        q, v, w = x[:, 3:7], x[:, 7:10], x[:, 10:13]
        qw, qx, qy, qz = q.unbind(1)
        wx, wy, wz = w.unbind(1)
        q_dot = 0.5 * torch.stack([-qx * wx - qy * wy - qz * wz, qw * wx + qy * wz - qz * wy,
                                   qw * wy + qz * wx - qx * wz, qw * wz + qx * wy - qy * wx], dim=1)
        w_dot = -torch.linalg.cross(w, w @ inertia.T) @ inverse.T
        return torch.cat([v, q_dot, gravity.expand_as(v), w_dot], dim=1)

    def integrate(x):
        for _ in range(args.steps):
            k1 = rhs(x)
            k2 = rhs(x + 0.5 * h * k1)
            k3 = rhs(x + 0.5 * h * k2)
            k4 = rhs(x + h * k3)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return x

    gen = torch.Generator(device="cpu").manual_seed(1)
    x0 = torch.zeros(args.n, 13, dtype=dtype)
    x0[:, 3] = 1
    x0[:, 7:10] = torch.tensor([1.0, 0.0, 5.0], dtype=dtype)
    x0[:, 10:13] = torch.tensor([0.1, 4.0, 0.2], dtype=dtype) + 0.05 * torch.randn(args.n, 3, generator=gen, dtype=dtype)
    x0 = x0.to(device)
    with torch.no_grad():
        integrate(x0[: min(args.n, 1024)])  # warm up
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repetitions):
            start = time.perf_counter()
            integrate(x0)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - start)
    times.sort()
    t = times[len(times) // 2]
    print("torch %s on %s: N = %d x %d RK4 steps: %.4f s, %.3g body-steps/s" %
          ("float32" if args.float32 else "float64", torch.cuda.get_device_name(), args.n, args.steps, t,
           args.n * args.steps / t))


if __name__ == "__main__":
    main()
