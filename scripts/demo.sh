#!/usr/bin/env bash
# Sets everything up (packages, build) and runs the demo: a guided tour of the seed tutorials,
# then training: a linear regression and an MLP with gradient tapes and Keras's optimizers, an
# cifar10-style convnet trained as towers on two (simulated) GPUs, synchronous against asynchronous
# training of one MLP on 2 and 4 (simulated) GPUs, an MLP with eagle::keras's Sequential and fit,
# seed 003's CNN on the real Fashion-MNIST (the seeds: samples/README.md), and TensorFlow's
# custom-training tutorial under MirroredStrategy with checkpoints, and seed 001's two-process
# cluster.
# From a terminal the tour waits for Enter between steps; otherwise it runs straight through.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
cmake --preset default >/dev/null
samples=(log_device_placement manual_placement soft_placement visible_devices memory_growth
         memory_limit virtual_gpus multi_gpu_towers linear_regression custom_training_loop
         keras_mlp multi_gpu_towers_training sync_vs_async fashion_mnist_cnn
         custom_training_distributed distributed_hello tour)
cmake --build --preset default --target "${samples[@]}"
build/default/samples/tour
printf '\n==== Training: a linear regression with a GradientTape and SGD ====\n'
build/default/samples/linear_regression
printf '\n==== Training: an MLP on two spirals with Adam ====\n'
build/default/samples/custom_training_loop
printf '\n==== Towers (seed 002): one per GPU, gradients averaged on the CPU ====\n'
EAGLE_SIMULATED_GPUS=2 build/default/samples/multi_gpu_towers_training \
  --steps 100 --log-frequency 10
printf '\n==== Seed 000 §9.2: synchronous (MirroredStrategy) vs asynchronous training ====\n'
build/default/samples/sync_vs_async --steps 200 --log-frequency 25
printf '\n==== Keras: an MLP with Sequential, compile and fit ====\n'
build/default/samples/keras_mlp
printf '\n==== Keras: seed 003 CNN on Fashion-MNIST, 5 epochs (a few minutes on 2 cores) ====\n'
build/default/samples/fashion_mnist_cnn --save build/default/fashion_mnist_cnn.weights.h5
printf '\n==== "Custom training with tf.distribute.Strategy": 2 GPUs, checkpoints, a restore ====\n'
build/default/samples/custom_training_distributed --epochs 4 --train-size 20000 \
  --checkpoint-dir build/default/training_checkpoints
printf '\n==== Seed 001: a cluster of two processes, a string made on task 1 and read back ====\n'
build/default/samples/distributed_hello
printf '\nEach example on its own: build/default/samples/<name>, <name> one of\n  %s\n' \
  "${samples[*]:0:${#samples[@]}-1}"
