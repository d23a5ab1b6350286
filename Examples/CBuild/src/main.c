#include "format.h"
#include "matrix.h"
#include "stats.h"
#include "vector.h"

int main(void) {
    vector a = {1, 0, 0}, b = {0, 1, 0};
    format_vector("sum", vector_add(a, b));
    format_vector("cross", vector_cross(a, b));
    format_number("length", vector_length(vector_add(a, b)));

    matrix2 m = {{{1, 2}, {3, 4}}};
    format_number("determinant", matrix2_determinant(m));
    format_number("determinant of square", matrix2_determinant(matrix2_multiply(m, m)));

    double values[] = {1, 2, 3, 4};
    format_number("mean", stats_mean(values, 4));
    format_number("variance", stats_variance(values, 4));
    return 0;
}
