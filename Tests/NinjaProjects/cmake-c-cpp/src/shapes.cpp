#include "shapes.hpp"
#include "util.h"
namespace shapes {
int area(int w, int h) { return w * h; }
std::string describe(int w, int h) {
    return std::to_string(w) + "x" + std::to_string(h) + " = " + std::to_string(area(w, h)) +
           " (sum " + std::to_string(util_add(w, h)) + ")";
}
}
