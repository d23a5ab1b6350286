#ifndef FORMAT_H
#define FORMAT_H

#include "vector.h"

void format_vector(const char *label, vector v);
void format_number(const char *label, double value);

#endif
