#pragma once
#include <string>
namespace shapes {
int area(int w, int h);
std::string describe(int w, int h);
}
