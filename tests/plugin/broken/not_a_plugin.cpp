// A plain shared library with no attend plugin symbols: the loader must refuse it.
extern "C" int attend_test_unrelated_function(int x) { return 2 * x; }
