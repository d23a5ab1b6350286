#include <stdio.h>
#include "format.h"

void format_vector(const char *label, vector v) { printf("%s: (%.2f, %.2f, %.2f)\n", label, v.x, v.y, v.z); }

void format_number(const char *label, double value) { printf("%s: %.2f\n", label, value); }
