#include "stats.h"

double stats_mean(const double *values, size_t count) {
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += values[i];
    return count ? sum / (double)count : 0;
}

double stats_variance(const double *values, size_t count) {
    double mean = stats_mean(values, count), sum = 0;
    for (size_t i = 0; i < count; i++) sum += (values[i] - mean) * (values[i] - mean);
    return count ? sum / (double)count : 0;
}
