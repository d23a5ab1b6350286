#include <math.h>
#include "vector.h"

vector vector_add(vector a, vector b) { return (vector){a.x + b.x, a.y + b.y, a.z + b.z}; }

double vector_dot(vector a, vector b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

vector vector_cross(vector a, vector b) {
    return (vector){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

double vector_length(vector a) { return sqrt(vector_dot(a, a)); }
