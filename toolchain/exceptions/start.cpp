// bugrank's C++ programs built with exceptions call their `main` through this wrapper
// (linked with `-Wl,--wrap=__original_main`): an exception that leaves `main` is caught
// here, where it is still the current exception, and `std::terminate` reports it as a
// native libc++ program does ("libc++abi: terminating due to uncaught exception of type
// std::out_of_range: vector") before it aborts. Without it the exception would leave the
// module unreported: WebAssembly has no second phase that finds no handler.
#include <exception>

extern "C" int __real___original_main(void);

extern "C" int __wrap___original_main(void) {
    try {
        return __real___original_main();
    } catch (...) {
        std::terminate();
    }
}
