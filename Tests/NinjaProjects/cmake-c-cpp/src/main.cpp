#include <cstdio>
#include "shapes.hpp"
#include "util.h"
int main() {
    std::printf("demo %s: %s\n", util_version(), shapes::describe(3, 4).c_str());
    return 0;
}
