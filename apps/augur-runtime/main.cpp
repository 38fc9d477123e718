#include <cstdio>

#include "augur/runtime/version.hpp"

int main() {
    std::puts(augur::runtime::versionString());
    return 0;
}
