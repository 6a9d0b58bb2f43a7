#!/usr/bin/env python3
"""The demo CNN's training step on a GPU in PyTorch: the peer of
`bench_train_step --models cnn --device gpu`.

Same model (TensorFlow's "Deep MNIST": conv 5x5 1->32 SAME + ReLU + maxpool
2, conv 5x5 32->64 SAME + ReLU + maxpool 2, fc 3136->1024 + ReLU, fc
1024->10), mean softmax cross-entropy, SGD with momentum 0.9 at lr 0.01, and
the batch copied from host memory every step, as Actorflow's step feeds it.
PyTorch's defaults stand (cuDNN convolutions may use TF32; matmuls do not).
Prints one JSON line per batch size: examples/s over --steps steps timed
together after --warmup steps (the GPU is synchronised once at the end).
"""
import argparse
import json
import time

import torch
import torch.nn as nn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", default="64,512")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--tf32", choices=["default", "off", "on"], default="default",
                   help="cuDNN/cuBLAS TF32: PyTorch's defaults (conv on, matmul off), or all off/on")
    args = p.parse_args()
    if args.tf32 != "default":
        on = args.tf32 == "on"
        torch.backends.cudnn.allow_tf32 = on
        torch.backends.cuda.matmul.allow_tf32 = on
    dev = torch.device("cuda")
    for batch in [int(b) for b in args.batches.split(",")]:
        torch.manual_seed(1)
        model = nn.Sequential(
            nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        x = torch.rand(batch, 1, 28, 28)
        y = torch.randint(0, 10, (batch,))

        def step():
            xb, yb = x.to(dev), y.to(dev)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            return loss

        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            loss = step()
        loss.item()
        torch.cuda.synchronize()
        dt = (time.perf_counter() - t0) / args.steps
        print(json.dumps({"bench": "train_step_peer", "case": "cnn_b%d_gpu" % batch,
                          "peer": "pytorch " + torch.__version__,
                          "device": torch.cuda.get_device_name(0), "batch": batch,
                          "conv_tf32": torch.backends.cudnn.allow_tf32,
                          "matmul_tf32": torch.backends.cuda.matmul.allow_tf32,
                          "step_ms": dt * 1e3, "metric": "examples_per_s",
                          "value": batch / dt, "unit": "1/s"}), flush=True)


if __name__ == "__main__":
    main()
