#ifndef MATRIX_H
#define MATRIX_H

#include "vector.h"

typedef struct { double m[2][2]; } matrix2;

double matrix2_determinant(matrix2 a);
matrix2 matrix2_multiply(matrix2 a, matrix2 b);

#endif
