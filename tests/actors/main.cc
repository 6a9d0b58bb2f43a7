#define BOOST_TEST_MODULE actors
#include <boost/test/unit_test.hpp>
