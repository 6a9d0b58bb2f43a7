#!/usr/bin/env python3
# The PyTorch side of bench/loop's LSTM figure: the same classifier (an LSTM
# cell of 128 units over the 28 rows of a 28x28 image, batch 128, a dense
# layer to 10 logits, mean softmax cross-entropy), timed forward (loss) and
# forward+backward (loss.backward(), every gradient) per batch on synthetic
# data. torch.nn.LSTM runs the recurrence in its own C++ loop, the
# counterpart of our while loop. Prints one JSON line per figure, as
# bench_loop does.
#   /usr/bin/python3 bench/peers/torch_lstm.py [--threads 2] [--seconds 2]
import argparse
import json
import time

import torch


def time_per_call(fn, seconds):
    for _ in range(3):
        fn()
    batches = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or len(batches) < 5:
        t0 = time.perf_counter()
        for _ in range(3):
            fn()
        batches.append((time.perf_counter() - t0) / 3)
    batches.sort()
    return batches[len(batches) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    batch, hidden, rows = 128, 128, 28
    lstm = torch.nn.LSTM(input_size=rows, hidden_size=hidden, batch_first=True)
    dense = torch.nn.Linear(hidden, 10)
    images = torch.rand(batch, rows, rows)
    labels = torch.arange(batch) % 10
    loss_fn = torch.nn.CrossEntropyLoss()

    def loss():
        out, _ = lstm(images)
        return loss_fn(dense(out[:, -1, :]), labels)

    def forward():
        with torch.no_grad():
            loss()

    params = list(lstm.parameters()) + list(dense.parameters())

    def forward_backward():
        for p in params:
            p.grad = None
        loss().backward()

    for case, fn in (("torch_lstm_forward", forward), ("torch_lstm_forward_backward", forward_backward)):
        ms = time_per_call(fn, args.seconds) * 1e3
        print(json.dumps({"bench": "loop", "case": case, "batch": batch, "hidden": hidden,
                          "rows": rows, "threads": args.threads, "torch": torch.__version__,
                          "metric": "ms_per_batch", "value": round(ms, 4), "unit": "ms"}))


if __name__ == "__main__":
    main()
