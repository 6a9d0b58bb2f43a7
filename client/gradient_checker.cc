#include "client/gradient_checker.h"

#include <cmath>
#include <limits>
#include <random>

#include "client/client_session.h"
#include "client/const_op.h"
#include "client/gradients.h"

namespace af {

namespace {

Status CheckFloating(DataType t, const std::string& what) {
  if (t == DT_FLOAT || t == DT_DOUBLE) return Status::OK();
  return errors::InvalidArgument("gradient checker: ", what, " has type ", DataTypeString(t),
                                 "; only float and double are supported");
}

double Get(const Tensor& t, int64_t i) {
  return t.dtype() == DT_DOUBLE ? t.data<double>()[i] : t.data<float>()[i];
}

void Set(Tensor* t, int64_t i, double v) {
  if (t->dtype() == DT_DOUBLE) {
    t->data<double>()[i] = v;
  } else {
    t->data<float>()[i] = static_cast<float>(v);
  }
}

Tensor Zeros(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) Set(&t, i, 0.0);
  return t;
}

}  // namespace

Status ComputeJacobians(const Scope& scope, const OutputList& xs,
                        const std::vector<Tensor>& x_values, const OutputList& ys,
                        const std::vector<TensorShape>& y_shapes,
                        std::vector<std::vector<double>>* theoretical,
                        std::vector<std::vector<double>>* numerical,
                        const GradientCheckOptions& options) {
  AF_RETURN_IF_ERROR(scope.status());
  if (xs.size() != x_values.size() || ys.size() != y_shapes.size())
    return errors::InvalidArgument("gradient checker: ", xs.size(), " xs with ",
                                   x_values.size(), " values, ", ys.size(), " ys with ",
                                   y_shapes.size(), " shapes");
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!xs[i].valid()) return errors::InvalidArgument("gradient checker: x ", i, " is invalid");
    AF_RETURN_IF_ERROR(CheckFloating(xs[i].type(), "x '" + xs[i].name() + "'"));
    if (x_values[i].dtype() != xs[i].type())
      return errors::InvalidArgument("gradient checker: the value of x '", xs[i].name(),
                                     "' has type ", DataTypeString(x_values[i].dtype()));
  }
  for (const Output& y : ys) {
    if (!y.valid()) return errors::InvalidArgument("gradient checker: a y is invalid");
    AF_RETURN_IF_ERROR(CheckFloating(y.type(), "y '" + y.name() + "'"));
  }

  // Gradients of the ys weighted by fed dys: feeding a one-hot dy reads one
  // row of the Jacobian.
  const Scope checker = scope.NewSubScope("gradient_checker");
  OutputList dys;
  for (size_t j = 0; j < ys.size(); ++j)
    dys.push_back(ops::Placeholder(checker, ys[j].type(), PartialTensorShape(y_shapes[j])));
  OutputList dxs;
  AF_RETURN_IF_ERROR(AddSymbolicGradients(scope, ys, xs, dys, &dxs));
  AF_RETURN_IF_ERROR(scope.status());

  int64_t x_total = 0, y_total = 0;
  for (const Tensor& v : x_values) x_total += v.NumElements();
  for (const TensorShape& s : y_shapes) y_total += s.num_elements();
  theoretical->assign(x_total, std::vector<double>(y_total, 0.0));
  numerical->assign(x_total, std::vector<double>(y_total, 0.0));

  ClientSession session(scope);
  ClientSession::FeedType feeds;
  std::vector<Tensor> x_feed;
  for (size_t i = 0; i < xs.size(); ++i) {
    x_feed.push_back(x_values[i].DeepCopy());
    feeds.emplace(xs[i], x_values[i].DeepCopy());
  }
  std::vector<Tensor> dy_values;
  for (size_t j = 0; j < ys.size(); ++j) dy_values.push_back(Zeros(ys[j].type(), y_shapes[j]));

  // Theoretical: one step per y element.
  std::vector<Tensor> out;
  int64_t col = 0;
  for (size_t j = 0; j < ys.size(); ++j) {
    for (int64_t k = 0; k < y_shapes[j].num_elements(); ++k, ++col) {
      Set(&dy_values[j], k, 1.0);
      // Fed tensors may come back as fetched ones (no copies in a process),
      // so every step gets its own copies.
      ClientSession::FeedType step_feeds = feeds;
      for (size_t jj = 0; jj < ys.size(); ++jj)
        step_feeds.emplace(dys[jj], dy_values[jj].DeepCopy());
      AF_RETURN_IF_ERROR(session.Run(step_feeds, dxs, &out));
      Set(&dy_values[j], k, 0.0);
      int64_t row = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (out[i].NumElements() != x_values[i].NumElements())
          return errors::Internal("gradient checker: the gradient of x '", xs[i].name(),
                                  "' has shape ", out[i].shape().DebugString(), " but x has ",
                                  x_values[i].shape().DebugString());
        for (int64_t e = 0; e < out[i].NumElements(); ++e, ++row)
          (*theoretical)[row][col] = Get(out[i], e);
      }
    }
  }

  // Numerical: central differences, two steps per x element.
  auto eval_ys = [&](std::vector<Tensor>* values) -> Status {
    ClientSession::FeedType step_feeds;
    for (size_t i = 0; i < xs.size(); ++i) step_feeds.emplace(xs[i], x_feed[i].DeepCopy());
    AF_RETURN_IF_ERROR(session.Run(step_feeds, ys, values));
    for (size_t j = 0; j < ys.size(); ++j) {
      if ((*values)[j].shape() != y_shapes[j])
        return errors::InvalidArgument("gradient checker: y '", ys[j].name(), "' has shape ",
                                       (*values)[j].shape().DebugString(), ", not ",
                                       y_shapes[j].DebugString());
    }
    return Status::OK();
  };
  int64_t row = 0;
  std::vector<Tensor> plus, minus;
  for (size_t i = 0; i < xs.size(); ++i) {
    for (int64_t e = 0; e < x_feed[i].NumElements(); ++e, ++row) {
      const double v = Get(x_feed[i], e);
      Set(&x_feed[i], e, v + options.delta);
      AF_RETURN_IF_ERROR(eval_ys(&plus));
      Set(&x_feed[i], e, v - options.delta);
      AF_RETURN_IF_ERROR(eval_ys(&minus));
      Set(&x_feed[i], e, v);
      int64_t c = 0;
      for (size_t j = 0; j < ys.size(); ++j)
        for (int64_t k = 0; k < plus[j].NumElements(); ++k, ++c)
          (*numerical)[row][c] = (Get(plus[j], k) - Get(minus[j], k)) / (2 * options.delta);
    }
  }
  return Status::OK();
}

