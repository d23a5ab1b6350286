#ifndef VECTOR_H
#define VECTOR_H

typedef struct { double x, y, z; } vector;

vector vector_add(vector a, vector b);
double vector_dot(vector a, vector b);
vector vector_cross(vector a, vector b);
double vector_length(vector a);

#endif
