#include "matrix.h"

double matrix2_determinant(matrix2 a) { return a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]; }

matrix2 matrix2_multiply(matrix2 a, matrix2 b) {
    matrix2 result = {{{0, 0}, {0, 0}}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 2; k++) result.m[i][j] += a.m[i][k] * b.m[k][j];
    return result;
}
