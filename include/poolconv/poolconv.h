// The whole public API of poolconv.
#pragma once

#include "poolconv/convolution.h"
#include "poolconv/pooling.h"
#include "poolconv/runtime.h"
#include "poolconv/tensor.h"