Status ComputeGradientError(const Scope& scope, const OutputList& xs,
                            const std::vector<Tensor>& x_values, const OutputList& ys,
                            const std::vector<TensorShape>& y_shapes, double* max_error,
                            const GradientCheckOptions& options) {
  std::vector<std::vector<double>> theoretical, numerical;
  AF_RETURN_IF_ERROR(
      ComputeJacobians(scope, xs, x_values, ys, y_shapes, &theoretical, &numerical, options));
  double worst = 0;
  for (size_t r = 0; r < theoretical.size(); ++r) {
    for (size_t c = 0; c < theoretical[r].size(); ++c) {
      const double diff = std::fabs(theoretical[r][c] - numerical[r][c]);
      // NaN anywhere is the worst possible answer.
      if (std::isnan(diff)) {
        worst = std::numeric_limits<double>::infinity();
      } else {
        worst = std::max(worst, diff);
      }
    }
  }
  *max_error = worst;
  return Status::OK();
}

Status ComputeGradientError(const Scope& scope, const OutputList& xs,
                            const std::vector<TensorShape>& x_shapes, const OutputList& ys,
                            const std::vector<TensorShape>& y_shapes, double* max_error,
                            const GradientCheckOptions& options) {
  if (xs.size() != x_shapes.size())
    return errors::InvalidArgument("gradient checker: ", xs.size(), " xs with ",
                                   x_shapes.size(), " shapes");
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Tensor> values;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!xs[i].valid()) return errors::InvalidArgument("gradient checker: x ", i, " is invalid");
    AF_RETURN_IF_ERROR(CheckFloating(xs[i].type(), "x '" + xs[i].name() + "'"));
    Tensor t(xs[i].type(), x_shapes[i]);
    for (int64_t e = 0; e < t.NumElements(); ++e) Set(&t, e, uniform(rng));
    values.push_back(t);
  }
  return ComputeGradientError(scope, xs, values, ys, y_shapes, max_error, options);
}

Status ComputeGradientError(const Scope& scope, const Output& x, const Tensor& x_value,
                            const Output& y, const TensorShape& y_shape, double* max_error,
                            const GradientCheckOptions& options) {
  return ComputeGradientError(scope, OutputList{x}, std::vector<Tensor>{x_value}, OutputList{y},
                              std::vector<TensorShape>{y_shape}, max_error, options);
}

}  // namespace af
