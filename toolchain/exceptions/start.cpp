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

// std::stoi and its kin, which Debian's libc++.a compiles without exceptions (it aborts on
// text that is no number), as GCC's libstdc++ has them, what judges' programs get: an
// std::invalid_argument when nothing converts, an std::out_of_range when the value does
// not fit, each saying the function's name. Linked in place of libc++'s with
// `-Wl,--wrap=` of each (`toolchain::exceptions::FLAGS`): the names are libc++'s
// mangled ones, namespace std::__2.
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

template <class Convert>
auto converted(const char *name, const std::string &text, size_t *index, Convert convert) {
    const char *start = text.c_str();
    char *end = nullptr;
    int saved = errno;
    errno = 0;
    auto value = convert(start, &end);
    bool out_of_range = errno == ERANGE;
    if (errno == 0) errno = saved;
    if (end == start) throw std::invalid_argument(name);
    if (out_of_range) throw std::out_of_range(name);
    if (index) *index = static_cast<size_t>(end - start);
    return value;
}

}  // namespace

extern "C" {

int __wrap__ZNSt3__24stoiERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi(const std::string &text, size_t *index, int base) {
    long value = converted("stoi", text, index, [base](const char *start, char **end) { return std::strtol(start, end, base); });
    if (value < INT_MIN || value > INT_MAX) throw std::out_of_range("stoi");
    return static_cast<int>(value);
}

long __wrap__ZNSt3__24stolERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi(const std::string &text, size_t *index, int base) {
    return converted("stol", text, index, [base](const char *start, char **end) { return std::strtol(start, end, base); });
}

unsigned long __wrap__ZNSt3__25stoulERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi(const std::string &text, size_t *index, int base) {
    return converted("stoul", text, index, [base](const char *start, char **end) { return std::strtoul(start, end, base); });
}

long long __wrap__ZNSt3__25stollERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi(const std::string &text, size_t *index, int base) {
    return converted("stoll", text, index, [base](const char *start, char **end) { return std::strtoll(start, end, base); });
}

unsigned long long __wrap__ZNSt3__26stoullERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPmi(const std::string &text, size_t *index, int base) {
    return converted("stoull", text, index, [base](const char *start, char **end) { return std::strtoull(start, end, base); });
}

float __wrap__ZNSt3__24stofERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm(const std::string &text, size_t *index) {
    return converted("stof", text, index, [](const char *start, char **end) { return std::strtof(start, end); });
}

double __wrap__ZNSt3__24stodERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm(const std::string &text, size_t *index) {
    return converted("stod", text, index, [](const char *start, char **end) { return std::strtod(start, end); });
}

long double __wrap__ZNSt3__25stoldERKNS_12basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEEEPm(const std::string &text, size_t *index) {
    return converted("stold", text, index, [](const char *start, char **end) { return std::strtold(start, end); });
}

}
