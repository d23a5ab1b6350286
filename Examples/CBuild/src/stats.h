#ifndef STATS_H
#define STATS_H

#include <stddef.h>

double stats_mean(const double *values, size_t count);
double stats_variance(const double *values, size_t count);

#endif
