#define BOOST_TEST_MODULE gpu_runtime
#include <boost/test/unit_test.hpp>
