// Every optimizer of the C++ API.
#pragma once

#include "client/optimizers/adagrad.h"
#include "client/optimizers/adam.h"
#include "client/optimizers/ftrl.h"
#include "client/optimizers/gradient_descent.h"
#include "client/optimizers/momentum.h"
#include "client/optimizers/optimizer.h"
#include "client/optimizers/rmsprop.h"
