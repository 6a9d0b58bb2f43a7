#define BOOST_TEST_MODULE distributed
#include <boost/test/unit_test.hpp>
