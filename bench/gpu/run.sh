#!/usr/bin/env bash
# The GPU machine's checks and figures in one go, ending well within 8
# minutes. It builds nothing: `make gpu-pack` on a CPU machine (with the CUDA
# toolkit) builds the binaries and packs them, the shared libraries a bare
# CUDA machine lacks and the Fashion-MNIST files into .gpu-carry/pack.tar.xz.
# On the GPU machine, from the repository root:
#
#   bash bench/gpu/run.sh [.gpu-carry] [OUT_DIR]
#
# 1. test_gpu: every GPU kernel against its CPU kernel on a CUDA device;
# 2. bench_gpu_kernels: GEMM and Conv2D through our kernels vs cuBLAS/cuDNN;
# 3. the demo CNN's training step (batch 64 and 512) vs PyTorch on the GPU,
#    with PyTorch's TF32 defaults, with TF32 on both sides and off on both;
# 4. one epoch of Fashion-MNIST on the GPU.
# Every step has its own time limit; a failing step does not stop the rest.
set -u
carry=${1:-.gpu-carry}
out=${2:-${OUT:-/tmp/actorflow-gpu}}
mkdir -p "$out" "$carry/unpacked"
if [ -f "$carry/pack.tar.xz" ]; then tar -xJf "$carry/pack.tar.xz" -C "$carry/unpacked"; fi
root=$carry/unpacked
bin=$root/bin
# cuBLAS and cuDNN come from the machine: the toolkit's, or the ones PyTorch
# brought.
extra=""
for name in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13; do
  for dir in /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu \
             $(python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, d, "lib") for p in nvidia.__path__ for d in os.listdir(p)))' 2>/dev/null); do
    if [ -e "$dir/$name" ]; then extra="$extra:$dir"; break; fi
  done
done
export LD_LIBRARY_PATH="$root/lib$extra:${LD_LIBRARY_PATH:-}"
echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm --format=csv,noheader
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  echo "== $name"
  local t0=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $(( $(date +%s) - t0 )) s"
  grep -E '^\{' "$out/$name.log" || true
  if [ $rc -ne 0 ]; then tail -n 40 "$out/$name.log"; fi
}

step test_gpu 90 "$bin/test_gpu" --report_level=short --log_level=message
grep -E 'error|failed|passed|skipped' "$out/test_gpu.log" | tail -n 40
step bench_gpu_kernels 75 "$bin/bench_gpu_kernels"
step train_step_gpu 60 "$bin/bench_train_step" --models cnn --batches 64,512 --device gpu \
  --steps 100 --warmup 10
step train_step_pytorch 75 python3 bench/peers/torch_cnn_gpu.py --batches 64,512 --steps 100 \
  --warmup 10
# The same comparison with TF32 allowed on both sides (PyTorch's default
# allows it for convolutions only), and with it off on both.
step train_step_gpu_tf32 60 env ACTORFLOW_GPU_ALLOW_TF32=1 "$bin/bench_train_step" --models cnn \
  --batches 64,512 --device gpu --steps 100 --warmup 10
step train_step_pytorch_tf32 75 python3 bench/peers/torch_cnn_gpu.py --batches 64,512 --steps 100 \
  --warmup 10 --tf32 on
step train_step_pytorch_no_tf32 75 python3 bench/peers/torch_cnn_gpu.py --batches 64,512 \
  --steps 100 --warmup 10 --tf32 off
step fashion_mnist_gpu 100 "$bin/fashion_mnist" --device gpu --epochs 1 --batch 64 \
  --data_dir "$root/data" --progress false --threads 4
tail -n 3 "$out/fashion_mnist_gpu.log"
echo "== done"
