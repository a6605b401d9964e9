// Every op runs immediately through the dispatcher (placement, logging, kernel table).
// Op names in logs and errors are TensorFlow's (AddV2, MatMul, ...). One header per family;
// this one includes them all.
#pragma once

#include "eagle/ops/array.hpp"
#include "eagle/ops/creation.hpp"
#include "eagle/ops/linalg.hpp"
#include "eagle/ops/math.hpp"
#include "eagle/ops/reduce.hpp"
#include "eagle/ops/sort.hpp"
#include "eagle/ops/strings.hpp"
