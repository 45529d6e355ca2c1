// The Catch2 main for every attend test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
